#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# style.t: every user-space C file (runner, bindings, protocol, guest, their tests) is in the one style of .clang-format,
# and no function of the runner, the agent or the protocol is over 100 lines.
. "$(dirname "$0")/common.sh"
cd "$SRC" || exit 1
# Kernel code (the guest module of tests/runner/kmod) is in the kernel's style instead: kmod-walls.t holds it to
# checkpatch --strict.
files=$(git ls-files 'runner/*.[ch]' 'protocol/*.[ch]' 'guest/*.[ch]' 'tests/*.c' \
  ':!tests/runner/kmod/*' 2>/dev/null)
[ -n "$files" ] || files=$(find runner protocol guest tests -name '*.[ch]' -not -path 'tests/runner/kmod/*' | sort)
check "there are C files to check" [ -n "$files" ]
# No C function of the runner, the agents, the protocol or the tests is over 100 lines (tests/lib/c-functions.pl; the
# guest kernel modules are kernel code). Its probe first finds one of 101 lines, and none of 100.
fn=$SRC/tests/lib/c-functions.pl
{ echo 'static int f(void) {'; for _ in $(seq 98); do echo '  g();'; done; echo '}'; } >"$T/f100.c"
{ echo 'int f(int a,'; echo '      int b) {'; for _ in $(seq 98); do echo '  g();'; done; echo '}'; } >"$T/f101.c"
check "the function-length probe finds a function of 101 lines (a head on two lines)" \
  eval '[ "$(perl "$fn" 100 "$T/f101.c")" = "$T/f101.c:1 f 101" ]'
check "... and none of 100" perl "$fn" 100 "$T/f100.c"
cfiles=$(git ls-files 'runner/*.c' 'protocol/*.c' 'guest/*.c' 'tests/*.c' 2>/dev/null | grep -v '/kmod/')
[ -n "$cfiles" ] || cfiles=$(find runner protocol guest tests -name '*.c' -not -path '*/kmod/*' | sort)
# shellcheck disable=SC2086 # the file names have no blank (git ls-files of C sources)
check "no C function in runner/, protocol/, guest/ or tests/ is over 100 lines" perl "$fn" 100 $cfiles
# shellcheck disable=SC2086
perl "$fn" 100 $cfiles | diag
if ! command -v clang-format >/dev/null; then
  prereq_skip "clang-format is not installed (apt-get install clang-format)"
  echo "1..$n"
  exit 0
fi
for f in $files; do
  check "$f: .clang-format style" clang-format --style=file --dry-run -Werror "$f" 2>"$T/fmt"
  [ -s "$T/fmt" ] && head -n 5 "$T/fmt" | diag
done
echo "1..$n"
