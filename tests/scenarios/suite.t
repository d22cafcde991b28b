#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# suite.t: the scenario suite on each kernel variant in turn (UMLBED_VARIANTS, default every generation's "variants" of uml-kernel/generations/), one TAP stream with a subtest per variant: whole on each generation's first variant (or make's passed run of the same inputs), the files that read the variant's definition on the others.
#
# Each variant is one `umlbed run --variant V --subtest V --json FILE scenarios/` (-j auto: as many at once as pay
# off here): its TAP passed on as it comes, as a subtest (KTAP's nested test, indented: prove shows it with -v and
# counts none of it), then the variant's results, taken from the run's JSON report: every run ok or SKIP, and the
# runner reported every run it planned and ended with them. A run that is neither ok nor SKIP is named on stderr
# with its diagnostics too, where prove shows it without -v. A variant whose kernel is not built is one SKIP (a
# failure under strict mode).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${UMLBED_BUILD:-$top/build}
UMLBED=$BUILD/runner/umlbed
. "$top/tests/lib/strict.sh"
. "$top/tests/lib/tap.sh"

if [ -n "${UMLBED_VARIANTS+set}" ]; then
	read -ra variants <<<"$UMLBED_VARIANTS"
else
	read -ra variants <<<"$("$top/uml-kernel/generation.sh" all variants)"
fi
[ ${#variants[@]} != 0 ] || prereq_skip_all "no variants (UMLBED_VARIANTS is empty)"
[ -x "$UMLBED" ] || prereq_skip_all "no runner ($UMLBED: make runner)"
command -v jq >/dev/null || prereq_skip_all "no jq to read the runner's report (Debian package jq)"

mkdir -p "$BUILD/scenarios"
T=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-suite.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

# The variants of one generation differ in what their definitions say (gpl-only drops the export patch), not in
# their mm code: the first variant of each generation runs the whole suite, the others the scenario files whose
# expectations come from the variant's definition (those that require umlbed.definition, which reads the variant's
# definition that generation.sh resolved, from beside the kernel), which are the only ones whose verdict can differ
# between them.
gen_sh=$top/uml-kernel/generation.sh
mapfile -t by_definition < <(grep -l 'require "umlbed.definition"' "$top"/scenarios/*.lua)
declare -A whole
for g in $("$gen_sh" list); do
	read -r first _ <<<"$("$gen_sh" get "$g" variants)"
	whole[$first]=1
done

# How many runs had each verdict, as "180 ok, 7 SKIP".
verdicts='[.results[].verdict] | group_by(.) | map("\(length) \(.[0])") | join(", ")'
# Each run that is neither ok nor SKIP: its name, verdict and file, then the first lines of its diagnostics.
failures='.results[] | select(.verdict != "ok" and .verdict != "SKIP") |
	"\(.name): \(.verdict) (\(.file))", (.diag // "" | split("\n") | map(select(. != "")) | .[:20][] | "  " + .)'

# The runner ended a run of the suite as it should: every run it planned reported (none NOT RUN, none missing) and
# an exit status that says whether some run failed, and nothing else.
ended_whole() { [ "$reported" = "$planned" ] && [ "$planned" -gt 0 ] && [ "$rc" = "$((bad > 0))" ]; }

echo "TAP version 13"
for v in "${variants[@]}"; do
	kernel=$BUILD/kernel/$v/obj/linux
	if [ ! -x "$kernel" ]; then
		prereq_skip "$v: no kernel $kernel (uml-kernel/build.sh $v)"
		continue
	fi
	files=("$top/scenarios")
	if [ -z "${whole[$v]:-}" ]; then
		# Without a file, the runner would run ./scenarios: a selection that finds none is this file's failure.
		if [ ${#by_definition[@]} = 0 ]; then
			ok 1 "$v: some scenario file reads the variant's definition (require \"umlbed.definition\")"
			continue
		fi
		files=("${by_definition[@]}")
	fi
	# make runs the whole suite on each generation's full variant and keeps its report with the key of its inputs
	# (scripts/scenario-key.sh): a passed run of the same key is that same suite on the same kernel, agent, runner and
	# scenarios, so its results are reused instead of running it again, each result saying so.
	g=$("$gen_sh" of "$v")
	report=$BUILD/scenarios/$g.json
	# Whether the report was reused, and why not, goes to BUILD/scenarios/suite.log too: prove's output does not
	# show this file's comments, and the clean room copies the build folder's logs out.
	key=
	[ -z "${whole[$v]:-}" ] || key=$(BUILD=$BUILD "$top/scripts/scenario-key.sh" "$v")
	if [ -n "${whole[$v]:-}" ] && [ -f "$report" ] && [ -f "$BUILD/scenarios/$g.key" ] &&
		[ "$(cat "$BUILD/scenarios/$g.key")" = "$key" ] &&
		jq -e --arg v "$v" '.variant == $v and (.results | length) > 0 and
			([.results[].verdict] | all(. == "ok" or . == "SKIP")) and
			.summary.ok + (.summary.SKIP // 0) == (.results | length)' "$report" >/dev/null 2>&1; then
		echo "$v: reused $report (key $key)" >>"$BUILD/scenarios/suite.log"
		echo "# variant $v: $kernel: make's run of the whole suite, reused: its key is this run's ($report)"
		# The runner prints the report again, as the subtest its run printed (umlbed merge of one whole run).
		"$UMLBED" merge --subtest "$v" "$report"
		mrc=$?
		ok "$mrc" "$v: make's passed run of the same key, reused ($(jq -r "$verdicts" "$report"))"
		continue
	fi
	if [ -n "${whole[$v]:-}" ]; then
		echo "$v: ran the whole suite (key $key; make's: $(cat "$BUILD/scenarios/$g.key" 2>/dev/null || echo none))" \
			>>"$BUILD/scenarios/suite.log"
	fi
	echo "# variant $v: $kernel (${files[*]##*/})"
	r=$T/$v.json
	"$UMLBED" run --variant "$v" --subtest "$v" --json "$r" "${files[@]}"
	rc=$?
	if ! jq -e '(.planned | type) == "number" and (.results | type) == "array"' "$r" >/dev/null 2>&1; then
		ok 1 "$v: the runner wrote its report (exit $rc)"
		continue
	fi
	bad=$(jq '[.results[] | select(.verdict != "ok" and .verdict != "SKIP")] | length' "$r")
	ok "$bad" "$v: every run ok or SKIP ($(jq -r "$verdicts" "$r"))"
	[ "$bad" = 0 ] || jq -r "$failures" "$r" | diag
	planned=$(jq .planned "$r")
	reported=$(jq '[.results[] | select(.verdict != "NOT RUN")] | length' "$r")
	check "$v: the runner reported every run it planned ($reported of $planned) and ended with them (exit $rc)" \
		ended_whole
done
echo "1..$n"
