#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kmod-walls.t: a guest root's module makes host system calls from guest kernel context, on both generations, and
# reaches nothing on the host: the walls the host kernel builds around each UML process (runner/core/wall.c) hold.
. "$(dirname "$0")/common.sh"
# The subject is the wall around the kernel, not the runner's code: the plain build is enough.
need_jq
AGENT=${UMLBED_AGENT:-$BUILD/guest/umlbed-agent}

# The victims, outside the run folder: a folder with a file, a process and a listening unix socket of the test's.
OUT=$T/outside
mkdir -p "$OUT"
printf 'victim\n' >"$OUT/victim"
chmod 0644 "$OUT/victim"
setsid sh -c 'exec sleep 100000' </dev/null >/dev/null 2>&1 &
victim=$!
SOCK=$T/sock
exec 8< <(exec perl -MIO::Socket::UNIX -e '
  $| = 1;
  my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => $ARGV[0], Listen => 5) or die "listen: $!";
  print "ready\n";
  while (my $c = $s->accept) { my $l = <$c> // ""; chomp $l; print "accepted $l\n"; close $c }' "$SOCK")
listener=$!
read -r -t "$(scaled 30)" line <&8
check "the unix socket listens" [ "${line:-}" = ready ]
# connected MARK: the test connects and says MARK, and the listener's next line is read. Connections are accepted in
# order: a line other than "accepted MARK" is one that came before it, from someone else.
connected() {
  perl -MIO::Socket::UNIX -e '(IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $ARGV[0]) or die "connect: $!")
    ->print("$ARGV[1]\n")' "$SOCK" "$1"
  line=
  read -r -t "$(scaled 30)" line <&8
  [ "$line" = "accepted $1" ] || { echo "# the listener said '$line', not 'accepted $1'"; return 1; }
}
# What shares the kernel's host uid (the unprivileged uid as root, the runner's otherwise), which no Landlock rule
# covers: a file whose mode, times and attributes, a process whose limits, priority and CPUs, a terminal (where a user
# types), the kernel must not change or reach; and an abstract socket name it must not take from the host.
kuid=$(id -u)
[ "$kuid" = 0 ] && kuid=2147483646
# The file sits where that uid may walk to it (the test's own folder is root's alone, as root).
META=$(mktemp "$(dirname "$T")/umlbed-kmod-meta.XXXXXX")
trap 'rm -rf "$T" "$META"' EXIT
chmod 0644 "$META"
touch -d @1000000000 "$META"
# setpriv and setsid exec in place: the job's PID is the sleeping process's.
if [ "$(id -u)" = 0 ]; then
  chown "$kuid:$kuid" "$META"
  setpriv --reuid="$kuid" --regid="$kuid" --clear-groups setsid sleep 100000 </dev/null >/dev/null 2>&1 &
else
  setsid sleep 100000 </dev/null >/dev/null 2>&1 &
fi
peer=$!
peer_state() {
  echo "nice=$(ps -o ni= -p "$peer" | tr -d ' ') cpus=$(taskset -cp "$peer" 2>/dev/null | sed 's/.*: //')" \
    "cpu-limit=$(prlimit --pid "$peer" --cpu --noheadings -o SOFT 2>/dev/null | tr -d ' ')"
}
peer_before=$(peer_state)
meta_state() { stat -c '%a %Y' "$META"; python3 -c 'import os, sys; print(os.listxattr(sys.argv[1]))' "$META"; }
meta_before=$(meta_state)
SQUAT=umlbed-squat-$$
mkfifo "$T/pts.ready" "$T/pts.go"
python3 "$SRC/tests/runner/trust/terminal.py" "$T/pts" "$kuid" &
pty_job=$!
ready_wait "$T/pts.ready"
PTS=$(cat "$T/pts.name" 2>/dev/null)
check "the probe of the peer process sees it alive ($peer_before)" kill -0 "$peer"
check "the probe of the file sees its mode, time and no attribute ($meta_before)" \
  [ "$meta_before" = "644 1000000000${NL}[]" ]
check "the probe of the terminal sees it ($PTS)" [ -c "$PTS" ]
check "the probe of the host's abstract sockets sees the test's own (python binds @$SQUAT-probe)" \
  python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind("\0" + sys.argv[1])
sys.exit(0 if ("@" + sys.argv[1]) in open("/proc/net/unix").read() else 1)' "$SQUAT-probe"
# Each probe is shown to see what it looks for, before the runs.
check "the probe of the socket sees a connection (the test's own)" connected first
check "the probe of the victim process sees it alive" kill -0 "$victim"
check "the probe of the outside folder sees the victim file" [ "$(ls -A "$OUT")" = victim ]
rm -f /dev/shm/umlbed-hostile

for gen in 6.1 6.12; do
  variant=full
  [ "$gen" = 6.12 ] && variant=full-6.12
  KOBJ=$BUILD/kernel/$variant/obj
  if [ ! -x "$KOBJ/linux" ] || [ ! -f "$AGENT" ]; then
    prereq_skip "$gen: no kernel $KOBJ/linux or agent (make check builds them)"
    continue
  fi
  # Kernel code in the tree's own style: this generation's checkpatch --strict, on the file.
  cp_out=$(perl "$BUILD/src/linux-source-$gen/scripts/checkpatch.pl" --strict --no-tree -f \
    "$SRC/tests/runner/kmod/umlbed_hostile.c" 2>&1)
  check "$gen: the hostile module is clean under the tree's checkpatch --strict" \
    grep -q "^total: 0 errors, 0 warnings, 0 checks" <<<"$cp_out"
  # The module is built as a guest root would build it: umlbed kbuild's make line, out of tree.
  M=$T/kmod-$gen
  mkdir -p "$M"
  cp "$SRC/tests/runner/kmod/Kbuild" "$SRC/tests/runner/kmod/umlbed_hostile.c" "$M/"
  make -s -C "$KOBJ" M="$M" ARCH=um modules >"$T/kbuild.out" 2>&1
  check "$gen: the hostile module builds" [ -f "$M/umlbed_hostile.ko" ]
  [ -f "$M/umlbed_hostile.ko" ] || diag "$T/kbuild.out"
  mkfifo "$T/k-$gen.fifo" "$T/k-$gen.fifo.checked"
  rm -f "$T/r.json"
  HOSTILE_KO=$M/umlbed_hostile.ko HOSTILE_OUT=$OUT HOSTILE_VICTIM=$victim HOSTILE_SOCK=$SOCK \
    HOSTILE_KERNEL=$KOBJ/linux HOSTILE_META=$META HOSTILE_PEER=$peer HOSTILE_PTS=$PTS HOSTILE_SQUAT=$SQUAT \
    UMLBED_READY_FIFO=$T/k-$gen.fifo "$UMLBED" run --json "$T/r.json" --kernel "$KOBJ/linux" --agent "$AGENT" \
    --timeout "$(scaled 60)" "$SCEN/hostile-kmod.lua" >"$T/out" 2>"$T/err" &
  kpid=$!
  # While the instance lives: the name it bound is not among the host's.
  squatted=unknown
  if ready_wait "$T/k-$gen.fifo"; then
    if grep -q "@$SQUAT\$" /proc/net/unix; then squatted=yes; else squatted=no; fi
  fi
  ready_wait "$T/k-$gen.fifo.checked"
  timeout "$(scaled 120)" tail -s 0.1 --pid="$kpid" -f /dev/null || kill -KILL "$kpid"
  wait "$kpid"
  J=$T/r.json
  name="a hostile guest module reaches nothing on the host"
  check "$gen: the module loaded, its control wrote inside, and every action was refused" verdict_is "$name" ok
  field "$name" diag | diag
  grep '^# print:' "$T/out" | sed "s/^# print:/# $gen:/"
  check "$gen: nothing was made in the outside folder" [ "$(ls -A "$OUT")" = victim ]
  check "$gen: the victim file is unchanged" [ "$(cat "$OUT/victim")" = victim ]
  check "$gen: ... and so is its mode" [ "$(stat -c %a "$OUT/victim")" = 644 ]
  check "$gen: the victim process is alive" kill -0 "$victim"
  check "$gen: nothing connected to the host's unix socket before the test's next connection" connected "after-$gen"
  check "$gen: nothing was made in the host's /dev/shm" [ ! -e /dev/shm/umlbed-hostile ]
  check "$gen: the abstract name the module bound is not the host's ($squatted)" [ "$squatted" = no ]
  check "$gen: the file of the kernel's uid kept its mode, time and attributes" [ "$(meta_state)" = "$meta_before" ]
  check "$gen: the process of the kernel's uid kept its priority, CPUs and limits" [ "$(peer_state)" = "$peer_before" ]
  check "$gen: ... and is alive: the pid file the module wrote decided no kill" kill -0 "$peer"
  check "$gen: no run folder left" [ "$(leftover_dirs)" = 0 ]
  # A runner without the walls lets the module mount a tmpfs on the host: the test does not leave it there.
  while mountpoint -q "$OUT/dir" 2>/dev/null; do umount "$OUT/dir"; done
done

ready_wait "$T/pts.go"
wait "$pty_job"
check "nothing was written into the terminal of the kernel's uid" [ ! -s "$T/pts.got" ]
kill "$victim" "$listener" "$peer" 2>/dev/null
wait "$victim" "$listener" "$peer" 2>/dev/null
exec 8<&-
rm -f /dev/shm/umlbed-hostile
echo "1..$n"
