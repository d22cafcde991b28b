#!/usr/bin/env bash
# Checks the patch series: applies to pristine 6.1 with patch and git apply, is checkpatch --strict clean, and bisects (builds after each patch).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
pristine=${KSRC:-$BUILD/src/linux-source-6.1}
mapfile -t series < <(grep -v -e '^#' -e '^[[:space:]]*$' "$top/patches/series")
n=${#series[@]}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-series.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

if [ ! -f "$pristine/Makefile" ]; then
	echo "1..0 # SKIP no pristine tree at $pristine (run make kernel)"
	exit 0
fi

echo "1..$((3 * n + 1))"
t=0
ok() { t=$((t + 1)); echo "ok $t - $*"; }
not_ok() { t=$((t + 1)); echo "not ok $t - $1"; shift; printf '#   %s\n' "$@"; }
diag() { sed 's/^/#   /'; }

# patch -p1, in order, on a hard-linked copy (patch writes new files, the pristine ones stay as they are).
cp -al "$pristine" "$tmp/patch-tree"
for p in "${series[@]}"; do
	if out=$(patch -d "$tmp/patch-tree" -p1 --no-backup-if-mismatch -i "$top/patches/$p" 2>&1); then
		ok "patch -p1 applies $p"
	else
		not_ok "patch -p1 applies $p" "$out"
	fi
done

# git apply, in order, on real copies of the files the series touches.
mkdir -p "$tmp/git-tree"
(cd "$pristine" && sed -n 's|^--- a/||p' "${series[@]/#/$top/patches/}" | sort -u |
	while read -r f; do [ -f "$f" ] && cp --parents "$f" "$tmp/git-tree/"; done)
for p in "${series[@]}"; do
	if out=$(cd "$tmp/git-tree" && git apply "$top/patches/$p" 2>&1); then
		ok "git apply applies $p"
	else
		not_ok "git apply applies $p" "$out"
	fi
done

# checkpatch --strict: no errors, warnings or checks.
for p in "${series[@]}"; do
	out=$("$pristine/scripts/checkpatch.pl" --strict --no-tree "$top/patches/$p" 2>&1)
	if echo "$out" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
		ok "checkpatch --strict clean: $p"
	else
		not_ok "checkpatch --strict clean: $p" "$(echo "$out" | grep -E '^(ERROR|WARNING|CHECK|total)')"
	fi
done

# Bisectability: one tree, one build folder, build after each patch (ccache makes the first build cheap).
src=$tmp/bisect/src
obj=$tmp/bisect/obj
mkdir -p "$obj"
cp -al "$pristine" "$src"
kmake=(make -C "$src" O="$obj" ARCH=um -j"$(nproc)" -s)
command -v ccache >/dev/null && { export CCACHE_BASEDIR=$tmp/bisect CCACHE_NOHASHDIR=1; kmake+=(CC="ccache gcc"); }
config=$BUILD/kernel/full/obj/.config
if [ ! -f "$config" ]; then
	not_ok "kernel builds after each patch" "no $config to start from (run make kernel)"
	exit 1
fi
failed=
for p in "${series[@]}"; do
	patch -d "$src" -p1 -s --no-backup-if-mismatch -i "$top/patches/$p" >/dev/null 2>&1 || { failed="$p does not apply"; break; }
	# Start from the full variant's config each time, so the trigger is on from the patch that adds it.
	cp "$config" "$obj/.config"
	"${kmake[@]}" olddefconfig >/dev/null 2>&1
	if ! out=$("${kmake[@]}" 2>&1) || [ ! -x "$obj/linux" ]; then
		failed="build fails after $p"
		echo "$out" | tail -20 | diag
		break
	fi
	echo "# built after $p"
done
if [ -z "$failed" ]; then ok "kernel builds after each of the $n patches"; else not_ok "kernel builds after each patch" "$failed"; fi
