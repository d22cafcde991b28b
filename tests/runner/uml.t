#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# uml.t: integration tests on the patched UML kernel: scenarios, CRASHED/TIMEOUT/ERROR verdicts, SIGINT cleanup, --gdb.
. "$(dirname "$0")/common.sh"
need_uml
need_jq
# Three example scenarios, one per kind of check (refault, private COW, trigger errors); `make check` runs them all.
EXAMPLES=("$SRC/scenarios/shared-refault.lua" "$SRC/scenarios/private-cow.lua" "$SRC/scenarios/trigger-einval.lua")

run run "${K[@]}" -j 2 --json "$T/j2.json" "${EXAMPLES[@]}"
check "example scenarios pass on the patched kernel (-j 2)" [ "$rc" = 0 ]
# The inner prove's own report stays out of this file's TAP; the runs' TAP is shown when either check fails.
check "example scenarios: TAP that prove accepts" eval 'prove -e cat "$T/out" >"$T/prove" 2>&1'
j2=$secs
{ [ "$rc" = 0 ] && prove -e cat "$T/out" >/dev/null 2>&1; } || { diag "$T/out"; diag "$T/prove"; }
run run "${K[@]}" -j 1 --json "$T/j1.json" "${EXAMPLES[@]}"
check "example scenarios pass with -j 1" [ "$rc" = 0 ]
j1=$secs
echo "# wall time for the example scenarios: -j 1 ${j1}s, -j 2 ${j2}s, ratio -j2/-j1 $(awk -v a="$j2" -v b="$j1" 'BEGIN { printf "%.2f", a / b }')"
perl -MJSON::PP -MList::Util=min,max -e '
  local $/; open my $f, "<", $ARGV[0] or die; my $r = JSON::PP->new->decode(<$f>)->{results};
  my @b = sort { $a <=> $b } map { @{$_->{boot_ms}} } @$r;
  my $med = @b % 2 ? $b[$#b / 2] : ($b[@b / 2 - 1] + $b[@b / 2]) / 2;
  printf "# boot-to-agent-ready median %.0f ms over %d boots (min %.0f, max %.0f)\n", $med, scalar @b, min(@b), max(@b);
  printf "# %6.3f s  %s\n", $_->{seconds}, $_->{name} for @$r;' "$T/j1.json"
check "no run folder left after passing runs" [ "$(leftover_dirs)" = 0 ]

run run "${K[@]}" "$SCEN/uml-two-nodes.lua"
check "two vms on one shared folder (cluster nodes)" verdict_is "two nodes on one shared folder" ok

# t:go on UML: a worker's loop in a task while PID 1 invalidates; vm.kernel and vm.variant.
EXPECT_KERNEL=$(realpath "$KERNEL") EXPECT_VARIANT=$(echo "$KERNEL" | sed -n 's|.*/kernel/\([^/]*\)/obj/linux$|\1|p') \
  run run "${K[@]}" "$SCEN/uml-go.lua"
check "t:go on UML: a sharer's loop runs while PID 1 invalidates" verdict_is "t:go: a sharer loops while PID 1 invalidates" ok
[ "$rc" = 0 ] || diag "$T/out"
rm -rf "$TMPDIR"/umlbed-*

# Lockdep must still be on after forks: the force_flush_all() RCU splat that turned it off is fixed.
run run "${K[@]}" "$SCEN/uml-lockdep.lua"
LD="lockdep stays on after fork and invalidation"
if [ "$(verdict "$LD")" = SKIP ]; then
  # A kernel built without lockdep (DEBUG=0, or another UMLBED_KERNEL) has nothing to check: the scenario's SKIP.
  skip "lockdep: $(field "$LD" diag | head -n 1)"
else
  check "lockdep stays on after fork and invalidation (debug_locks 1, no report)" verdict_is "$LD" ok
fi
[ "$rc" = 0 ] || diag "$T/out"
rm -rf "$TMPDIR"/umlbed-*

# umlbed fuzz on UML: two seeds of the model-based fuzzer, two at once.
# fuzz has no timeout unless given: a generous one keeps a hung run from hanging the test.
run fuzz "${K[@]}" --timeout "$(scaled 300)" --seed 3 --steps 20 --runs 2 -j 2 "$SRC/scenarios/model-fuzz.lua"
check "umlbed fuzz on UML: seeds 3 and 4, 20 steps each, both ok (exit $rc)" \
  jtrue '[.results[] | select(.verdict == "ok") | .name | capture("\\[seed=(?<s>[0-9]+), steps=20\\]$").s] | sort == ["3", "4"]'
[ "$rc" = 0 ] || diag "$T/out"
rm -rf "$TMPDIR"/umlbed-*

run run "${K[@]}" "$SCEN/uml-panic.lua"
P="guest panic is CRASHED"
check "guest panic: CRASHED" verdict_is "$P" CRASHED
# The excerpt is the console's text: the panic's line is what it must show.
check "guest panic: log excerpt with the panic" diag_has "$P" 'Kernel panic - not syncing: sysrq triggered crash'
# "went on after the panic" is the scenario's own failure, written only if it went on.
check "guest panic: the scenario did not go on" not diag_has "$P" 'went on after the panic'
check "guest panic: run folder kept and named" test -f "$(field "$P" kept)/vm0/console.log"
rm -rf "$TMPDIR"/umlbed-*

# The verdict comes from the runner's timer (the text says so); the time taken is only bounded by a hang guard.
run run "${K[@]}" --timeout 3 "$SCEN/uml-hang.lua"
check "hung guest: TIMEOUT" verdict_is "hung guest is TIMEOUT" TIMEOUT
# The TIMEOUT's text says which timer fired: that text is what is tested.
check "hung guest: the 3 s timer fired" diag_has "hung guest is TIMEOUT" 'no verdict after 3.0 s'
check "hung guest: not before the limit, no hang past it (${secs}s for 3s)" within "$secs" 3 "$((3 + $(scaled 60)))"
rm -rf "$TMPDIR"/umlbed-*

# vm:install and run's options (cwd, env, uid, timeout), with tests/agent's test program.
if [ -x "$BUILD/tests/agent/testprog" ]; then
  mkdir -p "$T/victim"
  UMLBED_TESTPROG=$BUILD/tests/agent/testprog UMLBED_INSTALL_VICTIM=$T/victim run run "${K[@]}" "$SCEN/uml-install.lua"
  check "vm:install, vm:run and proc:run with cwd, env, uid and timeout" verdict_is "install and run with options" ok
  check "vm:install follows no symbolic link the guest made: the host folder stays empty" [ -z "$(ls -A "$T/victim")" ]
  [ "$rc" = 0 ] || diag "$T/out"
else
  prereq_skip "no tests/agent testprog (make -C tests/agent)"
fi
rm -rf "$TMPDIR"/umlbed-*
# vm:run's timeout with a child that left the program's process group (setsid) and holds its output.
if [ -x "$BUILD/tests/agent/testprog" ]; then
  UMLBED_TESTPROG=$BUILD/tests/agent/testprog run run "${K[@]}" --timeout "$(scaled 120)" "$SCEN/uml-run-escape.lua"
  check "vm:run: the timeout bounds a run whose child left the process group" \
    verdict_is "run: the timeout bounds a program with an escaped child" ok
  [ "$rc" = 0 ] || diag "$T/out"
else
  prereq_skip "no tests/agent testprog (make -C tests/agent)"
fi
rm -rf "$TMPDIR"/umlbed-*

# What is not a regular file (a FIFO or a folder the guest put in a shared file's place, a host FIFO, folder or 2 GiB
# file given to vm:install) is refused at once, not waited on: bounded by the guard, the verdict says so.
mkdir -p "$T/notreg"
mkfifo "$T/notreg/fifo"
truncate -s 2G "$T/notreg/big"
UMLBED_NOT_REGULAR=$T/notreg run run "${K[@]}" --timeout "$(scaled 120)" "$SCEN/uml-not-regular.lua"
check "host file I/O refuses a FIFO, a folder and an oversized install, naming why" \
  verdict_is "host file I/O refuses what is not a regular file" ok
[ "$rc" = 0 ] || diag "$T/out"
rm -rf "$TMPDIR"/umlbed-* "$T/notreg"

# vm:shell: Debian's busybox-static as /bin/sh with its applets; a dynamic or missing busybox is refused by name.
run run "${K[@]}" "$SCEN/uml-shell.lua"
check "vm:shell: scripts, pipes, env, cwd and uid with the staged busybox" verdict_is "a staged shell runs scripts" ok
[ "$rc" = 0 ] || diag "$T/out"
rm -rf "$TMPDIR"/umlbed-*

run run "${K[@]}" "$SCEN/uml-invalidate-path.lua"
check "vm:invalidate by path needs a length (no silent zero length)" verdict_is "invalidate by path needs a length" ok
rm -rf "$TMPDIR"/umlbed-*

run run "${K[@]}" "$SCEN/uml-failwrite.lua"
check "proc:failwrite refuses bad arguments, and fails before writing without fail-nth" \
  verdict_is "failwrite: arguments, and a write with or without fail-nth" ok
[ "$rc" = 0 ] || diag "$T/out"
rm -rf "$TMPDIR"/umlbed-*

run run "${K[@]}" "$SCEN/uml-error.lua"
check "Lua error: ERROR" verdict_is "Lua error is ERROR" ERROR
# The error's file:line and message are what a reader needs: that text is what is tested.
check "Lua error: file:line" diag_has "Lua error is ERROR" \
  "uml-error.lua:$(line_of "$SCEN/uml-error.lua" 'error("deliberate'): deliberate error in the scenario"
rm -rf "$TMPDIR"/umlbed-*

# SIGINT once the guest runs its busy loop: no UML process and no folder may be left. The runner's own timeout
# is only a hang guard, longer than sigint_cleanup's wait for the loop to start.
sigint_cleanup UML "${K[@]}" --timeout "$(scaled 300)" "$SCEN/uml-hang.lua"
# Killed or hung up while the guest loops: nothing may outlive the runner, however it ends.
signal_cleanup KILL UML "${K[@]}" --timeout "$(scaled 300)" "$SCEN/uml-hang.lua"
signal_cleanup HUP UML "${K[@]}" --timeout "$(scaled 300)" "$SCEN/uml-hang.lua"
# SIGKILL during boots: no ready event to wait for, so the kill lands wherever the boots are, as soon as a UML
# process is seen; the reaper ends what the runner registered and whatever runs inside its run folders. The runs
# are two hung guests, which never end by themselves: on a loaded host, two short scenarios could end before the
# kill, leaving nothing to see.
env -u UMLBED_READY_FIFO "$UMLBED" run "${K[@]}" -j 2 --timeout "$(scaled 300)" --param copy=1 --param copy=2 \
  "$SCEN/uml-hang.lua" >/dev/null 2>&1 &
pid=$!
SAW_BOOT=1
until { saw "umid=umlbed-$pid-" && SAW_BOOT=0; } || ! kill -0 $pid 2>/dev/null; do :; done
# The loop also ends when the runner does: the checks after the kill say something only if a UML was there.
check "SIGKILL during boot: a UML process was running" [ "$SAW_BOOT" = 0 ]
check "SIGKILL during boot: its run folder was there" run_folder $pid
# A run folder whose registration never reached the reaper (the runner killed between a run process making it and
# the runner passing its line on) is named after the runner: the reaper finds it by that name.
mkdir "$TMPDIR/umlbed-$pid-unregistered"
check "SIGKILL during boot: a run folder the reaper was not told of is there (the probe)" \
  [ -d "$TMPDIR/umlbed-$pid-unregistered" ]
reaper=$(child_of $pid "$UMLBED run")
# In braces with its wait: bash's notice of the killed job goes nowhere.
{
  kill -KILL $pid
  wait $pid
} 2>/dev/null
[ -n "$reaper" ] && timeout "$(scaled 30)" tail --pid="$reaper" -f /dev/null
check "SIGKILL during boot: no UML process left" none_left "umid=umlbed-$pid-"
check "SIGKILL during boot: no run folder left, the one it was not told of either" [ "$(leftover_dirs)" = 0 ]

if command -v gdb >/dev/null; then
  # gdb reads the kernel's DWARF (tens of MB) before UML boots: a generous timeout, as a hang guard only.
  run run "${K[@]}" --gdb --batch --timeout "$(scaled 120)" --break __invalidate_mmap_range --break invalidate_mmap_range "$SCEN/uml-invalidate.lua"
  check "--gdb batch: scenario ok under gdb" verdict_is "one invalidate_mmap_range call" ok
  # gdb's own output, which the runner passes on to its standard error, is the probe of where the kernel stopped.
  check "--gdb batch: stopped at the invalidate_mmap_range breakpoint" grep -q 'Breakpoint [0-9]*, __invalidate_mmap_range' "$T/err"
  check "--gdb batch: backtrace through the sysfs trigger" grep -q 'trigger_store' "$T/err"
  KO=$(dirname "$(dirname "$KERNEL")")/modules/umlbed_gpl.ko
  if [ -f "$KO" ]; then
    UMLBED_GPL_KO=$KO run run "${K[@]}" --gdb --batch --timeout "$(scaled 120)" --break invalidate_mmap_range "$SCEN/uml-module.lua"
    check "--gdb batch: scenario loading the GPL module ok under gdb" verdict_is "GPL module calls invalidate_mmap_range" ok
    check "--gdb batch: stopped at the exported invalidate_mmap_range" grep -q 'Breakpoint 1, invalidate_mmap_range (' "$T/err"
  else
    prereq_skip "--gdb batch: the GPL module: no $KO (make modules)"
  fi
  # On a terminal gdb is interactive: script(1) gives the runner one, and a "continue" typed at the stop's prompt
  # lets the run go on to its own verdict. The timeout is only a hang guard: an interactive run has none.
  if command -v script >/dev/null; then
    rm -f "$T/tty.json"
    printf 'continue\n' | TERM=dumb timeout "$(scaled 120)" script -qec "$(printf '%q ' "$UMLBED" run "${K[@]}" --gdb \
      --json "$T/tty.json" --break __invalidate_mmap_range "$SCEN/uml-invalidate.lua")" /dev/null >"$T/tty" 2>&1
    # What gdb printed at the stop is the probe that the run was interactive and stopped there.
    check "--gdb on a terminal: stopped at the breakpoint, and took the command typed at its prompt" \
      eval 'tr -d "\r" <"$T/tty" | grep -q "^Breakpoint 1, __invalidate_mmap_range" &&
        tr -d "\r" <"$T/tty" | grep -q "^(gdb) continue"'
    J=$T/tty.json
    verdict_is "one invalidate_mmap_range call" ok
    ok $? "--gdb on a terminal: the continued run ends with its own verdict, ok # TODO the run process waits for the \
killed kernel, which it leaves a zombie, and is ended after 5 s (TIMEOUT)"
    rm -rf "$TMPDIR"/umlbed-*
  else
    prereq_skip "--gdb on a terminal: no script(1) (Debian package bsdutils)"
  fi
  check "--gdb: no gdb or UML left" none_left "cwd:$TMPDIR/umlbed-"
else
  prereq_skip "no gdb (Debian package gdb)"
fi
# Lines of 4 KiB and more used to leave the UML serial line deaf (fixed in uml-kernel/fixes/).
run run "${K[@]}" --timeout "$(scaled 120)" "$SCEN/uml-big-line.lua"
check "requests and replies of several KiB (up to 100 KB) get through the serial line" [ "$rc" = 0 ]
[ "$rc" = 0 ] || diag "$T/out"
# Lines past ~640 KiB (the tty flip buffer limit) used to lose bytes (line-throttle fix v2).
run run "${K[@]}" --timeout "$(scaled 120)" "$SCEN/uml-huge-line.lua"
check "requests of 1 MB and almost 4 MiB, replies of 1 MiB arrive unchanged" [ "$rc" = 0 ]
[ "$rc" = 0 ] || diag "$T/out"
rm -rf "$TMPDIR"/umlbed-*
rm -rf "$TMPDIR"/umlbed-*

# The generation: --generation GEN picks the built kernel whose variant.info (written by uml-kernel/build.sh) says
# GEN and the variant's base name (full, or --variant); the reports name the generation the kernel itself reports.
# A build of its own here: a copy of the runner and two kernel folders whose variant.info say two generations.
mkdir -p "$T/g/runner" "$T/g/guest" "$T/g/kernel/one/obj" "$T/g/kernel/two-x/obj"
cp "$UMLBED" "$T/g/runner/umlbed"
cp "$AGENT" "$T/g/guest/umlbed-agent"
ln -s "$KERNEL" "$T/g/kernel/one/obj/linux"
ln -s "$KERNEL" "$T/g/kernel/two-x/obj/linux"
printf 'generation 7.1\nbase full\n' >"$T/g/kernel/one/variant.info"
printf 'generation 7.2\nbase full\n' >"$T/g/kernel/two-x/variant.info"
release_gen=$("$KERNEL" --version | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
for gen in 7.1 7.2; do
  dir=one
  [ "$gen" = 7.2 ] && dir=two-x
  rm -f "$T/gen.json"
  "$T/g/runner/umlbed" run --generation "$gen" --json "$T/gen.json" --junit "$T/gen.xml" \
    "$SRC/scenarios/zero-length.lua" >"$T/out" 2>"$T/err"
  rc=$?
  J=$T/gen.json
  check "--generation $gen: the suite runs on the kernel whose variant.info says $gen" [ "$rc" = 0 ]
  check "--generation $gen: ... which is $dir (the report names it)" \
    jtrue --arg d "$dir" '.variant == $d'
  check "--generation $gen: the JSON names the kernel's own generation ($release_gen)" \
    jtrue --arg g "$release_gen" '.generation == $g and (.release | startswith($g + "."))'
  check "--generation $gen: ... and so do the JUnit properties" grep -q "<property name=\"generation\" value=\"$release_gen\"/>" "$T/gen.xml"
  [ "$rc" = 0 ] || { diag "$T/out"; diag "$T/err"; }
done
"$T/g/runner/umlbed" run --generation 5.10 "$SRC/scenarios/zero-length.lua" >"$T/out" 2>"$T/err"
rc=$?
check "--generation 5.10: a usage error (exit 2, got $rc)" [ "$rc" = 2 ]
# Usage errors: the message is what the user gets, so its text is what is tested.
check "--generation 5.10: says which generations are built" grep -q 'built: 7\.[12], 7\.[12])$' "$T/err"
"$T/g/runner/umlbed" run --generation 7.2 --variant gpl-only "$SRC/scenarios/zero-length.lua" >"$T/out" 2>"$T/err"
check "--generation 7.2 --variant gpl-only: none built: says so, naming the variant" \
  grep -q 'no built kernel of variant gpl-only in that generation' "$T/err"
rm -rf "$TMPDIR"/umlbed-*

# The probe kernel: --probe-variant names a second variant of the build (of the run's generation), which
# t:vm{probe = true} boots beside the run's own; without it, such a boot runs the run's kernel. A copy of the kernel,
# so that its path is another one.
mkdir -p "$T/g/kernel/base/obj"
cp "$KERNEL" "$T/g/kernel/base/obj/linux"
printf 'generation 7.1\nbase base\n' >"$T/g/kernel/base/variant.info"
probe_run() {
  EXPECT_KERNEL=$1 EXPECT_PROBE=$2 EXPECT_VARIANT=$3 "$T/g/runner/umlbed" run --json "$T/probe.json" "${@:4}" \
    "$SCEN/uml-probe.lua" >"$T/out" 2>"$T/err"
  rc=$?
  J=$T/probe.json
}
one=$(realpath "$KERNEL") base=$(realpath "$T/g/kernel/base/obj/linux")
probe_run "$one" "$base" one --variant one --probe-variant base
check "--probe-variant base: t:vm{probe = true} boots it beside the run's kernel" verdict_is "a probe kernel beside the run's" ok
[ "$rc" = 0 ] || { diag "$T/out"; diag "$T/err"; }
probe_run "$one" "$base" one --generation 7.1 --probe-variant base
check "--generation 7.1 --probe-variant base: the same, by generation" verdict_is "a probe kernel beside the run's" ok
[ "$rc" = 0 ] || { diag "$T/out"; diag "$T/err"; }
probe_run "$one" "$one" one --variant one
check "no --probe-variant: t:vm{probe = true} boots the run's own kernel" verdict_is "a probe kernel beside the run's" ok
[ "$rc" = 0 ] || { diag "$T/out"; diag "$T/err"; }
for bad in ../one nosuch; do
  "$T/g/runner/umlbed" run --variant one --probe-variant "$bad" "$SCEN/uml-probe.lua" >"$T/out" 2>"$T/err"
  rc=$?
  check "--probe-variant $bad: a usage error naming it (exit $rc)" \
    eval '[ "$rc" = 2 ] && grep -q "probe" "$T/err"'
done
rm -rf "$TMPDIR"/umlbed-*

# The delay-loop calibration: learnt from the first boot into the cache, then passed as lpj= (the kernel says it
# skipped calibrating); a time-travel boot teaches nothing, and a command line with its own lpj= is left alone.
printf '%s\n' 'return { name = "boot", run = function(t) assert(t:vm()) end }' >"$T/boot.lua"
export UMLBED_LPJ_CACHE="$T/lpj.cache"
run run --time-travel "$T/boot.lua"
# The same file keeps the kernel's release under its own key (":release:"); the calibration's lines are the others.
lpj_lines() { grep -v ':release:' "$T/lpj.cache" 2>/dev/null; }
check "lpj: a time-travel boot teaches nothing" not lpj_lines
run run "$T/boot.lua"
check "lpj: the first boot's calibration is cached" eval 'lpj_lines | grep -qE ":[^ ]+ [1-9][0-9]*$"'
run run --keep "$T/boot.lua"
kept=$(field boot kept)
check "lpj: the next boot skips calibrating" grep -q 'Calibrating delay loop (skipped) preset value' "$kept/vm0/console.log"
check "lpj: ... with the cached value" grep -q "lpj=$(lpj_lines | awk '{ print $NF }')" "$kept/vm0/console.log"
# The guest's memory is its mem= (64M: 65536K) and no more, on every boot: UML adds the gap between its image and a
# randomised heap to it, which the wall turns off. The kernel's own "Memory:" line says the total.
mem_total() { sed -n 's|^\[ *[0-9.]*\] Memory: [0-9]*K/\([0-9]*\)K available.*|\1|p' "$1/vm0/console.log"; }
m1=$(mem_total "$kept")
[ -n "$kept" ] && rm -rf "$kept"
run run --keep --cmdline lpj=0 "$T/boot.lua"
kept=$(field boot kept)
check "lpj: a command line with lpj= of its own calibrates" grep -q 'Calibrating delay loop\.\.\.' "$kept/vm0/console.log"
m2=$(mem_total "$kept")
check "guest memory: the kernel's total is mem=, 65536K (got ${m1:-no Memory: line})" [ "$m1" = 65536 ]
check "guest memory: ... on the next boot too (got ${m2:-no Memory: line})" [ "$m2" = 65536 ]
# The memory file goes to the instance's own tmpfs, its folder's tmp/ in the kernels' mount namespace (UML says
# which folder it took and whether it is tmpfs): where no namespace may be made, to that folder on disk.
if unshare -U -m true 2>/dev/null || [ "$(id -u)" = 0 ]; then
  check "memory file: on the instance's own tmpfs" \
    grep -q 'Checking if /proc/self/fd/8/tmp is on tmpfs...OK' "$kept/vm0/console.log"
else
  # A property of this host, not of the bed: it allows no user namespace.
  skip "memory file: this host allows no user namespace, where the instance's tmpfs would be mounted"
fi
[ -n "$kept" ] && rm -rf "$kept"
# The release --version gave is asked once per build: a planted answer under the build's key is what the next run
# believes (the probe), and the same file touched is another build, asked again.
cp "$KERNEL" "$T/linux-copy"
run run --kernel "$T/linux-copy" --agent "$AGENT" --json "$T/rel.json" "$T/boot.lua"
release=$(jq -r .release "$T/rel.json")
check "release: kept under the build's key ($release)" grep -q "^$T/linux-copy:.*:release:.* $release\$" "$T/lpj.cache"
sed -i "s|^\($T/linux-copy:.*:release:[^ ]*\) .*|\1 9.9.99|" "$T/lpj.cache"
run run --kernel "$T/linux-copy" --agent "$AGENT" --json "$T/rel.json" "$T/boot.lua"
check "release: the next run takes it from the cache (planted 9.9.99, got $(jq -r .release "$T/rel.json"))" \
  jq -e '.release == "9.9.99" and .generation == "9.9"' "$T/rel.json"
touch "$T/linux-copy"
run run --kernel "$T/linux-copy" --agent "$AGENT" --json "$T/rel.json" "$T/boot.lua"
check "release: a build touched since is asked again (got $(jq -r .release "$T/rel.json"))" \
  jq -e --arg r "$release" '.release == $r' "$T/rel.json"
rm -f "$T/linux-copy"
unset UMLBED_LPJ_CACHE

# The signal checks above saw this probe find a live UML: it works in its run folder.
check "no UML process of ours left at the end" none_left "cwd:$TMPDIR/umlbed-"
echo "1..$n"
