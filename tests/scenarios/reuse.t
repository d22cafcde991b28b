#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# reuse.t: suite.t reuses make's run of the whole suite only when it passed and its key (scripts/scenario-key.sh) is that of the same inputs; otherwise it runs the suite.
#
# In a build folder of the test's own: a stand-in runner that says it ran (so a reuse that should not happen shows),
# a stand-in kernel, agent and modules, and a report of make's run. The key must change with each input a run
# reads, and stay the same with the paths make check sets.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/strict.sh"
. "$top/tests/lib/tap.sh"
command -v jq >/dev/null || prereq_skip_all "no jq (Debian package jq)"
T=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-reuse.XXXXXX")
trap 'rm -rf "$T"' EXIT
B=$T/build
g=$("$top/uml-kernel/generation.sh" default)
mkdir -p "$B/kernel/full/obj" "$B/kernel/full/modules" "$B/guest" "$B/runner" "$B/scenarios"
printf '#!/bin/sh\nexit 0\n' >"$B/kernel/full/obj/linux"
echo agent >"$B/guest/umlbed-agent"
echo module >"$B/kernel/full/modules/umlbed_gpl.ko"
# The stand-in runner: a subtest with one failed result that names it, as a run of the suite would look if it
# happened; its --json report is a copy of STANDIN_REPORT (none without it), its exit status STANDIN_EXIT (1).
# umlbed merge, which prints a reused report again, is the real runner's: what suite.t prints is tested, not a copy.
real=${UMLBED_BUILD:-$top/build}/runner/umlbed
[ -x "$real" ] || prereq_skip_all "no runner at $real (make runner)"
printf '#!/bin/sh\n[ "$1" != merge ] || exec %q "$@"\n' "$real" >"$B/runner/umlbed"
cat >>"$B/runner/umlbed" <<'EOF'
printf '    TAP version 13\n    1..1\n    not ok 1 - the runner ran\n'
while [ $# -gt 1 ]; do
	if [ "$1" = --json ] && [ -n "${STANDIN_REPORT:-}" ]; then cp "$STANDIN_REPORT" "$2"; fi
	shift
done
exit "${STANDIN_EXIT:-1}"
EOF
chmod +x "$B/kernel/full/obj/linux" "$B/runner/umlbed"
key() { BUILD=$B "$top/scripts/scenario-key.sh" full; }

k0=$(key)
check "the key is a sha256 ($k0)" grep -qxE '[0-9a-f]{64}' <<<"$k0"
check "the same inputs give the same key" [ "$(key)" = "$k0" ]
check "make check's paths do not change it" \
	[ "$(UMLBED_BUILD=/elsewhere UMLBED_RUNNER_DIR=/x UMLBED_VARIANTS=full key)" = "$k0" ]
check "UMLBED_TIMEOUT_SCALE changes it" [ "$(UMLBED_TIMEOUT_SCALE=3 key)" != "$k0" ]
check "CI's strict mode changes it" [ "$(CI=other key)" != "$k0" ]
for f in kernel/full/obj/linux guest/umlbed-agent runner/umlbed kernel/full/modules/umlbed_gpl.ko; do
	cp "$B/$f" "$T/saved"
	echo >>"$B/$f"
	check "a changed $f changes it" [ "$(key)" != "$k0" ]
	cp "$T/saved" "$B/$f"
done
check "... and restored, the key is back" [ "$(key)" = "$k0" ]
check "another variant has another key" [ "$(BUILD=$B "$top/scripts/scenario-key.sh" gpl-only)" != "$k0" ]
# The source inputs: the key reads them from the tree the script is in, so a copy of it is edited.
mkdir -p "$T/top/scripts" "$T/top/uml-kernel" "$T/top/runner"
cp "$top/scripts/scenario-key.sh" "$T/top/scripts/"
cp -r "$top/scenarios" "$top/patches" "$T/top/"
cp -r "$top/runner/lua" "$T/top/runner/"
cp -r "$top/uml-kernel/variants" "$top/uml-kernel/generations" "$T/top/uml-kernel/"
ckey() { BUILD=$B "$T/top/scripts/scenario-key.sh" full; }
c0=$(ckey)
for f in scenarios/rounding.lua runner/lua/lua/umlbed/bed.lua uml-kernel/variants/full "patches/$g/series"; do
	echo "-- edited" >>"$T/top/$f"
	check "an edited $f changes it" [ "$(ckey)" != "$c0" ]
	c0=$(ckey)
done

# suite.t with make's report: REPORT_VERDICTS are its results' verdicts, KEY what make wrote.
suite() {
	local v r="" i=0
	# Each run's name is its own, as in a real report (merge refuses one run twice).
	for v in $1; do i=$((i + 1)); r+="${r:+,}{\"file\":\"scenarios/s.lua\",\"name\":\"scenario $i $v # hash\",\"verdict\":\"$v\",\"diag\":\"why $v\"}"; done
	printf '{"variant":"full","generation":"%s","results":[%s],"summary":{"ok":%s,"SKIP":%s}}\n' \
		"$g" "$r" "$(grep -ow ok <<<"$1" | wc -l)" "$(grep -ow SKIP <<<"$1" | wc -l)" >"$B/scenarios/$g.json"
	echo "$2" >"$B/scenarios/$g.key"
	UMLBED_BUILD=$B UMLBED_VARIANTS=full CI=${CI:-} bash "$top/tests/scenarios/suite.t" >"$T/out" 2>"$T/err"
}
suite "ok ok" "${k0}x"
check "a report of another key is not reused: the runner ran (the probe of the checks below)" grep -q 'the runner ran' "$T/out"
check "... and BUILD/scenarios/suite.log says so, with both keys" \
	grep -qx "full: ran the whole suite (key $k0; make's: ${k0}x)" "$B/scenarios/suite.log"
# suite.t's own TAP lines are what the checks of its results test: they are what prove counts.
check "... a runner that wrote no report is one failed result that says so" \
	eval 'grep -qx "not ok 1 - full: the runner wrote its report (exit 1)" "$T/out" && grep -qx "1\.\.1" "$T/out"'
suite "ok ok" "$k0"
check "a passed run of the same key is reused: no runner ran" not grep -q 'the runner ran' "$T/out"
check "... and suite.log says so" grep -qx "full: reused $B/scenarios/$g.json (key $k0)" "$B/scenarios/suite.log"
check "... each of its results is an ok line of a subtest printed again from make's report" \
	eval '[ "$(grep -c "^    ok \\([12]\\) - scenario \\1 ok \\\\# hash$" "$T/out")" = 2 ] &&
		grep -qxF "    # printed again from $B/scenarios/$g.json: 2 runs" "$T/out"'
check "... whose plan counts them" grep -qx '    1\.\.2' "$T/out"
check "... then one result for the variant, and the plan" \
	eval 'grep -qx "ok 1 - full: make.s passed run of the same key, reused (2 ok)" "$T/out" && grep -qx "1\.\.1" "$T/out"'
check "prove accepts the stream" eval 'prove -e cat "$T/out" >/dev/null 2>&1'
# A scenario that does not apply to the variant (its definition lacks what it needs) is a SKIP in make's run too:
# that run is still the same suite's, reused, and its SKIP line says so with its reason.
suite "ok SKIP" "$k0"
check "a report of ok and SKIP runs is reused: no runner ran" not grep -q 'the runner ran' "$T/out"
check "... its SKIP is a SKIP line with the run's reason" \
	grep -qx "    ok 2 - scenario 2 SKIP \\\\# hash # SKIP why SKIP" "$T/out"
check "... and prove accepts the stream" eval 'prove -e cat "$T/out" >/dev/null 2>&1'
suite "ok FAILED" "$k0"
check "a report with a failed run is not reused: the runner ran" grep -q 'the runner ran' "$T/out"
suite "" "$k0"
check "a report without results is not reused: the runner ran" grep -q 'the runner ran' "$T/out"

# A run's results come from the runner's report. standin EXIT VERDICT...: suite.t runs the stand-in, whose report
# plans two runs and has one result per VERDICT, and which exits EXIT.
standin() {
	local e=$1 v r=""
	shift
	for v in "$@"; do r+="${r:+,}{\"name\":\"run $v\",\"file\":\"f.lua\",\"verdict\":\"$v\",\"diag\":\"why $v\\n\"}"; done
	printf '{"variant":"full","planned":2,"results":[%s]}\n' "$r" >"$T/standin.json"
	echo "${k0}x" >"$B/scenarios/$g.key"
	STANDIN_REPORT=$T/standin.json STANDIN_EXIT=$e UMLBED_BUILD=$B UMLBED_VARIANTS=full CI=${CI:-} \
		bash "$top/tests/scenarios/suite.t" >"$T/out" 2>"$T/err"
}
standin 0 ok SKIP
check "every run ok or SKIP, exit 0: two ok results for the variant, which prove accepts" \
	eval '[ "$(grep -c "^ok [12] - full: " "$T/out")" = 2 ] && prove -e cat "$T/out" >/dev/null 2>&1'
standin 1 ok FAILED
check "a failed run: the variant's runs are not all ok or SKIP" \
	grep -qx "not ok 1 - full: every run ok or SKIP (1 FAILED, 1 ok)" "$T/out"
check "... the runner did report every run" \
	grep -qx "ok 2 - full: the runner reported every run it planned (2 of 2) and ended with them (exit 1)" "$T/out"
check "... stderr names the failed run and its diagnostics, for prove without -v" \
	eval 'grep -qx "# run FAILED: FAILED (f.lua)" "$T/err" && grep -qx "#   why FAILED" "$T/err"'
check "... and not the run that passed" not grep -q "run ok" "$T/err"
standin 130 ok "NOT RUN"
check "a run NOT RUN (a stopped runner): not every run it planned was reported" \
	grep -qx "not ok 2 - full: the runner reported every run it planned (1 of 2) and ended with them (exit 130)" "$T/out"
standin 0 ok
check "a report with fewer results than its plan: the same" \
	grep -qx "not ok 2 - full: the runner reported every run it planned (1 of 2) and ended with them (exit 0)" "$T/out"
standin 1 ok ok
check "exit 1 without a failed run: the runner did not end as it should" \
	grep -qx "not ok 2 - full: the runner reported every run it planned (2 of 2) and ended with them (exit 1)" "$T/out"
echo "1..$n"
