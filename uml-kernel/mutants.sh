#!/usr/bin/env bash
# Runs the scenario suite against each deliberately broken kernel and fails unless some scenario FAILS on each: mutants.sh [VARIANT...].
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
variants=("$@")
# By default the default generation's mutants (uml-kernel/generations/; make mutants GEN=... names another's).
if [ ${#variants[@]} = 0 ]; then
	read -ra variants <<<"$("$top/uml-kernel/generation.sh" get "$("$top/uml-kernel/generation.sh" default)" mutants)"
fi
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
	# Caught means an expectation failed (FAILED): a crash, a timeout or an error of the set-up says nothing about
	# whether the suite can tell this port is wrong, so those are listed apart and do not count.
	caught=$(echo "$out" | grep '^not ok .* # FAILED$' | sed -e 's/^not ok [0-9]* - //' -e 's/ # .*//')
	other=$(echo "$out" | grep '^not ok' | grep -v ' # FAILED$' | sed -e 's/^not ok [0-9]* - //')
	if [ -n "$caught" ]; then
		echo "$v: caught by $(echo "$caught" | wc -l) scenario runs (FAILED):"
		awk '{ print "    " $0 }' <<<"$caught"
	else
		echo "$v: NOT CAUGHT: no scenario run FAILED"
		status=1
	fi
	if [ -n "$other" ]; then
		echo "$v: $(echo "$other" | wc -l) other non-ok runs (not counted):"
		awk '{ print "    " $0 }' <<<"$other"
	fi
done
exit $status
