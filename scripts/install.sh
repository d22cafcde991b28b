#!/bin/bash
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
#   PREFIX/lib/umlbed/kernel/VARIANT/          obj/linux, variant.info, modules/*.ko: each generation's default
#                                              variants (their "variants" key) that are built
#   PREFIX/lib/umlbed/install.info             what was installed from where: prefix, commit, kernels
#   PREFIX/lib/umlbed/MANIFEST                 every installed path, for uninstall
#   PREFIX/share/man/man1/umlbed.1             the man page
#   PREFIX/share/umlbed/meta/                  the Lua language server's definitions of the API
# Kernel objtrees (for building one's own module) are not installed: they stay in the build, where
# `umlbed kbuild` names them.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
action=${1:-}
PREFIX=${2:-/usr/local}
DESTDIR=${3:-}
case $PREFIX in
/*) ;;
*)
	echo "install.sh: PREFIX must be an absolute path, not $PREFIX" >&2
	exit 2
	;;
esac
root=$DESTDIR$PREFIX
lib=$root/lib/umlbed
manifest=$lib/MANIFEST

die() {
	echo "install.sh: $*" >&2
	exit 1
}

# put SRC DEST MODE: one file, its parent made, its path recorded relative to the root.
put() {
	install -D -m "$3" "$1" "$2"
	echo "${2#"$root"/}" >>"$manifest.tmp"
}

do_install() {
	[ -x "$BUILD/runner/umlbed" ] || die "no runner at $BUILD/runner/umlbed (run make first)"
	[ -x "$BUILD/guest/umlbed-agent" ] || die "no agent at $BUILD/guest/umlbed-agent (run make first)"
	mkdir -p "$lib"
	: >"$manifest.tmp"
	put "$BUILD/runner/umlbed" "$lib/runner/umlbed" 755
	put "$BUILD/guest/umlbed-agent" "$lib/guest/umlbed-agent" 755
	put "$top/docs/umlbed.1" "$root/share/man/man1/umlbed.1" 644
	local f
	# The definitions keep their folders: umlbed/bed.lua is what LuaLS finds for require "umlbed.bed".
	while IFS= read -r -d '' f; do
		put "$f" "$root/share/umlbed/meta/${f#"$top"/lua-bindings/meta/}" 644
	done < <(find "$top/lua-bindings/meta" -type f -print0 | sort -z)
	local kernels=() gen v
	for gen in $("$top/uml-kernel/generation.sh" list); do
		for v in $("$top/uml-kernel/generation.sh" get "$gen" variants); do
			[ -x "$BUILD/kernel/$v/obj/linux" ] || continue
			put "$BUILD/kernel/$v/obj/linux" "$lib/kernel/$v/obj/linux" 755
			put "$BUILD/kernel/$v/variant.info" "$lib/kernel/$v/variant.info" 644
			for f in "$BUILD/kernel/$v/modules/"*.ko; do
				[ -f "$f" ] && put "$f" "$lib/kernel/$v/modules/${f##*/}" 644
			done
			kernels+=("$v")
		done
	done
	[ ${#kernels[@]} -gt 0 ] || die "no kernel is built (run make first)"
	mkdir -p "$root/bin"
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
# PREFIX/bin or PREFIX/share/man/man1 stays, even when umlbed was the last thing in it.
do_uninstall() {
	[ -f "$manifest" ] || die "no umlbed installed in $root (no $manifest)"
	local rel dirs=()
	while IFS= read -r rel; do
		case $rel in
		"" | /* | *..*) die "the manifest lists an unsafe path: $rel" ;;
		esac
		rm -f "${root:?}/$rel"
		dirs+=("$(dirname "$root/$rel")")
	done <"$manifest"
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
