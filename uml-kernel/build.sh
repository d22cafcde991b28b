#!/usr/bin/env bash
# Builds one patched UML kernel variant out of tree, incrementally: build.sh VARIANT.
#
# Layout under $BUILD (default: <repo>/build):
#   src/linux-source-6.1/        pristine Debian source, extracted once (unless KSRC= names a tree)
#   kernel/VARIANT/src/          hard-linked copy of the pristine tree with the variant's patches applied
#   kernel/VARIANT/obj/          O= build folder; obj/linux is the UML binary
# The source copy is re-made only when the variant's patches change, and .config only when they or a
# config fragment change, so an unchanged tree costs one no-op kbuild run.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
variant=${1:?usage: build.sh VARIANT}
BUILD=${BUILD:-$top/build}
DEBUG=${DEBUG:-1}
JOBS=${JOBS:-$(nproc)}
tarball=/usr/src/linux-source-6.1.tar.xz

vfile=$top/uml-kernel/variants/$variant
[ -f "$vfile" ] || { echo "build.sh: no variant '$variant' (see uml-kernel/variants/)" >&2; exit 2; }
mapfile -t patches < <(grep -v -e '^#' -e '^[[:space:]]*$' "$vfile")

fragments=("$top/uml-kernel/config/umlbed.config")
[ "$DEBUG" = 1 ] && fragments+=("$top/uml-kernel/config/debug.config")

say() { printf '  %-8s %s\n' "$1" "$2"; }

# The pristine tree: KSRC= if given, else Debian's tarball extracted once.
if [ -n "${KSRC:-}" ]; then
	pristine=$(cd "$KSRC" && pwd)
	[ -f "$pristine/Makefile" ] || { echo "build.sh: KSRC=$KSRC is not a kernel tree" >&2; exit 2; }
	origin="ksrc:$pristine"
else
	[ -f "$tarball" ] || { echo "build.sh: $tarball missing: install linux-source-6.1 (make deps)" >&2; exit 2; }
	pristine=$BUILD/src/linux-source-6.1
	origin="deb:$(stat -c '%s %Y' "$tarball")"
	if [ "$(cat "$BUILD/src/.stamp" 2>/dev/null)" != "$origin" ]; then
		say EXTRACT "$tarball"
		rm -rf "$BUILD/src" && mkdir -p "$BUILD/src"
		tar -C "$BUILD/src" -xf "$tarball"
		echo "$origin" > "$BUILD/src/.stamp"
	fi
fi

vdir=$BUILD/kernel/$variant
src=$vdir/src
obj=$vdir/obj
mkdir -p "$obj"

# Files a series touches, read from its diff headers.
touched() {
	local p
	for p in "$@"; do
		sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$p"
	done | sort -u
}

series_hash=$( { echo "$origin"; for p in "${patches[@]}"; do echo "$p"; cat "$top/$p"; done; } | sha256sum | cut -d' ' -f1)
if [ "$(cat "$vdir/.series" 2>/dev/null)" != "$series_hash" ]; then
	say PATCH "$variant (${#patches[@]} patches)"
	old_touched=$(cat "$vdir/.touched" 2>/dev/null || true)
	rm -rf "$src.new"
	cp -al "$pristine" "$src.new"
	for p in "${patches[@]}"; do
		# patch(1) writes a new file for each one it changes, so the pristine links stay intact.
		patch -d "$src.new" -p1 -s --no-backup-if-mismatch -i "$top/$p" ||
			{ echo "build.sh: $p does not apply" >&2; rm -rf "$src.new"; exit 1; }
	done
	rm -rf "$src" && mv "$src.new" "$src"
	new_touched=$(touched "${patches[@]/#/$top/}")
	# A file that an earlier series changed is back to its old mtime now: make it look new to kbuild.
	for f in $old_touched $new_touched; do
		[ -e "$src/$f" ] && touch "$src/$f"
	done
	echo "$new_touched" > "$vdir/.touched"
	echo "$series_hash" > "$vdir/.series"
fi

config_hash=$( { echo "$series_hash"; cat "${fragments[@]}"; } | sha256sum | cut -d' ' -f1)
kmake=(make -C "$src" O="$obj" ARCH=um -j"$JOBS")
if [ "$(cat "$vdir/.config-stamp" 2>/dev/null)" != "$config_hash" ] || [ ! -f "$obj/.config" ]; then
	say CONFIG "$variant: tinyconfig + ${fragments[*]##*/}"
	"${kmake[@]}" -s tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${fragments[@]}" >/dev/null
	"${kmake[@]}" -s olddefconfig >/dev/null
	"$top/uml-kernel/check-config.sh" "$obj/.config" "${fragments[@]}"
	echo "$config_hash" > "$vdir/.config-stamp"
fi

# ccache: one fixed base folder and no hashing of the build folder, so -g objects hit across rebuilds.
if command -v ccache >/dev/null; then
	export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1
	kmake+=(CC="ccache gcc")
fi
say BUILD "$variant"
"${kmake[@]}" -s
ln -sfn "kernel/$variant/obj/linux" "$BUILD/linux-$variant"
