#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where the time of one umlbed run goes, phase by phase: min/median/max over repeated runs of bench/scenarios/phases.lua.
#
#   bench/breakdown.sh [RUNS]        RUNS runs of each kind (default 10), after one warm-up run that is not counted
#   UMLBED=path                      the runner (default: build/runner/umlbed)
#   KERNEL=path                      the UML kernel (default: build/kernel/full/obj/linux)
#
# Method. Nothing here changes the runner; each phase comes from a clock that exists:
#  - process wall time: $EPOCHREALTIME around `umlbed run` (host clock);
#  - host spawn: the kernel is run through a small C wrapper (compiled here) that writes CLOCK_REALTIME to a
#    file and execs the real kernel; its cost (one exec of a tiny static binary) is part of the boot;
#  - spawn -> agent ready: the JSON's boot_ms; inside it, the console log of a --keep run gives the printk
#    clock (UML's is jiffies: 10 ms steps) of "Calibrating delay loop" and "Run /umlbed-agent as init process";
#    the rest of boot_ms is the host-side set-up before the kernel's clock starts plus the agent's start;
#  - the scenario's steps: phases.lua notes t:remaining() (uv_hrtime, ns) after t:vm(), after one request
#    (vm:tainted()), after the body (file, spawn, mmap, one-page peek) and after vm:poweroff()'s reply;
#  - after the run function: the process wall end minus the run's end (spawn + its offset), which holds the
#    instance's exit after power-off, the verdict, the report and exit (the run folder is kept for its console:
#    its removal is timed apart, with rm -rf);
#  - whole-process differences of medians between runs that stop after the boot (the runner kills the instance),
#    after one reply, and after power-off.
# The lpj cache is private (UMLBED_LPJ_CACHE): the warm-up run calibrates the wrapper's kernel, the others boot
# with lpj= as a warm cache does.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
umlbed=${UMLBED:-$top/build/runner/umlbed}
kernel=${KERNEL:-$top/build/kernel/full/obj/linux}
runs=${1:-10}
usage() { echo "usage: bench/breakdown.sh [RUNS]   (UMLBED=, KERNEL=)" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || usage
[ -x "$umlbed" ] || { echo "breakdown: no runner at $umlbed" >&2; exit 2; }
[ -x "$kernel" ] || { echo "breakdown: no kernel at $kernel" >&2; exit 2; }
kernel=$(realpath "$kernel")

scratch=$(mktemp -d "${TMPDIR:-/tmp}/bench-breakdown.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir "$scratch/runs"
export UMLBED_LPJ_CACHE=$scratch/lpj.cache

# The wrapper: one clock reading per boot (not for the runner's --version probe), then the real kernel. The kernel
# the runner is given is a script whose interpreter is the wrapper: the wall around a kernel (docs/security.md) lets
# an ELF kernel execute nothing else, but walls a script as it walls gdb, which may execute the host's files. The
# reading goes to the instance's folder, the one place beside the guest's root that the wall lets it write, and
# where the kernel works.
cat >"$scratch/wrap.c" <<C
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (argc < 2) return 127;
  if (!(argc == 3 && strcmp(argv[2], "--version") == 0)) {
    FILE *f = fopen("spawn.log", "a");
    if (f) fprintf(f, "%lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec), fclose(f);
  }
  argv[1] = "$kernel";
  execv("$kernel", argv + 1);
  return 127;
}
C
cc -O2 -static -o "$scratch/wrap" "$scratch/wrap.c" 2>/dev/null || cc -O2 -o "$scratch/wrap" "$scratch/wrap.c"
printf '#!%s\n' "$scratch/wrap" >"$scratch/linux"
chmod +x "$scratch/linux"

# One run of KIND (boot, reply, poweroff); appends "KIND METRIC VALUE" lines (seconds) to $scratch/data.
one() {
	local kind=$1 count=$2 json=$scratch/r.json p0 p1 spawn kept r0 r1
	rm -f "$json"
	p0=$EPOCHREALTIME
	TMPDIR=$scratch/runs "$umlbed" run -j 1 --keep --kernel "$scratch/linux" --json "$json" --param "steps=$kind" \
		"$top/bench/scenarios/phases.lua" >"$scratch/tap" 2>&1 || { cat "$scratch/tap" >&2; exit 1; }
	p1=$EPOCHREALTIME
	kept=$(perl -MJSON::PP -e 'my $r = decode_json(do { local $/; <STDIN> }); print $r->{results}[0]{kept} // ""' <"$json")
	[ -n "$kept" ] || { echo "breakdown: no kept folder in the report" >&2; exit 1; }
	spawn=$(tail -n 1 "$kept/vm0/spawn.log")
	if [ "$count" = 1 ]; then perl -MJSON::PP -e '
		my ($kind, $p0, $p1, $spawn, $console) = @ARGV;
		my $r = decode_json(do { local $/; <STDIN> })->{results}[0];
		my %n = $r->{diag} =~ /(\w+)=([0-9.]+)/g;
		my $boot = $n{boot_ms} / 1000;
		my $spawn_rel = $n{ready} - $boot;            # the spawn, in seconds after the run function started
		my $end = $n{poweroff} // $n{reply} // $n{ready};
		my %m = (wall => $p1 - $p0, seconds => $r->{seconds}, start => $spawn - $p0, boot => $boot,
			tail => $p1 - ($spawn + $end - $spawn_rel), pre_spawn => $spawn_rel);
		$m{reply} = $n{reply} - $n{ready} if defined $n{reply};
		$m{body} = $n{body} - $n{reply} if defined $n{body};
		$m{poweroff} = $n{poweroff} - $n{body} if defined $n{poweroff};
		if (open my $c, "<", $console) {
			my ($cal, $after_cal, $init);
			while (<$c>) {
				my ($ts) = /^\[\s*([0-9.]+)\]/ or next;
				$after_cal //= $ts if defined $cal && !/Calibrating/;
				$cal //= $ts if /Calibrating delay loop/;
				$init //= $ts if m{Run /umlbed-agent as init process};
			}
			$m{kernel_init} = $init if defined $init;
			$m{calibrate} = $after_cal - $cal if defined $after_cal;
			$m{outside} = $boot - $init if defined $init;
		}
		print "$kind $_ $m{$_}\n" for sort keys %m;
	' "$kind" "$p0" "$p1" "$spawn" "$kept/vm0/console.log" <"$json" >>"$scratch/data"; fi
	r0=$EPOCHREALTIME
	rm -rf "$kept"
	r1=$EPOCHREALTIME
	[ "$count" = 0 ] || awk -v k="$kind" -v a="$r0" -v b="$r1" 'BEGIN { print k, "rm", b - a }' >>"$scratch/data"
}

echo "breakdown: $runs run(s) of each kind (boot, reply, poweroff), interleaved; $umlbed, $kernel"
one poweroff 0
for ((i = 1; i <= runs; i++)); do
	for kind in boot reply poweroff; do one "$kind" 1; done
done

perl -e '
	my %v;
	while (<STDIN>) { my ($k, $m, $x) = split; push @{$v{$k}{$m}}, $x * 1000 }
	sub st { my @a = sort { $a <=> $b } @_; my $n = @a;
		(($n % 2 ? $a[($n - 1) / 2] : ($a[$n / 2 - 1] + $a[$n / 2]) / 2), $a[0], $a[-1]) }
	sub row { my ($name, $l) = @_; return unless $l && @$l; my ($m, $lo, $hi) = st(@$l);
		printf "%-46s %9.1f %9.1f %9.1f\n", $name, $lo, $m, $hi }
	my $p = $v{poweroff};
	printf "%-46s %9s %9s %9s\n", "phase (steps=poweroff runs), ms", "min", "median", "max";
	row("process start -> kernel exec", $p->{start});
	row("  of which run function start -> spawn", $p->{pre_spawn});
	row("spawn -> agent ready (boot_ms)", $p->{boot});
	row("  kernel clock 0 -> init runs (printk, 10 ms)", $p->{kernel_init});
	row("    of which delay-loop calibration", $p->{calibrate});
	row("  host set-up before clock 0 + agent start", $p->{outside});
	row("agent ready -> first reply", $p->{reply});
	row("scenario body (file, spawn, mmap, peek)", $p->{body});
	row("power-off request -> reply", $p->{poweroff});
	row("power-off reply -> process exit", $p->{tail});
	row("run folder removal (rm -rf, timed apart)", $p->{rm});
	row("whole process (wall)", $p->{wall});
	row("runner seconds (JSON)", $p->{seconds});
	print "\n";
	printf "%-46s %9s %9s %9s\n", "whole process by steps, ms", "min", "median", "max";
	row("steps=boot (instance killed at the end)", $v{boot}{wall});
	row("steps=reply (killed)", $v{reply}{wall});
	row("steps=poweroff", $p->{wall});
	row("boot: run end -> process exit (kill)", $v{boot}{tail});
	my ($b) = st(@{$v{boot}{wall}}); my ($r) = st(@{$v{reply}{wall}}); my ($o) = st(@{$p->{wall}});
	printf "%-46s %9.1f\n", "median reply - median boot", $r - $b;
	printf "%-46s %9.1f\n", "median poweroff - median reply", $o - $r;
' <"$scratch/data"
