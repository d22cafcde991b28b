#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds one patched UML kernel variant out of tree, incrementally: build.sh VARIANT.
#
# build.sh --configure VARIANT makes and checks the variant's .config without building it (make check runs it for
# every variant file: tests/kernel/configs.t); build.sh --tree GEN makes sure the pristine tree of GEN is there.
#
# A variant file says how it differs from its generation's base stack (the generation's "stack" key: the UML fixes,
# the series and the schedule points, each folder in its "series" file's order): "add PATH" and "drop PATH" lines for
# patches, "config NAME.config" lines for extra fragments of uml-kernel/config/, merged last (they win), and
# "generation GEN" (without one: the default generation). uml-kernel/generation.sh stack VARIANT composes the
# patches. What a generation is comes from its file, uml-kernel/generations/GEN (the Debian source package and
# tarball, the kernel version, its own config fragment, the suffix of its variant names).
# The pristine tree of generation G is KSRC_G (dots as underscores: KSRC_6_12=) or KSRC= if that tree is of the
# generation's version, else the Debian source package's tarball.
#
# Layout under $BUILD (default: <repo>/build):
#   src/SOURCE/                  pristine Debian source (the generation's "source" package), extracted once
#                                (unless KSRC names a tree)
#   kernel/VARIANT/src/          hard-linked copy of the pristine tree with the variant's patches applied
#   kernel/VARIANT/obj/          O= build folder; obj/linux is the UML binary
#   kernel/VARIANT/variant.info  "generation GEN", "base NAME" (the variant's name without the generation's
#                                suffix), "export EXPORT_SYMBOL|EXPORT_SYMBOL_GPL|none" (the export its patches
#                                give invalidate_mmap_range) and "configs NAME..." (the variant's own fragments),
#                                written on every build: umlbed run --generation GEN --variant NAME reads it
#   kernel/VARIANT/variant.json  generation.sh json VARIANT: every definition as generation.sh resolved it, and the
#                                variant's name; written on every build: the scenarios read it (umlbed.definition)
# The source copy is re-made only when the variant's patches change, and .config only when they or a
# config fragment change, so an unchanged tree costs one no-op kbuild run. An edit of the series whose objects come
# out as they were (a comment) runs no kbuild at all: see same_objects below; UMLBED_SAME_OBJECTS=0 turns that off.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
generation=$top/uml-kernel/generation.sh
BUILD=${BUILD:-$top/build}
DEBUG=${DEBUG:-1}
JOBS=${JOBS:-$(nproc)}

vconfigs=()
case ${1:-} in
-h | --help)
	# The usage is this file's opening comment.
	sed -n '2,/^set -euo pipefail$/{/^set /d;/SPDX-License-Identifier/d;s/^# \{0,1\}//;p}' "$0"
	exit 0
	;;
esac
usage='usage: build.sh VARIANT | build.sh --configure VARIANT | build.sh --tree GENERATION'
configure_only=
if [ "${1:-}" = --tree ]; then
	gen=${2:?$usage}
	variant=
else
	if [ "${1:-}" = --configure ]; then
		configure_only=1
		shift
	fi
	variant=${1:?$usage}
	# generation.sh resolves the name (kasan-6.12: the file kasan at 6.12) and says when it is none.
	gen=$("$generation" of "$variant" 2>&1) || { echo "build.sh: ${gen#generation.sh: }" >&2; exit 2; }
	# The variant file holds only its differences from the generation's base stack: generation.sh composes them.
	stack=$("$generation" stack "$variant") || exit 2
	mapfile -t patches <<<"$stack"
	cfgs=$("$generation" configs "$variant") || exit 2
	[ -z "$cfgs" ] || mapfile -t vconfigs <<<"$cfgs"
fi
gen_key() { "$generation" get "$gen" "$1"; }
version=$(gen_key version)
srcpkg=$(gen_key source)
tarball=$(gen_key tarball)
genconfig=$(gen_key config)

fragments=("$top/uml-kernel/config/umlbed.config")
[ "$DEBUG" = 1 ] && fragments+=("$top/uml-kernel/config/debug.config")
# Options that one generation names differently, or only one has, go in that generation's own fragment.
if [ "$genconfig" != none ]; then
	[ -f "$top/uml-kernel/config/$genconfig" ] ||
		{ echo "build.sh: generation $gen: no config fragment uml-kernel/config/$genconfig" >&2; exit 2; }
	fragments+=("$top/uml-kernel/config/$genconfig")
fi
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
	# A tree must not be patched with another generation's series: with several generations in VARIANTS, KSRC=
	# names one.
	have=$(tree_gen "$pristine")
	[ "$have" = "$version" ] || {
		echo "build.sh: ${variant:-generation $gen} wants a $version.y tree but $ksrc is $have: give one as $ksrc_var=" >&2
		exit 2
	}
	origin="ksrc:$pristine"
else
	[ -f "$tarball" ] || { echo "build.sh: $tarball missing: install $srcpkg (make deps)" >&2; exit 2; }
	pristine=$BUILD/src/$srcpkg
	stamp=$BUILD/src/$srcpkg.stamp
	origin="deb:$(stat -c '%s %Y' "$tarball")"
	if [ "$(cat "$stamp" 2>/dev/null)" != "$origin" ]; then
		say EXTRACT "$tarball" >&2
		rm -rf "$pristine" && mkdir -p "$BUILD/src"
		tar -C "$BUILD/src" -xf "$tarball"
		[ -f "$pristine/Makefile" ] || { echo "build.sh: $tarball has no $srcpkg/" >&2; exit 1; }
		echo "$origin" > "$stamp"
	fi
fi

# The pristine tree's real folder: a BUILD/src entry may be a symbolic link to another build folder's tree, and
# cp -al of a link copies the link, so that patching the variant's tree would write into the tree it points to.
pristine=$(cd "$pristine" && pwd -P)

if [ -z "$variant" ]; then
	echo "$pristine"
	exit 0
fi

# Files a series touches, read from its diff headers.
touched() {
	local p
	for p in "$@"; do
		sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$p"
	done | sort -u
}

# configure SRC OBJ [TINY]: the variant's .config in the build folder OBJ from the tree SRC: tinyconfig, the fragments
# merged in order, olddefconfig, then check-config.sh, which fails naming each fragment option olddefconfig dropped
# and the "depends on" lines that say why. Both a build and --configure make it here, so a check cannot differ from a
# build. TINY keeps tinyconfig's .config, which depends on the tree and the compiler only, for the next configuration
# in the same tree (--configure's): two of the three Kconfig runs, each a hundred compiler probes.
configure() {
	local kmk=(make -C "$1" O="$2" ARCH=um -j"$JOBS")
	rm -f "$2/.config"
	if [ -n "${3:-}" ] && [ -f "$3" ]; then
		cp "$3" "$2/.config"
	else
		"${kmk[@]}" -s tinyconfig >/dev/null || return
		[ -z "${3:-}" ] || cp "$2/.config" "$3"
	fi
	"$1/scripts/kconfig/merge_config.sh" -m -O "$2" "$2/.config" "${fragments[@]}" >/dev/null || return
	"${kmk[@]}" -s olddefconfig >/dev/null || return
	"$top/uml-kernel/check-config.sh" "$2/.config" "${fragments[@]}"
}

# --configure: the .config alone, in BUILD/configs/, from a tree that has the stack's Kconfig files and nothing
# else of it (a copy of the pristine tree in hard links: a few seconds, once per set of Kconfig files). What
# .config is made of is what a build hashes (config_hash below): the fragments and the Kconfig files the stack
# touches. A configuration that passed is not made again: its key (that hash, this script, check-config.sh and the
# compiler, whose version Kconfig reads) is kept in BUILD/configs/checked/, and in UMLBED_KERNEL_CACHE's configs/
# when that is set, so that a warm clean room checks nothing twice.
if [ -n "$configure_only" ]; then
	cdir=$BUILD/configs
	mkdir -p "$cdir/checked"
	kcache=${UMLBED_KERNEL_CACHE:+$UMLBED_KERNEL_CACHE/configs}
	# checked KEY: a configuration of this key passed before, here or in the kernel cache.
	checked() { [ -f "$cdir/checked/$1" ] || { [ -n "$kcache" ] && [ -f "$kcache/$1" ]; }; }
	# pass KEY...: remembers that the configuration of each KEY passed.
	pass() {
		local k
		for k; do
			echo "$variant" >"$cdir/checked/$k"
			[ -z "$kcache" ] || { mkdir -p "$kcache" && echo "$variant" >"$kcache/$k"; }
		done
	}
	# The tools the check runs and the compiler, whose version Kconfig reads, belong to every key.
	tools=$( { cat "$top/uml-kernel/build.sh" "$top/uml-kernel/check-config.sh"; gcc --version | head -n 1; } | sha256sum)
	# First the variant's own inputs, whole (its patches, its fragments): an unchanged variant costs no patching.
	vkey=v-$( {
		echo "$origin $tools"
		for p in "${patches[@]}"; do sha256sum <"$top/$p"; done
		cat "${fragments[@]}"
	} | sha256sum | cut -c1-24)
	if checked "$vkey"; then
		say CHECKED "$variant: its configuration passed before ($vkey)"
		exit 0
	fi
	scratch=$(mktemp -d "$cdir/.scratch.XXXXXX")
	trap 'rm -rf "$scratch"' EXIT
	mapfile -t files < <(touched "${patches[@]/#/$top/}")
	kfiles=()
	for f in "${files[@]}"; do
		case $f in */Kconfig* | Kconfig*) kfiles+=("$f") ;; esac
		[ -e "$pristine/$f" ] || continue
		mkdir -p "$scratch/$(dirname "$f")"
		cp "$pristine/$f" "$scratch/$f"
	done
	for p in "${patches[@]}"; do
		patch -d "$scratch" -p1 -s --no-backup-if-mismatch -i "$top/$p" >/dev/null ||
			{ echo "build.sh: $variant: $p does not apply" >&2; exit 1; }
	done
	config_hash=$( { echo "$origin"; cat "${fragments[@]}" "${kfiles[@]/#/$scratch/}"; } | sha256sum | cut -d' ' -f1)
	# Then what .config is made of: another variant with the same fragments and Kconfig files made it already.
	key=c-$(echo "$config_hash $tools" | sha256sum | cut -c1-24)
	if checked "$key"; then
		pass "$vkey"
		say CHECKED "$variant: its configuration passed before ($key)"
		exit 0
	fi
	khash=$( {
		echo "$origin"
		for f in "${kfiles[@]}"; do echo "$f"; cat "$scratch/$f" 2>/dev/null || echo "(removed)"; done
	} | sha256sum | cut -c1-16)
	tree=$cdir/tree-$khash
	# One configuration at a time in a tree and its build folder.
	exec 9>"$cdir/.lock-$khash"
	flock 9
	if [ ! -f "$cdir/.tree-$khash" ]; then
		say TREE "$variant: pristine tree and the stack's Kconfig files (${kfiles[*]:-none})"
		# "/.": the tree's files, also where BUILD/src/SOURCE is a symbolic link to another build's tree (a
		# copy of the link itself would make every later write land in that tree).
		rm -rf "$tree" && cp -al "$pristine/." "$tree"
		for f in "${kfiles[@]}"; do
			# A new file, never a write through a hard link into the pristine tree.
			rm -f "$tree/$f"
			[ -e "$scratch/$f" ] || continue
			mkdir -p "$tree/$(dirname "$f")" && cp "$scratch/$f" "$tree/$f"
		done
		touch "$cdir/.tree-$khash"
		# The trees of Kconfig files no stack has now go: the newest six stay.
		find "$cdir" -maxdepth 1 -name '.tree-*' -printf '%T@ %f\n' | sort -rn | tail -n +7 | cut -d' ' -f2 |
			while read -r old; do
				h=${old#.tree-}
				rm -rf "${cdir:?}/tree-${h:?}" "$cdir/obj-$h" "$cdir/.lock-$h" "$cdir/.tree-$h"
			done
	fi
	touch "$cdir/.tree-$khash"
	say CONFIG "$variant: tinyconfig + ${fragments[*]##*/} (configure only)"
	if ! configure "$tree" "$cdir/obj-$khash" "$cdir/obj-$khash/tinyconfig-$(gcc --version | head -n 1 | sha256sum | cut -c1-12)"; then
		echo "build.sh: $variant: its configuration drops fragment options (above): its file in uml-kernel/variants/" >&2
		exit 1
	fi
	# The .config and the hash a build of the variant writes to .config-stamp, to compare the two.
	cp "$cdir/obj-$khash/.config" "$cdir/$variant.config"
	echo "$config_hash" >"$cdir/$variant.config-stamp"
	pass "$vkey" "$key"
	exit 0
fi

vdir=$BUILD/kernel/$variant
src=$vdir/src
obj=$vdir/obj
mkdir -p "$obj"

# The series is its patches' contents in order, not their paths: moving a patch file costs no rebuild.
series_hash=$( { echo "$origin"; for p in "${patches[@]}"; do sha256sum < "$top/$p"; done; } | sha256sum | cut -d' ' -f1)
# The files an edit of the series replaced in an existing tree ("+F" added, "-F" removed), and the series before it.
replaced=()
old_series=$(cat "$vdir/.series" 2>/dev/null || true)
if [ "$old_series" != "$series_hash" ]; then
	say PATCH "$variant (Linux $gen, ${#patches[@]} patches)"
	old_touched=$(cat "$vdir/.touched" 2>/dev/null || true)
	new_touched=$(touched "${patches[@]/#/$top/}")
	if [ -d "$src" ] && [ -f "$vdir/.touched" ] && [ "$(cat "$vdir/.origin" 2>/dev/null)" = "$origin" ]; then
		# An edited series on the same pristine tree: apply it to copies of the files it or the old one touches,
		# and replace in the tree only the files whose text changed. The others keep their times, so kbuild
		# recompiles only what the edit changed (a patched header would otherwise rebuild half the kernel).
		scratch=$vdir/.patch-scratch
		rm -rf "$scratch" && mkdir -p "$scratch"
		for f in $old_touched $new_touched; do
			[ -e "$pristine/$f" ] || continue
			mkdir -p "$scratch/$(dirname "$f")"
			cp "$pristine/$f" "$scratch/$f"
		done
		for p in "${patches[@]}"; do
			patch -d "$scratch" -p1 -s --no-backup-if-mismatch -i "$top/$p" ||
				{ echo "build.sh: $p does not apply" >&2; rm -rf "$scratch"; exit 1; }
		done
		for f in $(printf '%s\n' "$old_touched" "$new_touched" | sort -u); do
			if [ -e "$scratch/$f" ]; then
				cmp -s "$scratch/$f" "$src/$f" && continue
				[ -e "$src/$f" ] && replaced+=("$f") || replaced+=("+$f")
				mkdir -p "$src/$(dirname "$f")"
				# A new file, never a write through a hard link into the pristine tree.
				cp "$scratch/$f" "$src/$f.umlbed-new" && mv "$src/$f.umlbed-new" "$src/$f"
			else
				rm -f "$src/$f"
				replaced+=("-$f")
			fi
		done
		rm -rf "$scratch"
	else
		rm -rf "$src.new"
		# "/.": the pristine files, not a symbolic link to them (see --configure's tree above).
		cp -al "$pristine/." "$src.new"
		for p in "${patches[@]}"; do
			# patch(1) writes a new file for each one it changes, so the pristine links stay intact.
			patch -d "$src.new" -p1 -s --no-backup-if-mismatch -i "$top/$p" ||
				{ echo "build.sh: $p does not apply" >&2; rm -rf "$src.new"; exit 1; }
		done
		rm -rf "$src" && mv "$src.new" "$src"
		replaced=("*")
		# A file that an earlier series changed is back to its old mtime now: make it look new to kbuild.
		for f in $old_touched $new_touched; do
			[ -e "$src/$f" ] && touch "$src/$f"
		done
	fi
	echo "$new_touched" > "$vdir/.touched"
	echo "$origin" > "$vdir/.origin"
	echo "$series_hash" > "$vdir/.series"
fi

# .config depends on the fragments and on the Kconfig files of the tree, of which the patches change only those they
# touch: an edit elsewhere in the series (a .c file) keeps the .config and its time, so kbuild rebuilds no more.
kconfigs=()
while read -r f; do
	case $f in */Kconfig* | Kconfig*) kconfigs+=("$src/$f") ;; esac
done <"$vdir/.touched"
config_hash=$( { echo "$origin"; cat "${fragments[@]}" "${kconfigs[@]}"; } | sha256sum | cut -d' ' -f1)
kmake=(make -C "$src" O="$obj" ARCH=um -j"$JOBS")
# ccache: one fixed base folder and no hashing of the build folder, so -g objects hit across rebuilds.
kcc=()
if command -v ccache >/dev/null; then
	export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1
	kcc=(CC="ccache gcc")
fi
# A build that finished writes .done with the hash of what it was made with (KBUILD_TARGETS included). When that
# matches and nothing in src/ or obj/ is newer than .done (a changed, added or removed file changes its own or its
# folder's time), kbuild would find nothing to do: its run, 8 to 12 s of walking the tree, is skipped. make check
# asks for each of its kernels again after make has built them.
# done_key_of SERIES_HASH: that key for a series.
done_key_of() {
	{
		echo "$1 $config_hash ${kmake[*]:0:5} ${kcc[*]} targets:${KBUILD_TARGETS:-}"
		cat "$top/uml-kernel/build.sh" "$top/uml-kernel/check-config.sh"
	} | sha256sum | cut -c1-24
}
done_key=$(done_key_of "$series_hash")
# UMLBED_KERNEL_CACHE=DIR keeps each finished build folder (obj/) under the hash of everything it is made of: the
# pristine source, the series and the .config inputs (both hashed above), the kbuild targets, this script and
# check-config.sh, the compiler and linker versions, and the build folder's path (kbuild's .cmd files hold absolute
# source paths). The
# clean room sets it, so a warm CI run copies a kernel it built before instead of compiling it again from ccache.
# A cached folder is copied in only where obj/ is not already that build; the source files written since the
# pristine extraction (the patched ones) get the pristine Makefile's time, older
# than every object, so kbuild's later no-op runs see nothing to redo.
cache_key=
restored=
if [ -n "${UMLBED_KERNEL_CACHE:-}" ]; then
	cache_key=$( {
		echo "$variant $BUILD $series_hash $config_hash targets:${KBUILD_TARGETS:-}"
		cat "$top/uml-kernel/build.sh" "$top/uml-kernel/check-config.sh"
		gcc --version | head -n 1
		ld --version | head -n 1
	} | sha256sum | cut -c1-24)
	centry=$UMLBED_KERNEL_CACHE/$variant/$cache_key
	if [ "$(cat "$vdir/.cached" 2>/dev/null)" != "$cache_key" ] && [ -f "$centry/.config" ]; then
		say CACHED "$variant ($centry)"
		rm -rf "$obj" && cp -a "$centry" "$obj"
		find "$src" -type f -newer "$pristine/Makefile" -exec touch -r "$pristine/Makefile" {} +
		echo "$cache_key" >"$vdir/.cached"
		# The entry's .config is this config_hash's, made and checked by the build that stored it.
		echo "$config_hash" >"$vdir/.config-stamp"
		echo "$done_key" >"$vdir/.done"
		restored=1
	fi
fi
reconfigured=
if [ "$(cat "$vdir/.config-stamp" 2>/dev/null)" != "$config_hash" ] || [ ! -f "$obj/.config" ]; then
	reconfigured=1
	say CONFIG "$variant: tinyconfig + ${fragments[*]##*/}"
	configure "$src" "$obj" ||
		{ echo "build.sh: $variant: its configuration drops fragment options (above): its file in uml-kernel/variants/" >&2; exit 1; }
	echo "$config_hash" > "$vdir/.config-stamp"
fi

# same_objects: after an edit of the series that replaced only .c files of a tree whose last build was complete,
# whether every object they make comes out byte for byte as that build made it. Each is compiled again by the command
# kbuild saved in its .cmd file (through ccache, as kbuild would), and its dependencies are written by kbuild's own
# fixdep. An edit of a comment or of a line no object depends on then leaves the kernel as it was, and kbuild's walk
# of the tree (6 s) and the relink (5 s) are skipped; so are KBUILD_TARGETS, which those objects' text decides as it
# decides the kernel's. When one object differs, every object and .cmd file is put back
# and kbuild builds as usual. Options that add steps to kbuild's compile rule (symbol versions, mcount records,
# objtool, gcov notes, trimmed exports) and flags from the environment leave it to kbuild.
same_objects() {
	local f o d n cmdline ok=0
	local -a objs=()
	rm -f "$vdir/.same-messages"
	[ "${UMLBED_SAME_OBJECTS:-1}" = 1 ] && [ ${#replaced[@]} -gt 0 ] && [ -z "$reconfigured" ] || return 1
	[ -z "${KCFLAGS:-}${KCPPFLAGS:-}${KAFLAGS:-}${KBUILD_EXTRA_WARN:-}${LLVM:-}" ] || return 1
	[ -n "$old_series" ] && [ "$(cat "$vdir/.done" 2>/dev/null)" = "$(done_key_of "$old_series")" ] || return 1
	! grep -qE '^CONFIG_(MODVERSIONS|TRIM_UNUSED_KSYMS|FTRACE_MCOUNT_USE_RECORDMCOUNT|OBJTOOL|GCOV|LTO_CLANG)[A-Z_]*=' \
		"$obj/.config" || return 1
	for f in "${replaced[@]}"; do
		case $f in [-+*]* | *[!A-Za-z0-9_./-]*) return 1 ;; esac
		case $f in *.c) ;; *) return 1 ;; esac
		d=$(dirname "$f") n=$(basename "$f" .c)
		[ -f "$obj/$d/$n.o" ] && [ -f "$obj/$d/.$n.o.cmd" ] || return 1
		objs+=("$d/$n.o")
	done
	# Nothing but the replaced files and their folders changed since the last build ended.
	while IFS= read -r f; do
		for o in "${replaced[@]}"; do
			[ "$f" = "$src/$o" ] || [ "$f" = "$src/$(dirname "$o")" ] && continue 2
		done
		return 1
	done < <(find "$src" "$obj" -newer "$vdir/.done" -print)
	for o in "${objs[@]}"; do
		d=$(dirname "$o") n=$(basename "$o")
		cmdline=$(sed -n '1s/^\(saved\)\{0,1\}cmd_[^ ]* := //p' "$obj/$d/.$n.cmd")
		# A "$" is make's quoting: such a command is not the shell's as it stands.
		case $cmdline in '' | *'$'*) ok=1 ;; esac
		[ "$ok" = 0 ] || break
		mv "$obj/$o" "$obj/$d/.$n.umlbed-old"
		cp -p "$obj/$d/.$n.cmd" "$obj/$d/.$n.cmd.umlbed-old"
		# The compiler's messages are shown when the object is kept; else kbuild's compile shows them.
		if ! (cd "$obj" && sh -c "$cmdline" 2>>"$vdir/.same-messages" &&
			scripts/basic/fixdep "$d/.$n.d" "$o" "$cmdline" >"$d/.$n.cmd" && rm -f "$d/.$n.d"); then
			ok=1
			break
		fi
		cmp -s "$obj/$o" "$obj/$d/.$n.umlbed-old" || { ok=1; break; }
	done
	for o in "${objs[@]}"; do
		d=$(dirname "$o") n=$(basename "$o")
		[ -f "$obj/$d/.$n.umlbed-old" ] || continue
		mv "$obj/$d/.$n.umlbed-old" "$obj/$o"
		if [ "$ok" = 0 ]; then
			rm -f "$obj/$d/.$n.cmd.umlbed-old"
			# The source is no newer than its object, so kbuild's next walk finds nothing to redo here either.
			touch -r "$obj/$o" "$src/${o%.o}.c"
		else
			mv "$obj/$d/.$n.cmd.umlbed-old" "$obj/$d/.$n.cmd"
			rm -f "$obj/$d/.$n.d"
		fi
	done
	[ "$ok" != 0 ] || cat "$vdir/.same-messages" >&2 2>/dev/null || true
	rm -f "$vdir/.same-messages"
	return "$ok"
}

if [ -z "$restored" ] && same_objects; then
	say SAME "$variant: the edit leaves every object as it was (${replaced[*]}): no kbuild, no link"
	echo "$done_key" >"$vdir/.done"
	restored=1
fi
if [ -z "$restored" ] && [ "$(cat "$vdir/.done" 2>/dev/null)" = "$done_key" ] &&
	[ -z "$(find "$src" "$obj" -newer "$vdir/.done" -print -quit)" ]; then
	say UPTODATE "$variant"
	restored=1
fi
# KBUILD_TARGETS: the kbuild targets to make instead of the whole kernel (tests/kernel/build.t builds the objects
# its edits reach: what it checks is the tree build.sh patches, not a link).
if [ -z "$restored" ]; then
	rm -f "$vdir/.done"
	say BUILD "$variant${KBUILD_TARGETS:+ ($KBUILD_TARGETS)}"
	# shellcheck disable=SC2086 # KBUILD_TARGETS is a list of targets.
	"${kmake[@]}" "${kcc[@]}" -s ${KBUILD_TARGETS:-}
	if [ -n "$cache_key" ] && [ "$(cat "$vdir/.cached" 2>/dev/null)" != "$cache_key" ]; then
		# Stored whole or not at all (a copy under a temporary name, renamed), and only by the build that made
		# this key's folder; the variant keeps its newest two.
		mkdir -p "$UMLBED_KERNEL_CACHE/$variant"
		rm -rf "$centry.tmp" && cp -a "$obj" "$centry.tmp" && rm -rf "$centry" && mv "$centry.tmp" "$centry"
		find "$UMLBED_KERNEL_CACHE/$variant" -mindepth 1 -maxdepth 1 -type d -printf '%T@ %p\n' |
			sort -rn | tail -n +3 | cut -d' ' -f2- | xargs -r -d '\n' rm -rf
		echo "$cache_key" >"$vdir/.cached"
	fi
	echo "$done_key" >"$vdir/.done"
fi
ln -sfn "kernel/$variant/obj/linux" "$BUILD/linux-$variant"
# What the runner's --generation GEN --variant NAME looks for (variant.info), and the definitions the scenarios expect
# their export and fragments from (variant.json): from generation.sh, written on every build, replaced whole.
"$generation" info "$variant" >"$vdir/variant.info.tmp"
mv "$vdir/variant.info.tmp" "$vdir/variant.info"
# generation.sh json takes about 3 s of bash for 41 variant names, so its document is made once for each state of what
# it reads and kept in BUILD/definitions/: generation.sh, the generation and variant files, and in every folder that
# one of them names, the series file and each patch's name and export lines (json reads no other line of a patch).
defs_key=$( {
	cat "$generation"
	for f in "$top"/uml-kernel/generations/* "$top"/uml-kernel/variants/*; do
		[ -f "$f" ] && printf '%s\n' "${f#"$top"/}" && cat "$f"
	done
	for f in "$top"/uml-kernel/generations/* "$top"/uml-kernel/variants/*; do
		[ -f "$f" ] && sed -e 's/#.*//' -e 's/^[[:space:]]*[^[:space:]]*//' "$f"
	done | tr -s '[:blank:]' '\n' | sed -e 's|\$gen|*|g' -e 's|/[^/]*\.patch$||' | sort -u | while read -r d; do
		for p in "$top"/$d; do
			[ -d "$p" ] || continue
			printf 'folder %s\n' "${p#"$top"/}"
			cat "$p/series" 2>/dev/null || true
			for f in "$p"/*.patch; do [ -f "$f" ] && echo "${f##*/}"; done
			grep -H '^+EXPORT_SYMBOL' "$p"/*.patch 2>/dev/null || true
		done
	done
} | sha256sum | cut -c1-24)
defs=$BUILD/definitions/$defs_key.json
if [ ! -f "$defs" ]; then
	mkdir -p "$BUILD/definitions"
	"$generation" json >"$defs.tmp.$$" && mv "$defs.tmp.$$" "$defs"
	# The newest twenty states stay.
	find "$BUILD/definitions" -maxdepth 1 -name '*.json' -printf '%T@ %p\n' | sort -rn | tail -n +21 | cut -d' ' -f2- |
		xargs -r -d '\n' rm -f
fi
# generation.sh json VARIANT is that document with "variant" first.
{ printf '{"variant":"%s",\n' "$variant"; tail -c +2 "$defs"; } >"$vdir/variant.json.tmp"
mv "$vdir/variant.json.tmp" "$vdir/variant.json"
