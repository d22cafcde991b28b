#!/bin/sh
# jail.t: hostfs's jail (hostfs=DIR) holds against a hostile guest on each default kernel: jail-fuzz.lua's generated
# mount options and two-mount dcache race read, create and change nothing of the host outside the run's root folder.
. "$(dirname "$0")/common.sh"
AGENT=${UMLBED_AGENT:-$BUILD/guest/umlbed-agent}
BUSYBOX=${UMLBED_BUSYBOX:-/bin/busybox}
# UMLBED_JAIL_KERNELS: the folder holding VARIANT/obj/linux (another build's kernels, e.g. before a fix).
KDIR=${UMLBED_JAIL_KERNELS:-$BUILD/kernel}
# The default variants of every generation (uml-kernel/generations/): full and gpl-only of 6.1 and 6.12.
VARIANTS=${UMLBED_JAIL_VARIANTS:-$("$SRC/uml-kernel/generation.sh" all variants)}
# A guard against a hung runner only; the scenario's own timeout is exact.
GUARD=$(scaled 1200)
show() { diag "$T/out" "$T/err"; }

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

for v in $VARIANTS; do
  kernel=$KDIR/$v/obj/linux
  if [ ! -x "$kernel" ]; then
    prereq_skip "$v: no kernel ($kernel)"
    continue
  fi
  OUT=$T/outside-$v
  outside "$OUT"
  snapshot "$OUT" >"$T/before"
  # The snapshot's probe: it sees a chmod and a touch outside, and nothing once they are undone.
  mode=$(stat -c %a "$OUT/v-chmod")
  chmod 0600 "$OUT/v-chmod"
  touch -d '2001-01-01 00:00:00' "$OUT/v-touch"
  snapshot "$OUT" >"$T/probe"
  check "$v: the outside folder's snapshot sees a chmod and a touch" \
    eval '[ "$(diff "$T/before" "$T/probe" | grep -c "^>")" = 2 ]'
  outside "$OUT"
  chmod "$mode" "$OUT/v-chmod"
  snapshot "$OUT" >"$T/before"

  JAIL_OUTSIDE=$OUT grun run --kernel "$kernel" --agent "$AGENT" "$SCEN/jail-fuzz.lua"
  check "$v: no generated form and no raced operation got out of the jail (exit $rc)" \
    grep -q '^ok 1 - hostfs jail fuzz$' "$T/out"
  # The scenario's counts, as comments.
  sed -n 's/^#   \(note: \)\{0,1\}\(forms tried: .*\|escaped by family: .*\|race: .*\)$/# '"$v"': \2/p' "$T/out"
  grep -q '^ok 1 - hostfs jail fuzz$' "$T/out" || show
  snapshot "$OUT" >"$T/after"
  check "$v: nothing in the outside folder changed" cmp -s "$T/before" "$T/after"
  cmp -s "$T/before" "$T/after" || diff "$T/before" "$T/after" | head -n 40 | diag
  rm -rf "$TMPDIR"/umlbed-*
done

echo "1..$n"
