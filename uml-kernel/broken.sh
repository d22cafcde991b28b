#!/usr/bin/env bash
# Runs the scenario suite against each deliberately broken kernel and fails unless some scenario catches each: broken.sh [VARIANT...].
# BROKEN_SCENARIOS='FILE|DIR...' runs those instead of scenarios/ (make check's smoke runs one file).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
variants=("$@")
read -ra scenarios <<<"${BROKEN_SCENARIOS:-$top/scenarios}"
gen_sh=$top/uml-kernel/generation.sh
# By default the default generation's broken variants and broken races (its keys "broken" and "broken-races",
# uml-kernel/generations/; make broken GEN=... names another's).
if [ ${#variants[@]} = 0 ]; then
	g=$("$gen_sh" default)
	read -ra variants <<<"$("$gen_sh" get "$g" broken) $("$gen_sh" get "$g" broken-races)"
fi
# is_broken_race VARIANT: VARIANT is one of its generation's broken races (the "broken-races" key).
is_broken_race() {
	local v
	for v in $("$gen_sh" get "$("$gen_sh" of "$1")" broken-races); do
		[ "$v" = "$1" ] && return 0
	done
	return 1
}
command -v jq >/dev/null || { echo "broken.sh: no jq to read the runner's report (Debian package jq)" >&2; exit 2; }
# Failed runs keep their folders; here failures are the point, so keep them in a private folder that goes away.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-broken.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
export TMPDIR=$scratch
status=0
for v in "${variants[@]}"; do
	"$top/uml-kernel/build.sh" "$v" >/dev/null || exit 2
	make -s -C "$top/uml-kernel/modules" VARIANT="$v" >/dev/null 2>&1 || true
	# The verdicts and names come from the runner's JSON report; its TAP is for people.
	report=$scratch/$v.json
	"$BUILD/runner/umlbed" run -j "$(nproc)" --kernel "$BUILD/kernel/$v/obj/linux" --json "$report" \
		"${scenarios[@]}" >/dev/null 2>&1
	rc=$?
	if ! jq -e '(.results | type) == "array"' "$report" >/dev/null 2>&1; then
		echo "$v: NOT CAUGHT: the runner wrote no report (exit $rc)"
		status=1
		continue
	fi
	# Caught means an expectation failed (FAILED): a crash, a timeout or an error of the set-up says nothing about
	# whether the suite can tell this kernel is wrong, so those are listed apart and do not count. A broken race is the
	# exception: its bug is a use of freed memory or an unlocked flush, which the forced races turn into a kernel
	# report (KASAN, lockdep, RCU), and the runner calls a run with a report CRASHED.
	verdicts='FAILED'
	is_broken_race "$v" && verdicts='FAILED|CRASHED'
	caught=$(jq -r --arg c "$verdicts" '($c | split("|")) as $caught | .results[] | select(.verdict | IN($caught[])) |
		.name' "$report")
	other=$(jq -r --arg c "$verdicts" '($c | split("|")) as $caught | .results[] |
		select(.verdict != "ok" and .verdict != "SKIP" and (.verdict | IN($caught[]) | not)) |
		"\(.name) # \(.verdict)"' "$report")
	if [ -n "$caught" ]; then
		echo "$v: caught by $(echo "$caught" | wc -l) scenario runs ($verdicts):"
		awk '{ print "    " $0 }' <<<"$caught"
	else
		echo "$v: NOT CAUGHT: no scenario run $verdicts"
		status=1
	fi
	if [ -n "$other" ]; then
		echo "$v: $(echo "$other" | wc -l) other non-ok runs (not counted):"
		awk '{ print "    " $0 }' <<<"$other"
	fi
done
exit $status
