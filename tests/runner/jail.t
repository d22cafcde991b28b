#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# jail.t: hostfs's jail (hostfs=DIR) holds against a hostile guest on each default kernel: jail-fuzz.lua's generated
# mount options and two-mount dcache race read, create and change nothing of the host outside the run's root folder.
# Its subject is the jail, a fix of the kernel's hostfs, not the runner: it drives the runner's build without sanitizers.
PLAIN_RUNNER=1
. "$(dirname "$0")/common.sh"
need_jq
AGENT=${UMLBED_AGENT:-$BUILD/guest/umlbed-agent}
BUSYBOX=${UMLBED_BUSYBOX:-/bin/busybox}
# UMLBED_JAIL_KERNELS: the folder holding VARIANT/obj/linux (another build's kernels, e.g. before a fix).
KDIR=${UMLBED_JAIL_KERNELS:-$BUILD/kernel}
# The first default variant of every generation (uml-kernel/generations/): full of 6.1 and 6.12. The jail is a fix of
# the generation's (uml-kernel/fixes/GEN/um-hostfs-jail.patch) that its variants carry line for line; gpl-only
# differs from full only in the export.
firsts=$(for g in $("$SRC/uml-kernel/generation.sh" list); do
  read -r v _ <<<"$("$SRC/uml-kernel/generation.sh" get "$g" variants)" && printf '%s ' "$v"
done)
read -ra VARIANTS <<<"${UMLBED_JAIL_VARIANTS:-$firsts}"
# A guard against a hung runner only; the scenario's own timeout is exact.
GUARD=$(scaled 1200)
NAME="hostfs jail fuzz"

[ -x "$UMLBED" ] || prereq_skip_all "no runner ($UMLBED)"
[ -f "$AGENT" ] || prereq_skip_all "no agent ($AGENT)"
[ -x "$BUSYBOX" ] || prereq_skip_all "no static busybox for vm:shell() ($BUSYBOX; Debian package busybox-static)"

# The outside folder of a run, beside the run folders' TMPDIR: the canary (its first word is the secret the guest
# must never read), the race's victims, and a sub folder with a canary of its own.
outside() {
  rm -rf "$1"
  mkdir -p "$1/sub" "$1/v-rmdir"
  echo "jail-outside-secret" >"$1/jail-canary"
  echo "jail-outside-secret" >"$1/sub/jail-canary"
  for f in v-write v-link v-rename v-unlink v-chmod v-chown v-trunc v-touch; do echo victim >"$1/$f"; done
  ln -s outside-link-target "$1/v-readlink"
}
# All a guest could change there: each name, type, mode, owner, size, mtime and link target, and each file's data.
snapshot() {
  (cd "$1" && find . -printf '%p %y %m %U:%G %s %T@ %l\n' | LC_ALL=C sort && find . -type f -exec md5sum {} + | LC_ALL=C sort)
}

# fuzz LABEL KERNEL: jail-fuzz.lua on KERNEL against a fresh outside folder, and that folder unchanged after it.
fuzz() {
  local out=$T/outside tried
  outside "$out"
  snapshot "$out" >"$T/before"
  # The snapshot's probe: it sees a chmod and a touch outside.
  chmod 0600 "$out/v-chmod"
  touch -d '2001-01-01 00:00:00' "$out/v-touch"
  snapshot "$out" >"$T/probe"
  check "$1: the outside folder's snapshot sees a chmod and a touch" \
    eval '[ "$(diff "$T/before" "$T/probe" | grep -c "^>")" = 2 ]'
  outside "$out"
  snapshot "$out" >"$T/before"

  JAIL_OUTSIDE=$out JAIL_PROBE=$T/jail-probe grun run --kernel "$2" --agent "$AGENT" "$SCEN/jail-fuzz.lua"
  check "$1: no generated form and no raced operation got out of the jail (exit $rc)" verdict_is "$NAME" ok
  verdict_is "$NAME" ok 2>/dev/null || diag "$T/out" "$T/err"
  # The scenario's counts, as comments; a generator that made few forms would prove little.
  field "$NAME" diag | sed -n 's/^note: \(forms tried: .*\|escaped by family: .*\|race: .*\)$/# '"$1"': \1/p'
  tried=$(field "$NAME" diag | sed -n 's/^note: forms tried: \([0-9]*\) .*/\1/p')
  check "$1: hundreds of forms were tried (${tried:-none})" [ "${tried:-0}" -ge 300 ]
  snapshot "$out" >"$T/after"
  check "$1: nothing in the outside folder changed" cmp -s "$T/before" "$T/after"
  cmp -s "$T/before" "$T/after" || diff "$T/before" "$T/after" | head -n 40 | diag
  rm -rf "$TMPDIR"/umlbed-*
}

# The guest's probe of the mount forms, one static process for all of them (jail/probe.c).
gcc -std=c11 -O2 -Wall -Wextra -Werror -static -o "$T/jail-probe" "$SRC/tests/runner/jail/probe.c" 2>"$T/cc.err" ||
  prereq_skip_all "cannot build the guest's static probe: $(head -n 1 "$T/cc.err")"

# A host without openat2(2) (before Linux 5.6, or behind a seccomp profile that refuses it) gets the jail's other
# resolution, a walk one component at a time: each kernel runs the fuzz a second time under jail/noopenat2.c.
walk=
walk_why=
if gcc -std=c11 -O2 -Wall -Wextra -Werror -o "$T/noopenat2" "$SRC/tests/runner/jail/noopenat2.c" 2>"$T/cc.err"; then
  walk=$T/noopenat2
else
  walk_why="cannot build the openat2-refusing wrapper: $(head -n 1 "$T/cc.err")"
fi

for v in "${VARIANTS[@]}"; do
  kernel=$KDIR/$v/obj/linux
  if [ ! -x "$kernel" ]; then
    prereq_skip "$v: no kernel ($kernel)"
    continue
  fi
  fuzz "$v" "$kernel"
  if [ -z "$walk" ]; then
    prereq_skip "$v, openat2 refused: $walk_why"
    continue
  fi
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$walk" "$kernel" >"$T/linux-$v-noopenat2"
  chmod +x "$T/linux-$v-noopenat2"
  fuzz "$v, openat2 refused" "$T/linux-$v-noopenat2"
done

echo "1..$n"
