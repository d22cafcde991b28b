#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# points.t: the schedule points (/sys/kernel/umlbed_points/) on each generation's built kernels: every point and the interface, and the deterministic races on full and KASAN, the race scenarios on KASAN, and each broken race (broken-races) caught by its forced interleaving; the automatic points (/sys/kernel/umlbed_explore/) too.
#
# tests/kernel/explore.lua checks the automatic points' interface, the steps they count, that a change point changes
# the interleaving and that a schedule replays it, on the same kernels as points.lua.
# tests/kernel/points.lua parks a task at each point and checks what it has and has not done yet; races.lua forces
# three interleavings of an invalidation with a mapper's exit. The scenarios of RACE_SCENARIOS force or enumerate
# interleavings of their own; points.lua and races.lua must pass on full and on the KASAN variant, and those
# scenarios on KASAN (tests/scenarios/suite.t runs them on full); a KASAN or lockdep report is CRASHED. On a broken race of uml-kernel/broken/GEN/ the interleaving that kernel gets wrong
# must end CRASHED with its kernel report: KASAN's for the walks that use a freed VMA (broken-nolock,
# broken-stale-vma), lockdep's for UML's unlocked flush (broken-noflushfix). A kernel that is not built is a SKIP:
# a failure under strict mode for the kernels make check builds (generation.sh checked: full, and KASAN of the
# default generation), not for another generation's KASAN kernel (make check-slow; with UMLBED_POINTS_ALL_KASAN=1
# every KASAN kernel is a prerequisite) or a broken race.
# Its subject is the kernel's schedule points and races, not the runner: it drives the runner's build without sanitizers.
PLAIN_RUNNER=1
. "$(dirname "$0")/../runner/common.sh"
need_jq
AGENT=${UMLBED_AGENT:-$BUILD/guest/umlbed-agent}
[ -f "$AGENT" ] || prereq_skip_all "no guest agent at $AGENT (make guest)"
gen_sh=$SRC/uml-kernel/generation.sh
POINTS="schedule points: each point parks its task where it says"
EXPLORE="explore points: the interface, the steps, a change point, a replay"
RACES="forced races of an invalidation with an exit"

# The interleaving each broken race gets wrong, and the report that shows it.
declare -A race report
race[broken-nolock]=nolock
report[broken-nolock]='BUG: KASAN: [a-z-]*use-after-free'
race[broken-stale-vma]=stale
report[broken-stale-vma]='BUG: KASAN: [a-z-]*use-after-free in vma_interval_tree_iter_next'
race[broken-noflushfix]=flush
report[broken-noflushfix]='WARNING: suspicious RCU usage'

# has_variant V LIST...: V is one of LIST.
has_variant() {
  local v=$1 w
  shift
  for w in "$@"; do [ "$w" = "$v" ] && return 0; done
  return 1
}
# kernel VARIANT: prints the path of VARIANT's built kernel; fails when it is not built.
kernel() {
  local k=$BUILD/kernel/$1/obj/linux
  [ -x "$k" ] && echo "$k"
}
# crashed_with NAME ERE: the run named NAME is CRASHED, and its diagnostics hold a line matching ERE.
crashed_with() { verdict_is "$1" CRASHED && diag_re "$1" "$2"; }

# The scenarios whose interleavings are forced by schedule points, each with its count of runs (matrix entries).
declare -A RACE_SCENARIOS=([exit-race.lua]=4 [explore-exit.lua]=2 [explore-invalidators.lua]=2 [forced-races.lua]=9)

# correct GEN VARIANT [SCENARIOS]: the points and the three races pass on VARIANT, a correct kernel of GEN, and
# with a third argument RACE_SCENARIOS too. On full they are left to tests/scenarios/suite.t, which runs the whole
# scenario folder on each generation's full kernel: only KASAN's kernel is not booted by the suite.
correct() {
  local g=$1 v=$2 k sc
  if ! k=$(kernel "$v"); then
    # shellcheck disable=SC2046 # The list of variants is split into words.
    if has_variant "$v" $("$gen_sh" checked "$g") || [ -n "${UMLBED_POINTS_ALL_KASAN:-}" ]; then
      for _ in 1 2 3 ${3:+4}; do prereq_skip "$g: $v not built (uml-kernel/build.sh $v)"; done
    else
      # Not a kernel make check builds ("check" in uml-kernel/generations/): make check-slow builds it and runs
      # tests/kernel/kasan-all.t, this file with every generation's KASAN kernel a prerequisite.
      skip "$g: $v is not built (make check-slow builds it)" "$((${3:+1} + 3))"
    fi
    return
  fi
  run run --kernel "$k" --agent "$AGENT" "$SRC/tests/kernel/points.lua"
  check "$g: $v: every point parks its task where it says; the interface's errors" verdict_is "$POINTS" ok
  [ "$(verdict "$POINTS")" = ok ] || field "$POINTS" diag | head -40 | diag
  run run --kernel "$k" --agent "$AGENT" "$SRC/tests/kernel/explore.lua"
  check "$g: $v: the automatic points count steps, a change point preempts, a schedule replays; the interface's errors" \
    verdict_is "$EXPLORE" ok
  [ "$(verdict "$EXPLORE")" = ok ] || field "$EXPLORE" diag | head -40 | diag
  run run --kernel "$k" --agent "$AGENT" "$SRC/tests/kernel/races.lua"
  check "$g: $v: the three forced races pass" jtrue '.summary.ok == 3 and (.results | length) == 3'
  [ "$rc" = 0 ] || jq -r '.results[] | "\(.name): \(.verdict)\n\(.diag // "")"' "$J" | head -40 | diag
  [ -n "${3:-}" ] || return 0
  local want=0 files=()
  for sc in "${!RACE_SCENARIOS[@]}"; do
    files+=("$SRC/scenarios/$sc")
    want=$((want + RACE_SCENARIOS[$sc]))
  done
  run run --kernel "$k" --agent "$AGENT" "${files[@]}"
  check "$g: $v: the $want runs of the forced and explored races pass" \
    jtrue ".summary.ok == $want and (.results | length) == $want"
  [ "$rc" = 0 ] || jq -r '.results[] | select(.verdict != "ok") | "\(.name): \(.verdict)\n\(.diag // "")"' "$J" |
    head -40 | diag
}

for g in $("$gen_sh" list); do
  correct "$g" "full$("$gen_sh" get "$g" suffix)"
  correct "$g" "$("$gen_sh" get "$g" kasan)" scenarios
  for v in $("$gen_sh" get "$g" broken-races); do
    base=$("$gen_sh" base "$v")
    if [ -z "${race[$base]:-}" ]; then
      check "$g: $v: points.t knows which race it gets wrong" false
      continue
    fi
    name="$RACES [race=${race[$base]}]"
    if k=$(kernel "$v"); then
      run run --kernel "$k" --agent "$AGENT" --param race="${race[$base]}" "$SRC/tests/kernel/races.lua"
      check "$g: $v: the ${race[$base]} race is CRASHED with '${report[$base]}'" \
        crashed_with "$name" "${report[$base]}"
    else
      # The broken races are built on demand only (make broken): not a prerequisite.
      skip "$g: $v is not built (uml-kernel/build.sh $v)"
    fi
  done
done
echo "1..$n"
