#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds a kernel generation's own mm selftests static, for the guest: tests/kselftests/build.sh [GEN [PROGRAM...]], prints the folder.
#
# GEN defaults to the default generation (uml-kernel/generations/); PROGRAM... builds those programs only, each
# as upstream's Makefile would (make check's smoke of make kselftests builds one). From the pristine tree uml-kernel/build.sh
# extracts (the generation's Debian source package, or KSRC=), out of tree:
#   $BUILD/kselftests/GEN/hdr/usr/include   the x86 UAPI headers (make headers_install O=...)
#   $BUILD/kselftests/GEN/src/              a copy of the selftests upstream's Makefile needs, with the workarounds
#                                           of the generation's "kselftests-patches" folder applied
#                                           (tests/kselftests/patches/GEN/, docs/known-issues.md)
#   $BUILD/kselftests/GEN/SUB/              upstream's Makefile's binaries, linked with gcc -static, and its scripts;
#                                           SUB is the generation's "selftests" folder (vm before Linux 6.3, mm since)
#   $BUILD/kselftests/definitions.json      uml-kernel/generation.sh json: the generations' keys, for vm.lua
# The guest has no C library, so every binary is static. Upstream's Makefile decides what to build; nothing is
# written into the pristine tree. Incremental: the headers are re-installed only when the tree changes, the copy is
# re-made only when it or the patches change, and make rebuilds only what changed.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
generation=$top/uml-kernel/generation.sh
gen=${1:-$("$generation" default)}
[ $# -gt 0 ] && shift
sub=$("$generation" get "$gen" selftests)
wdir=$top/$("$generation" get "$gen" kselftests-patches)
tree=$("$top/uml-kernel/build.sh" --tree "$gen")
[ -d "$tree/tools/testing/selftests/$sub" ] ||
	{ echo "kselftests: $tree has no tools/testing/selftests/$sub (uml-kernel/generations/$gen: selftests)" >&2; exit 2; }
out=$BUILD/kselftests/$gen
mkdir -p "$out/$sub"
# vm.lua runs in the runner's sandbox, which cannot run generation.sh: the generations' keys, as its JSON.
"$generation" json >"$BUILD/kselftests/definitions.json.tmp"
mv "$BUILD/kselftests/definitions.json.tmp" "$BUILD/kselftests/definitions.json"
treestamp="$tree $(stat -c '%Y' "$tree/Makefile")"

if [ "$(cat "$out/hdr.stamp" 2>/dev/null)" != "$treestamp" ] || [ ! -d "$out/hdr/usr/include/linux" ]; then
	echo "  HDRS     $gen x86 UAPI headers" >&2
	rm -f "$out/hdr.stamp"
	make -s -C "$tree" O="$out/hdr" ARCH=x86 headers_install >"$out/hdr.log" 2>&1 || {
		cat "$out/hdr.log" >&2
		echo "kselftests: headers_install failed (log above)" >&2
		exit 1
	}
	echo "$treestamp" >"$out/hdr.stamp"
fi

# The copy: the test folder and what it reaches with ../ (lib.mk, kselftest.h, x86/check_cc.sh, mm/gup_test.h).
patches=()
[ -d "$wdir" ] && mapfile -t patches < <(find "$wdir" -name '*.patch' | sort)
srcstamp="$treestamp $(cat /dev/null "${patches[@]}" | sha256sum | cut -c1-16)"
st=tools/testing/selftests
if [ "$(cat "$out/src.stamp" 2>/dev/null)" != "$srcstamp" ]; then
	echo "  COPY     $gen $st/$sub, ${#patches[@]} workaround(s)" >&2
	rm -rf "$out/src" "$out/src.stamp" && mkdir -p "$out/src/$st"
	cp -r "$tree/$st/$sub" "$tree/$st/lib.mk" "$tree/$st/kselftest.h" "$out/src/$st/"
	[ -f "$tree/$st/kselftest_harness.h" ] && cp "$tree/$st/kselftest_harness.h" "$out/src/$st/"
	mkdir -p "$out/src/$st/x86" && cp "$tree/$st/x86"/check_cc.sh "$tree/$st/x86"/trivial_*.c "$out/src/$st/x86/"
	# Some tests include the kernel's mm/gup_test.h by a relative path (../../../../mm/gup_test.h).
	mkdir -p "$out/src/mm" && cp "$tree/mm/gup_test.h" "$out/src/mm/"
	for p in "${patches[@]}"; do
		patch -s -p1 -d "$out/src" <"$p" || { echo "kselftests: $p does not apply to $tree" >&2; exit 1; }
	done
	echo "$srcstamp" >"$out/src.stamp"
fi

echo "  SELFTEST $gen $st/$sub${1:+ ($*)} (static)" >&2
# -k: a test upstream cannot build here is reported below, by name, instead of hiding the others.
if ! make -k -s -C "$out/src/$st/$sub" OUTPUT="$out/$sub" CC="gcc -static" \
	KHDR_INCLUDES="-isystem $out/hdr/usr/include" top_srcdir="$tree" "${@/#/$out/$sub/}" >"$out/build.log" 2>&1; then
	grep -E 'error|Error' "$out/build.log" >&2 || cat "$out/build.log" >&2
	echo "kselftests: some $st/$sub programs did not build (log: $out/build.log)" >&2
	exit 1
fi
# The wrapper scripts (va_128TBswitch.sh, test_vmalloc.sh, ...) go beside the binaries they run.
cp -p "$out/src/$st/$sub"/*.sh "$out/$sub/"
echo "$out/$sub"
