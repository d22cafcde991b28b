#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kselftests.t: the smoke of make kselftests: one of the kernel's own mm selftests, built static by tests/kselftests/build.sh, runs through vm.lua and matches its table.
#
# make kselftests builds every program of the generation's selftests folder and runs each in a fresh guest of the mm
# variant, whose configuration (compaction, migration, KSM, userfaultfd) is a cold kernel build of its own: make
# check-slow runs it whole (tests/kselftests/kselftests.t). Here the default generation's x86 headers and one program,
# map_fixed_noreplace (a pass in the table, which needs nothing of mm.config), are built as make kselftests builds
# them, and vm.lua runs it on full, the kernel make check builds: the build script, the table's reader and vm.lua
# work, and the program passes as its table line says.
PLAIN_RUNNER=1
. "$(dirname "$0")/../runner/common.sh"
gen_sh=$SRC/uml-kernel/generation.sh
GEN=$("$gen_sh" default)
if [ ! -x "$BUILD/kernel/full/obj/linux" ] || [ ! -f "$BUILD/guest/umlbed-agent" ] || [ ! -x "$UMLBED" ]; then
  prereq_skip_all "no full kernel, agent or runner ($BUILD: make check builds them)"
fi
need_jq
TEST=map_fixed_noreplace
TABLE=$SRC/$("$gen_sh" get "$GEN" kselftests)
sub=$("$gen_sh" get "$GEN" selftests)
check "the table says $TEST passes (the line the smoke matches)" grep -qE "^pass +root +$TEST\$" "$TABLE"
bins=$("$SRC/tests/kselftests/build.sh" "$GEN" "$TEST" 2>"$T/build.err")
check "make kselftests' build script builds $TEST alone (exit $?)" [ -x "$bins/$TEST" ]
[ -x "$bins/$TEST" ] || diag "$T/build.err"
check "... static (the guest has no C library)" eval 'file -b "$bins/$TEST" | grep -q "statically linked"'
UMLBED_KSELFTESTS_GEN=$GEN UMLBED_KSELFTESTS=$bins run run --variant full --param test=$TEST "$SRC/tests/kselftests/vm.lua"
check "vm.lua runs it on full as its table says (exit $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || { diag "$T/out"; diag "$T/err"; }
check "... one run, selftests/$sub [test=$TEST], ok" \
  jtrue --arg n "selftests/$sub [test=$TEST]" '(.results | length) == 1 and .results[0].name == $n and .results[0].verdict == "ok"'
# vm.lua's note (its own text) says what the program did: that text is what is tested.
check "... which the program passed, as root" jtrue --arg s "$TEST as root: pass (exit:0), expected pass" '.results[0].diag // "" | contains($s)'
echo "1..$n"
