#!/bin/bash
# SPDX-License-Identifier: MIT
# install.sh: installs the built umlbed (runner, man page, agent, kernels, modules, editor definitions) under a prefix, or uninstalls it.
#
#   scripts/install.sh install   [PREFIX [DESTDIR]]     (make install PREFIX=... DESTDIR=...)
#   scripts/install.sh uninstall [PREFIX [DESTDIR]]     (make uninstall)
#
# The runner finds everything from its own location: the folder two levels above the binary is its BUILD (as
# BUILD/runner/umlbed is in the tree). So the install keeps that layout under PREFIX/lib/umlbed/ and puts a relative
# symbolic link in PREFIX/bin: an installed tree works at PREFIX and, staged, under DESTDIR/PREFIX alike.
#   PREFIX/bin/umlbed                          -> ../lib/umlbed/runner/umlbed
#   PREFIX/lib/umlbed/runner/umlbed            the runner (the bed library is compiled into it)
#   PREFIX/lib/umlbed/guest/umlbed-agent       the guest agent
#   PREFIX/lib/umlbed/kernel/VARIANT/          obj/linux, variant.info, variant.json, modules/*.ko: each generation's default
#                                              variants (their "variants" key) that are built
#   PREFIX/lib/umlbed/install.info             what was installed from where: prefix, commit, kernels
#   PREFIX/lib/umlbed/MANIFEST                 every installed path, for uninstall
#   PREFIX/share/man/man1/umlbed.1             the man page
#   PREFIX/share/umlbed/meta/                  the Lua language server's definitions of the API
#   PREFIX/share/umlbed/bench/                 umlbed bench's scenarios and report script
#   PREFIX/share/umlbed/COPYING, LICENSES/     the licences (MIT; GPL-2.0 for the kernels and modules)
# Kernel objtrees (for building one's own module) are not installed: they stay in the build, where
# `umlbed kbuild` names them.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
action=${1:-}
PREFIX=${2:-/usr/local}
DESTDIR=${3:-}
# Blanks are fine (every path is quoted); a newline would split the manifest's lines, and a relative path would
# land wherever make happens to run (the source tree).
nl='
'
case $PREFIX in
*"$nl"*)
	echo "install.sh: PREFIX must not hold a newline" >&2
	exit 2
	;;
/*) ;;
*)
	echo "install.sh: PREFIX must be an absolute path, not $PREFIX" >&2
	exit 2
	;;
esac
case $DESTDIR in
*"$nl"*)
	echo "install.sh: DESTDIR must not hold a newline" >&2
	exit 2
	;;
"" | /*) ;;
*)
	echo "install.sh: DESTDIR must be an absolute path, not $DESTDIR" >&2
	exit 2
	;;
esac
root=$DESTDIR$PREFIX
lib=$root/lib/umlbed
manifest=$lib/MANIFEST
# The root as the kernel resolves it: every path written or removed must resolve beneath it.
real_root=$(realpath -m -- "$root")
real_root=${real_root%/}

die() {
	echo "install.sh: $*" >&2
	exit 1
}

# outside PATH...: prints the first PATH that, every symbolic link in it followed, is not beneath the root, and
# succeeds; fails when all are inside. A link inside the prefix that points out of it (a folder swapped for a link
# to /etc, say) is never written or removed through. One realpath for them all: a prefix holds hundreds of files.
outside() {
	local i=1 p
	while IFS= read -r p; do
		case $p in "$real_root"/*) ;; *)
			printf '%s\n' "${!i} (it resolves to $p)"
			return 0
			;;
		esac
		i=$((i + 1))
	done < <(realpath -m -- "$@")
	return 1
}

# plan SRC DEST MODE: one file to install. Every destination is planned and checked before the first is written,
# so a link out of the prefix stops the install with nothing changed.
srcs=() dests=() modes=()
plan() {
	srcs+=("$1")
	dests+=("$2")
	modes+=("$3")
}

do_install() {
	[ -x "$BUILD/runner/umlbed" ] || die "no runner at $BUILD/runner/umlbed (run make first)"
	[ -x "$BUILD/guest/umlbed-agent" ] || die "no agent at $BUILD/guest/umlbed-agent (run make first)"
	plan "$BUILD/runner/umlbed" "$lib/runner/umlbed" 755
	plan "$BUILD/guest/umlbed-agent" "$lib/guest/umlbed-agent" 755
	plan "$top/docs/umlbed.1" "$root/share/man/man1/umlbed.1" 644
	local f
	# The definitions keep their folders: umlbed/bed.lua is what LuaLS finds for require "umlbed.bed".
	while IFS= read -r -d '' f; do
		plan "$f" "$root/share/umlbed/meta/${f#"$top"/runner/lua/meta/}" 644
	done < <(find "$top/runner/lua/meta" -type f -print0 | sort -z)
	# umlbed bench's scenarios and report script: an installed runner reads them here, not in the source tree.
	plan "$top/bench/report.pl" "$root/share/umlbed/bench/report.pl" 644
	# A copy of the programs carries their licences: MIT's notice, and the GPL's text beside the kernels.
	plan "$top/COPYING" "$root/share/umlbed/COPYING" 644
	for f in "$top"/LICENSES/*/*; do
		plan "$f" "$root/share/umlbed/${f#"$top"/}" 644
	done
	for f in "$top"/bench/scenarios/*.lua; do
		plan "$f" "$root/share/umlbed/bench/scenarios/${f##*/}" 644
	done
	local kernels=() gen v
	for gen in $("$top/uml-kernel/generation.sh" list); do
		for v in $("$top/uml-kernel/generation.sh" get "$gen" variants); do
			[ -x "$BUILD/kernel/$v/obj/linux" ] || continue
			plan "$BUILD/kernel/$v/obj/linux" "$lib/kernel/$v/obj/linux" 755
			plan "$BUILD/kernel/$v/variant.info" "$lib/kernel/$v/variant.info" 644
			plan "$BUILD/kernel/$v/variant.json" "$lib/kernel/$v/variant.json" 644
			for f in "$BUILD/kernel/$v/modules/"*.ko; do
				[ -f "$f" ] && plan "$f" "$lib/kernel/$v/modules/${f##*/}" 644
			done
			kernels+=("$v")
		done
	done
	[ ${#kernels[@]} -gt 0 ] || die "no kernel is built (run make first)"
	local out
	if out=$(outside "${dests[@]}" "$lib/install.info" "$manifest" "$manifest.tmp" "$root/bin/."); then
		die "$out is outside $root through a symbolic link: refusing to write there (nothing was written)"
	fi
	mkdir -p "$lib" "$root/bin"
	: >"$manifest.tmp"
	local i
	for i in "${!dests[@]}"; do
		install -D -m "${modes[i]}" "${srcs[i]}" "${dests[i]}"
		echo "${dests[i]#"$root"/}" >>"$manifest.tmp"
	done
	ln -sfn ../lib/umlbed/runner/umlbed "$root/bin/umlbed"
	echo "bin/umlbed" >>"$manifest.tmp"
	{
		echo "prefix $PREFIX"
		echo "commit $(git -C "$top" rev-parse HEAD 2>/dev/null || echo unknown)"
		echo "kernels ${kernels[*]}"
	} >"$lib/install.info"
	echo "lib/umlbed/install.info" >>"$manifest.tmp"
	echo "lib/umlbed/MANIFEST" >>"$manifest.tmp"
	mv "$manifest.tmp" "$manifest"
	echo "installed umlbed in $root (kernels: ${kernels[*]}); $PREFIX/bin/umlbed runs it"
}

# Removes what the manifest lists, then umlbed's own folders that are left empty: a shared folder such as
# PREFIX/bin or PREFIX/share/man/man1 stays, even when umlbed was the last thing in it. Every line is checked
# before anything is removed: a bad manifest removes nothing.
do_uninstall() {
	if outside "$manifest" >/dev/null || [ ! -f "$manifest" ] || [ -L "$manifest" ]; then
		die "no umlbed installed in $root (no $manifest beneath it)"
	fi
	local rel rels=() parents=() out
	while IFS= read -r rel; do
		case $rel in
		"" | /* | *..*) die "the manifest lists an unsafe path: $rel (nothing was removed)" ;;
		esac
		rels+=("$rel")
		# The entry itself may be a link (bin/umlbed is one): rm removes the link. Its folder must not lead out.
		parents+=("$root/${rel%/*}/.")
	done <"$manifest"
	if out=$(outside "${parents[@]}"); then
		die "the manifest's $out is outside $root through a symbolic link (nothing was removed)"
	fi
	local dirs=()
	for rel in "${rels[@]}"; do
		rm -f "${root:?}/$rel"
		dirs+=("$(dirname "$root/$rel")")
	done
	local d
	for d in "${dirs[@]}"; do
		while case $d in "$lib" | "$lib"/* | "$root/share/umlbed" | "$root/share/umlbed"/*) true ;; *) false ;; esac &&
			rmdir "$d" 2>/dev/null; do
			d=$(dirname "$d")
		done
	done
	echo "uninstalled umlbed from $root"
}

case $action in
install) do_install ;;
uninstall) do_uninstall ;;
*)
	echo "usage: install.sh install|uninstall [PREFIX [DESTDIR]]" >&2
	exit 2
	;;
esac
