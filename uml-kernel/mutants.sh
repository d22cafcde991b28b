#!/usr/bin/env bash
# Runs the scenario suite against each deliberately broken kernel and fails if one of them passes: mutants.sh [VARIANT...].
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(broken-rounding broken-pgoff broken-keep-cows)
# Failed runs keep their folders; here failures are the point, so keep them in a private folder that goes away.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-mutants.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
export TMPDIR=$scratch
status=0
for v in "${variants[@]}"; do
	"$top/uml-kernel/build.sh" "$v" >/dev/null || exit 2
	make -s -C "$top/uml-kernel/modules" VARIANT="$v" >/dev/null 2>&1 || true
	out=$("$BUILD/runner/umlbed" run -j "$(nproc)" --kernel "$BUILD/kernel/$v/obj/linux" "$top/scenarios" 2>/dev/null)
	caught=$(echo "$out" | grep '^not ok' | sed -e 's/^not ok [0-9]* - //' -e 's/ # .*//')
	if [ -n "$caught" ]; then
		echo "$v: caught by $(echo "$caught" | wc -l) scenario runs:"
		echo "$caught" | sed 's/^/    /'
	else
		echo "$v: NOT CAUGHT: every scenario passed"
		status=1
	fi
done
exit $status
