#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# configs.t: every variant of every generation configures (its fragments, olddefconfig, check-config.sh) without a build, and a fragment option that Kconfig drops fails, naming the variant, the option and its dependency.
#
# make check builds only the variants of each generation's "check" key. The others (coverage, mm, judge, the broken
# and historic kernels, slow) are built by targets make check does not run, so a fragment that lost an option there
# went unseen until someone ran that target: the coverage variant's nodebuginfo.config took DEBUG_INFO, on which
# UML's GCOV depends, and make coverage failed in its first seconds for every user. Each variant name
# (generation.sh variants: a variant file of every generation, under each generation's suffix) is configured by `uml-kernel/build.sh --configure` (the build's own configuration step, on a copy of the pristine
# tree with its stack's Kconfig files, in BUILD/configs/): a few seconds per distinct configuration, nothing for one
# that passed before (its key is kept in BUILD/configs/checked/ and in the kernel cache). A new variant file needs
# no change here.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${UMLBED_BUILD:-${BUILD:-$top/build}}
export BUILD
gen_sh=$top/uml-kernel/generation.sh
. "$top/tests/lib/strict.sh"
. "$top/tests/lib/tap.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/configs-t.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

for g in $("$gen_sh" list); do
	tarball=$("$gen_sh" get "$g" tarball)
	[ -f "$tarball" ] || [ -f "$BUILD/src/$("$gen_sh" get "$g" source)/Makefile" ] ||
		prereq_skip_all "no source of Linux $g: $tarball (make deps)"
done

# The probe first: a variant of the test's own, in a copy of uml-kernel/ and the series, whose fragment sets GCOV
# and takes DWARF away, as the coverage variant did. It must fail, naming the variant, the option and the line of
# Kconfig that says why. It shares the checkout's configuration tree (the same Kconfig files): one configuration.
g=$("$gen_sh" default)
mkdir -p "$T/top"
cp -r "$top/uml-kernel" "$top/patches" "$T/top/"
printf '# configs.t: gcov without DWARF.\nCONFIG_GCOV=y\nCONFIG_DEBUG_INFO_NONE=y\n' >"$T/top/uml-kernel/config/configs-t.config"
printf '# configs.t: the default generation with a fragment that loses an option.\nconfig configs-t.config\n' \
	>"$T/top/uml-kernel/variants/configs-t-probe"
"$T/top/uml-kernel/build.sh" --configure configs-t-probe >"$T/probe" 2>&1
check "a variant whose fragment loses an option fails to configure (exit 1)" [ $? = 1 ]
check "... naming the variant" grep -q '^build.sh: configs-t-probe: its configuration drops fragment options' "$T/probe"
check "... the option, and what the .config has of it" \
	grep -qF "check-config: configs-t.config: wanted 'CONFIG_GCOV=y', .config has 'CONFIG_GCOV undefined" "$T/probe"
check "... and its dependency, with the Kconfig file that holds it" \
	grep -qx 'check-config:   arch/um/Kconfig.debug: depends on DEBUG_INFO' "$T/probe"
grep -q 'depends on DEBUG_INFO' "$T/probe" || diag "$T/probe"

# Every variant name, whatever generation key names it or none.
for v in $("$gen_sh" variants); do
	frags=$("$gen_sh" configs "$v" 2>&1 | paste -sd' ')
	"$top/uml-kernel/build.sh" --configure "$v" >"$T/out" 2>&1
	rc=$?
	check "$v ($("$gen_sh" of "$v" 2>/dev/null)${frags:+, $frags}): configures, every fragment option kept" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || diag "$T/out"
	# Where a build of the variant has the same inputs, its .config is the one --configure made: the copy of the
	# tree with only the stack's Kconfig files configures as the patched tree does.
	stamp=$BUILD/kernel/$v/.config-stamp
	if [ "$rc" = 0 ] && [ -f "$stamp" ] && [ -f "$BUILD/configs/$v.config-stamp" ] &&
		[ "$(cat "$stamp")" = "$(cat "$BUILD/configs/$v.config-stamp")" ]; then
		check "$v: the built kernel's .config is the one --configure made" \
			cmp -s <(grep -v '^#' "$BUILD/kernel/$v/obj/.config") <(grep -v '^#' "$BUILD/configs/$v.config")
	fi
done
echo "1..$n"
