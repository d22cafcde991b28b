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

# fuzz LABEL KERNEL: jail-fuzz.lua on KERNEL against a fresh outside folder, and that folder unchanged after it.
fuzz() {
  OUT=$T/outside
  outside "$OUT"
  snapshot "$OUT" >"$T/before"
  # The snapshot's probe: it sees a chmod and a touch outside.
  chmod 0600 "$OUT/v-chmod"
  touch -d '2001-01-01 00:00:00' "$OUT/v-touch"
  snapshot "$OUT" >"$T/probe"
  check "$1: the outside folder's snapshot sees a chmod and a touch" \
    eval '[ "$(diff "$T/before" "$T/probe" | grep -c "^>")" = 2 ]'
  outside "$OUT"
  snapshot "$OUT" >"$T/before"

  JAIL_OUTSIDE=$OUT grun run --kernel "$2" --agent "$AGENT" "$SCEN/jail-fuzz.lua"
  check "$1: no generated form and no raced operation got out of the jail (exit $rc)" \
    grep -q '^ok 1 - hostfs jail fuzz$' "$T/out"
  # The scenario's counts, as comments.
  sed -n 's/^#   \(note: \)\{0,1\}\(forms tried: .*\|escaped by family: .*\|race: .*\)$/# '"$1"': \2/p' "$T/out"
  grep -q '^ok 1 - hostfs jail fuzz$' "$T/out" || show
  snapshot "$OUT" >"$T/after"
  check "$1: nothing in the outside folder changed" cmp -s "$T/before" "$T/after"
  cmp -s "$T/before" "$T/after" || diff "$T/before" "$T/after" | head -n 40 | diag
  rm -rf "$TMPDIR"/umlbed-*
}

# A host without openat2(2) (before Linux 5.6, or behind a seccomp profile that refuses it) gets the jail's other
# resolution, a walk one component at a time: each kernel runs the fuzz a second time under this wrapper.
cat >"$T/noopenat2.c" <<'EOF'
/* noopenat2.c: runs a program with openat2(2) refused (ENOSYS), as on a host older than Linux 5.6. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_openat2
#define __NR_openat2 437
#endif

int main(int argc, char **argv)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof filter / sizeof filter[0], .filter = filter};

	if (argc < 2) {
		fprintf(stderr, "usage: noopenat2 PROGRAM [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("noopenat2: seccomp");
		return 127;
	}
	/* The filter's own probe: openat2 is refused here, so in every process the program starts. */
	if (syscall(__NR_openat2, AT_FDCWD, ".", NULL, 0) != -1 || errno != ENOSYS) {
		fprintf(stderr, "noopenat2: openat2 is not refused\n");
		return 127;
	}
	execv(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
EOF
walk=
walk_why=
if gcc -O2 -Wall -Wextra -Werror -o "$T/noopenat2" "$T/noopenat2.c" 2>"$T/cc.err"; then
  walk=$T/noopenat2
else
  walk_why="cannot build the openat2-refusing wrapper: $(head -n 1 "$T/cc.err")"
fi

for v in $VARIANTS; do
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
