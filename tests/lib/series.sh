# SPDX-License-Identifier: MIT
# series.sh: the kernel generations and their series for series.t and bisect.t: generations, version[], series_dir[], tmp, tree_of, series_of.
# shellcheck shell=bash
# Its variables are for the tests that source it, and top and BUILD are theirs.
# shellcheck disable=SC2034,SC2154
generation=$top/uml-kernel/generation.sh
mapfile -t generations < <("$generation" list)
[ ${#generations[@]} -gt 0 ] || { echo "1..1"; echo "not ok 1 - uml-kernel/generation.sh lists generations"; exit 1; }
declare -A version series_dir
for g in "${generations[@]}"; do
	version[$g]=$("$generation" get "$g" version)
	series_dir[$g]=$top/$("$generation" get "$g" series)
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-series.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# The pristine tree of a generation, as build.sh chooses it (KSRC_6_12=, KSRC= of the generation's version, or
# Debian's source package unpacked under BUILD/src/).
tree_of() {
	local var=KSRC_${1//./_} ksrc
	ksrc=${!var:-${KSRC:-}}
	if [ -n "$ksrc" ] && [ -f "$ksrc/Makefile" ]; then
		local have
		have=$(sed -n -e 's/^VERSION = \([0-9]*\)$/\1/p' -e 's/^PATCHLEVEL = \([0-9]*\)$/\1/p' "$ksrc/Makefile" | paste -sd.)
		[ "$have" = "${version[$1]}" ] && { (cd "$ksrc" && pwd); return; }
	fi
	echo "$BUILD/src/$("$generation" get "$1" source)"
}

# The names of a generation's series' patches, in order, as generation.sh reads its series file.
series_of() {
	local d p
	d=$("$generation" get "$1" series) || return
	"$generation" series "$d" | while read -r p; do echo "${p#"$d/"}"; done
}
