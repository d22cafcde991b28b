#!/usr/bin/env bash
# style.t: every user-space C file (runner, bindings, protocol, guest, their tests) is in the one style of .clang-format.
. "$(dirname "$0")/common.sh"
cd "$SRC" || exit 1
# Kernel code (the guest module of tests/runner/kmod) is in the kernel's style instead: kmod-walls.t holds it to
# checkpatch --strict.
files=$(git ls-files 'runner/*.[ch]' 'protocol/*.[ch]' 'guest/*.[ch]' 'tests/*.c' \
  ':!tests/runner/kmod/*' 2>/dev/null)
[ -n "$files" ] || files=$(find runner protocol guest tests -name '*.[ch]' -not -path 'tests/runner/kmod/*' | sort)
check "there are C files to check" [ -n "$files" ]
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
