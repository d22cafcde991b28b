#!/usr/bin/env bash
# Builds one patched UML kernel variant out of tree, incrementally: build.sh VARIANT.
#
# A variant file lists its patches, its kernel generation in a line "generation 6.12" (default 6.1), and any
# extra config fragments of uml-kernel/config/ in lines "config NAME.config", merged last (they win).
# The pristine tree of generation G is KSRC_G (dots as underscores: KSRC_6_12=) or KSRC= if that tree is a G.y
# kernel, else Debian's linux-source-G.
#
# Layout under $BUILD (default: <repo>/build):
#   src/linux-source-G/          pristine Debian source of generation G, extracted once (unless KSRC names a tree)
#   kernel/VARIANT/src/          hard-linked copy of the pristine tree with the variant's patches applied
#   kernel/VARIANT/obj/          O= build folder; obj/linux is the UML binary
# The source copy is re-made only when the variant's patches change, and .config only when they or a
# config fragment change, so an unchanged tree costs one no-op kbuild run.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
DEBUG=${DEBUG:-1}
JOBS=${JOBS:-$(nproc)}

# build.sh --tree GEN: only make sure the pristine tree of GEN is there, and print its path.
vconfigs=()
if [ "${1:-}" = --tree ]; then
	gen=${2:?usage: build.sh --tree GENERATION}
	variant=
else
	variant=${1:?usage: build.sh VARIANT | build.sh --tree GENERATION}
	vfile=$top/uml-kernel/variants/$variant
	[ -f "$vfile" ] || { echo "build.sh: no variant '$variant' (see uml-kernel/variants/)" >&2; exit 2; }
	gen=$(sed -n 's/^generation[[:space:]]\{1,\}\([0-9.]*\)[[:space:]]*$/\1/p' "$vfile")
	gen=${gen:-6.1}
	mapfile -t vconfigs < <(sed -n 's/^config[[:space:]]\{1,\}\([^[:space:]]*\)[[:space:]]*$/\1/p' "$vfile")
	mapfile -t patches < <(grep -v -e '^#' -e '^[[:space:]]*$' -e '^generation[[:space:]]' -e '^config[[:space:]]' "$vfile")
fi
tarball=/usr/src/linux-source-$gen.tar.xz

fragments=("$top/uml-kernel/config/umlbed.config")
[ "$DEBUG" = 1 ] && fragments+=("$top/uml-kernel/config/debug.config")
# Options that one generation names differently, or only one has, go in that generation's own fragment.
[ -f "$top/uml-kernel/config/$gen.config" ] && fragments+=("$top/uml-kernel/config/$gen.config")
# The variant's own fragments come last, so an option they set overrides the shared ones.
for c in "${vconfigs[@]}"; do
	[ -f "$top/uml-kernel/config/$c" ] || { echo "build.sh: $variant: no config fragment uml-kernel/config/$c" >&2; exit 2; }
	fragments+=("$top/uml-kernel/config/$c")
done

say() { printf '  %-8s %s\n' "$1" "$2"; }

# VERSION.PATCHLEVEL of a kernel tree, e.g. 6.12.
tree_gen() {
	sed -n -e 's/^VERSION = \([0-9]*\)$/\1/p' -e 's/^PATCHLEVEL = \([0-9]*\)$/\1/p' "$1/Makefile" | paste -sd.
}

# The pristine tree: KSRC_<generation> or KSRC= if given, else Debian's tarball extracted once.
ksrc_var=KSRC_${gen//./_}
ksrc=${!ksrc_var:-${KSRC:-}}
if [ -n "$ksrc" ]; then
	pristine=$(cd "$ksrc" && pwd)
	[ -f "$pristine/Makefile" ] || { echo "build.sh: $ksrc is not a kernel tree" >&2; exit 2; }
	# A 6.1 tree must not be patched with the 6.12 series: with both generations in VARIANTS, KSRC= names one.
	have=$(tree_gen "$pristine")
	[ "$have" = "$gen" ] || {
		echo "build.sh: ${variant:-generation $gen} wants a $gen.y tree but $ksrc is $have: give one as $ksrc_var=" >&2
		exit 2
	}
	origin="ksrc:$pristine"
else
	[ -f "$tarball" ] || { echo "build.sh: $tarball missing: install linux-source-$gen (make deps)" >&2; exit 2; }
	pristine=$BUILD/src/linux-source-$gen
	stamp=$BUILD/src/linux-source-$gen.stamp
	origin="deb:$(stat -c '%s %Y' "$tarball")"
	# Before generations, the 6.1 tree's stamp was src/.stamp.
	[ "$gen" = 6.1 ] && [ -f "$BUILD/src/.stamp" ] && [ ! -f "$stamp" ] && mv "$BUILD/src/.stamp" "$stamp"
	if [ "$(cat "$stamp" 2>/dev/null)" != "$origin" ]; then
		say EXTRACT "$tarball" >&2
		rm -rf "$pristine" && mkdir -p "$BUILD/src"
		tar -C "$BUILD/src" -xf "$tarball"
		[ -f "$pristine/Makefile" ] || { echo "build.sh: $tarball has no linux-source-$gen/" >&2; exit 1; }
		echo "$origin" > "$stamp"
	fi
fi

if [ -z "$variant" ]; then
	echo "$pristine"
	exit 0
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

# The series is its patches' contents in order, not their paths: moving a patch file costs no rebuild.
series_hash=$( { echo "$origin"; for p in "${patches[@]}"; do sha256sum < "$top/$p"; done; } | sha256sum | cut -d' ' -f1)
if [ "$(cat "$vdir/.series" 2>/dev/null)" != "$series_hash" ]; then
	say PATCH "$variant (Linux $gen, ${#patches[@]} patches)"
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
