#!/usr/bin/env bash
# suite.t: the scenario suite on each kernel variant in turn (UMLBED_VARIANTS, default every generation's "variants" of uml-kernel/generations/), one TAP stream: whole on each generation's first variant (or make's passed run of the same inputs), the files that read the variant's definition on the others.
#
# Each variant is one `umlbed run --variant V scenarios/` (-j auto: as many at once as pay off here), its TAP passed
# on as it comes, numbered on from the variant before and headed by a comment naming the variant: the same test
# lines as one file per variant gave. A variant whose kernel is not built is one SKIP (a failure under strict
# mode); a runner that ends without reporting every run it planned, or fails without a failed run, adds a failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${UMLBED_BUILD:-$top/build}
UMLBED=$BUILD/runner/umlbed
. "$top/tests/lib/strict.sh"

if [ -n "${UMLBED_VARIANTS+set}" ]; then
	read -ra variants <<<"$UMLBED_VARIANTS"
else
	read -ra variants <<<"$("$top/uml-kernel/generation.sh" all variants)"
fi
if [ ! -x "$UMLBED" ] || [ ${#variants[@]} = 0 ]; then
	why="no runner ($UMLBED: make runner)"
	[ ${#variants[@]} = 0 ] && why="no variants (UMLBED_VARIANTS is empty)"
	if strict; then
		echo "1..1"
		prereq_result 1 "$why"
		exit 1
	fi
	echo "1..0 # SKIP $why"
	exit 0
fi

mkdir -p "$BUILD/scenarios"
T=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-suite.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

# The variants of one generation differ in what their definitions say (gpl-only drops the export patch), not in
# their mm code: the first variant of each generation runs the whole suite, the others the scenario files whose
# expectations come from the variant's definition (those that read uml-kernel/variants/), which are the only ones
# whose verdict can differ between them.
gen_sh=$top/uml-kernel/generation.sh
mapfile -t by_definition < <(grep -l '/uml-kernel/variants/' "$top"/scenarios/*.lua)
declare -A whole
for g in $("$gen_sh" list); do
	read -r first _ <<<"$("$gen_sh" get "$g" variants)"
	whole[$first]=1
done

echo "TAP version 13"
n=0
for v in "${variants[@]}"; do
	kernel=$BUILD/kernel/$v/obj/linux
	if [ ! -x "$kernel" ]; then
		n=$((n + 1))
		prereq_result "$n" "$v: no kernel $kernel (uml-kernel/build.sh $v)"
		continue
	fi
	files=("$top/scenarios")
	[ -n "${whole[$v]:-}" ] || files=("${by_definition[@]}")
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
			([.results[].verdict] | all(. == "ok")) and .summary.ok == (.results | length)' "$report" >/dev/null 2>&1; then
		echo "$v: reused $report (key $key)" >>"$BUILD/scenarios/suite.log"
		echo "# variant $v: $kernel: make's run of the whole suite, reused: its key is this run's ($report)"
		while IFS= read -r name; do
			n=$((n + 1))
			# The runner's TAP writes a hash in a name as backslash-hash, so that no name reads as a directive.
			echo "ok $n - ${name//#/\\#} # reused from make's run of the same key"
		done < <(jq -r '.results[].name' "$report")
		continue
	fi
	if [ -n "${whole[$v]:-}" ]; then
		echo "$v: ran the whole suite (key $key; make's: $(cat "$BUILD/scenarios/$g.key" 2>/dev/null || echo none))" \
			>>"$BUILD/scenarios/suite.log"
	fi
	echo "# variant $v: $kernel (${files[*]##*/})"
	# The runner's own version line and plan go; its test lines are numbered on from n. awk records how many it
	# passed on, how many failed and the runner's plan.
	"$UMLBED" run --variant "$v" "${files[@]}" | awk -v n="$n" -v count="$T/count" '
		/^TAP version / { next }
		/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; next }
		/^(not )?ok [0-9]+/ {
			m++
			if ($1 == "not") bad++
			rest = $0
			sub(/^(not )?ok [0-9]+/, "", rest)
			print ($1 == "not" ? "not ok " : "ok ") (n + m) rest
			fflush()
			next
		}
		{ print; fflush() }
		END { print m + 0, (plan == "" ? -1 : plan), bad + 0 > count }'
	rc=${PIPESTATUS[0]}
	read -r seen plan bad <"$T/count"
	n=$((n + seen))
	if [ "$plan" != "$seen" ] || { [ "$rc" != 0 ] && [ "$bad" = 0 ]; }; then
		[ "$plan" = -1 ] && plan="none planned"
		n=$((n + 1))
		echo "not ok $n - $v: the runner reported every run it planned ($seen of $plan) and ended with them (exit $rc)"
	fi
done
echo "1..$n"
