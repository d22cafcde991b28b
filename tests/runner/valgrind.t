#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# valgrind.t: the runner's unit tests and some fake-UML runs under valgrind (make -C runner check-valgrind), with no error and no definite or indirect leak.
# It drives the build without sanitizers (valgrind cannot run the ASan one), whichever build the other files test.
. "$(dirname "$0")/common.sh"
command -v valgrind >/dev/null || prereq_skip_all "no valgrind (Debian package valgrind)"
[ -x "$BUILD/runner/umlbed" ] || prereq_skip_all "no build without sanitizers at $BUILD/runner (make runner)"
echo "1..1"
make -s -C "$SRC/runner" BUILD="$BUILD" SAN=0 check-valgrind >"$T/out" 2>&1
rc=$?
check "the unit tests and the fake-UML runs are clean under valgrind (exit $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || diag "$T/out"
