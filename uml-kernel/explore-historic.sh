#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Re-finds the real faults of uml-kernel/historic/ and the race broken variants with the explorer alone (no hand-placed schedule point, no scenario written for the fault): explore-historic.sh [--seconds S] [--runs N] [--only VARIANT]... [GEN...].
#
# For each generation (default: every one), each variant its "historic" and "broken-races" keys name is built and
# explored by `umlbed explore` (scenarios/explore.lua: generated cases, the kernel's automatic points, PCT and
# bounded preemption, the sequential orders as the oracle) from seed 1 for at most S seconds (default 600),
# directed toward the functions whose source the variant changes (uml-kernel/changed-functions.sh: where the change
# is, as a reviewer's campaign is told, never where its race is or which operations meet there), its probes run on
# the fixed kernel (--probe-variant full: a change may remove the very point that shows a case passes it). Each
# variant is one TAP result: found within the budget, with the time to find it, its case, its schedule, and its
# replay command, which then runs N times (default 10) and must find it every time, and once on the fixed kernel
# (full), where it must find nothing. Last, per generation, the same campaign on the fixed kernel, directed toward
# every change of the variants, for the longest budget a fault needed (at least 60 s) must find nothing.
# The verdicts are read from the runner's JSON report (its notes "explore-found ..." and "explore-replay ...").
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
UMLBED=${UMLBED:-$BUILD/runner/umlbed}
gen_sh=$top/uml-kernel/generation.sh
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
seconds=600
runs=10
only=()
usage="usage: explore-historic.sh [--seconds S] [--runs N] [--only VARIANT]... [GEN...]"
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=${2:?$usage}; shift 2 ;;
	--runs) runs=${2:?$usage}; shift 2 ;;
	--only) only+=("${2:?$usage}"); shift 2 ;;
	-h | --help) sed -n '2,/^set -uo/{/^set /d;/^# SPDX/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) break ;;
	esac
done
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "explore-historic.sh: --seconds wants a positive count" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "explore-historic.sh: --runs wants a positive count" >&2; exit 2; }
gens=("$@")
[ ${#gens[@]} -gt 0 ] || mapfile -t gens < <("$gen_sh" list)
command -v jq >/dev/null || { echo "explore-historic.sh: jq is missing (Debian package jq)" >&2; exit 2; }
[ -x "$UMLBED" ] || { echo "explore-historic.sh: no runner $UMLBED (make runner)" >&2; exit 2; }

# Findings are failed runs, whose folders are kept: they go to a private folder that goes away.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-explore-historic.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM

# notes PREFIX: the notes of the last report that start with PREFIX ("explore-found", "explore-try vm=3 "), in order.
notes() {
	jq -r --arg p "note: $1" '.results[].diag // "" | split("\n")[] | select(startswith($p))' "$scratch/r.json" \
		2>/dev/null
}

# find_it VARIANT: whether the last report is a finding, and then its kind, time (secs), replay command and text.
# A finding the explorer reported names all of them (the note "explore-found KIND seconds=S replay=..."). A schedule
# that brought the kernel down ended the run CRASHED before the explorer could report: its replay is the last
# try (RUN/explore-tries) of the instance the report names, its interleaving the kernel's panic dump of the last steps.
find_it() {
	local found verdict vm try dir last what
	found=$(notes explore-found | head -n 1)
	if [ -n "$found" ]; then
		kind=$(printf '%s\n' "$found" | awk '{print $3}')
		secs=$(printf '%s\n' "$found" | sed -n 's/.* seconds=\([0-9]*\).*/\1/p')
		replay=$(printf '%s\n' "$found" | sed -n 's/.* replay=//p')
		text=$(jq -r '.results[] | select(.verdict != "ok") | .diag // ""' "$scratch/r.json")
		return 0
	fi
	verdict=$(jq -r '.results[0].verdict // "none"' "$scratch/r.json" 2>/dev/null)
	[ "$verdict" = CRASHED ] || return 1
	vm=$(jq -r '.results[0].diag // ""' "$scratch/r.json" | sed -n 's/^vm\([0-9]*\): .*/\1/p' | head -n 1)
	dir=$(jq -r '.results[0].kept // ""' "$scratch/r.json")
	try=$(grep "^vm=$vm " "$dir/explore-tries" 2>/dev/null | tail -n 1)
	[ -n "$vm" ] && [ -n "$try" ] || return 1
	kind=crash
	secs=$(jq -r '.results[0].seconds | floor' "$scratch/r.json")
	# The run that was going when the kernel reported: the last one the guest program named in the kernel's log
	# before the console line the runner's report names. A report that does not stop the kernel (KASAN) lets the
	# batch run on, so the last name of all may be a later run's.
	at=$(jq -r '.results[0].diag // ""' "$scratch/r.json" | sed -n 's/.* at console line \([0-9]*\)).*/\1/p' | head -n 1)
	last=$(head -n "${at:-999999999}" "$dir/vm$vm/console.log" 2>/dev/null | grep 'umlbed-explore: run -' |
		tail -n 1 | sed 's/.*umlbed-explore: run -\([so]\) \([^ ]*\).*/\1 \2/')
	what=$(printf '%s\n' "$try" | sed -n 's/^vm=[0-9]* seed=\([0-9]*\) case=\([0-9]*\) .*/--seed \1 --case \2/p')
	# The console is the guest's to write: only a schedule's characters go on to the replay's command line.
	[[ $last =~ ^[so]\ [0-9,/:.-]+$ ]] || last=''
	case $last in
	s\ *) replay="umlbed explore --variant $1 $what --schedule ${last#s }" ;;
	*) replay="umlbed explore --variant $1 $what --schedule -" ;;
	esac
	text=$(jq -r '.results[0].diag // ""' "$scratch/r.json" | head -n 60
		[ -n "$dir" ] && grep -h 'umlbed_explore: ' "$dir/vm$vm/console.log" 2>/dev/null | sed 's/^.*umlbed_explore: /  /')
	return 0
}

# explore ARGS...: one umlbed explore into $scratch/r.json; its output in $scratch/out.
explore() {
	rm -f "$scratch/r.json"
	TMPDIR=$scratch "$UMLBED" explore --json "$scratch/r.json" "$@" >"$scratch/out" 2>&1
}

status=0
longest=60
all_toward=
kind='' secs='' replay='' text=''
echo "TAP version 13"
for g in "${gens[@]}"; do
	suffix=$("$gen_sh" get "$g" suffix) || exit 2
	targets=$("$gen_sh" get "$g" historic; "$gen_sh" get "$g" broken-races) || exit 2
	# The fixed kernel, for the replays on it and the last campaign.
	if ! "$top/uml-kernel/build.sh" "full$suffix" >"$scratch/build.log" 2>&1; then
		tail -n 20 "$scratch/build.log" | diag
		ok 1 "$g full$suffix: the kernel builds"
		status=1
		continue
	fi
	for v in $targets; do
		[ ${#only[@]} -eq 0 ] || [[ " ${only[*]} " == *" $v "* ]] || continue
		if ! "$top/uml-kernel/build.sh" "$v" >"$scratch/build.log" 2>&1; then
			tail -n 20 "$scratch/build.log" | diag
			ok 1 "$g $v: the kernel builds"
			status=1
			continue
		fi
		toward=$("$top/uml-kernel/changed-functions.sh" "$v" "full$suffix" | paste -sd, -) || toward=''
		all_toward+=${toward:+,$toward}
		echo "# $g $v: toward ${toward:-nothing (the change is in no function): undirected}"
		explore --variant "$v" --probe-variant "full$suffix" --seconds "$seconds" ${toward:+--toward "$toward"}
		if ! find_it "$v"; then
			tail -n 30 "$scratch/out" | diag
			ok 1 "$g $v: the explorer finds it within $seconds s"
			status=1
			continue
		fi
		longest=$((secs + 1 > longest ? secs + 1 : longest))
		# The whole finding, interleaving included, as TAP comments.
		printf '%s\n' "$text" | head -n 300 | diag
		ok 0 "$g $v: found by the explorer in $secs s ($kind)"
		echo "# replay: $replay"
		# The replay, N times, each in fresh guests and the same schedule: each must find it again.
		again=0
		for ((i = 1; i <= runs; i++)); do
			# shellcheck disable=SC2086 # the replay command is words the explorer printed, none with a blank
			explore ${replay#umlbed explore }
			find_it "$v" && again=$((again + 1))
		done
		[ "$again" = "$runs" ] || { tail -n 30 "$scratch/out" | diag; status=1; }
		check "$g $v: its replay finds it in $runs of $runs runs (got $again)" [ "$again" = "$runs" ]
		# The same case and schedule on the fixed kernel: a finding there is the explorer's, not the fault's.
		# shellcheck disable=SC2086 # as above
		explore ${replay#umlbed explore } --variant "full$suffix"
		if find_it "full$suffix"; then
			printf '%s\n' "$text" | head -n 40 | diag
			ok 1 "$g $v: its replay on full$suffix finds nothing"
			status=1
		else
			ok 0 "$g $v: its replay on full$suffix finds nothing"
		fi
	done
	[ ${#only[@]} -eq 0 ] || continue
	# The same campaign on the fixed kernel finds nothing (no false report).
	all_toward=$(printf '%s\n' "${all_toward#,}" | tr , '\n' | sort -u | paste -sd, -)
	explore --variant "full$suffix" --seconds "$longest" ${all_toward:+--toward "$all_toward"}
	verdict=$(jq -r '.results[0].verdict // "none"' "$scratch/r.json" 2>/dev/null)
	[ "$verdict" = ok ] || { jq -r '.results[].diag // ""' "$scratch/r.json" 2>/dev/null | head -n 100 | diag; status=1; }
	check "$g full$suffix: the same campaign for $longest s finds nothing (got $verdict)" [ "$verdict" = ok ]
done
echo "1..$n"
exit $status
