#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# historic.t: the corpus of real faults (uml-kernel/historic/) is whole: each historic variant re-creates one fault of the corpus, with its fix, release, kind and catching scenario, and catch.sh refuses bad arguments.
#
# make historic builds the kernels and re-finds the faults (outside make check: one kernel build each); this checks,
# in a second, what it reads, so that a corpus entry without a reference or a scenario cannot land.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
gen_sh=$top/uml-kernel/generation.sh
corpus=$top/uml-kernel/historic/corpus
. "$top/tests/lib/strict.sh"
. "$top/tests/lib/tap.sh"

# field FAULT KEY: the value of KEY in FAULT's block of the corpus (as catch.sh reads it).
field() {
	awk -v f="$1" -v k="$2" '
		$1 == "fault" { on = ($2 == f); next }
		on && $1 == k { sub(/^[^[:space:]]+[[:space:]]+/, ""); print; exit }' "$corpus"
}

check "the corpus starts with a comment line saying what it is for" grep -q '^# .' <(head -n 1 "$corpus")
mapfile -t faults < <(awk '$1 == "fault" { print $2 }' "$corpus")
check "the corpus has faults (${#faults[@]})" [ ${#faults[@]} -gt 0 ]
check "no fault is named twice" [ "$(printf '%s\n' "${faults[@]}" | sort | uniq -d)" = "" ]
points=$(cat "$top"/uml-kernel/points/*/*.patch)
for f in "${faults[@]}"; do
	check "$f: fix is a commit id and its subject ($(field "$f" fix))" \
		grep -qE '^[0-9a-f]{12,40} [^ ].{8,}$' <<<"$(field "$f" fix)"
	check "$f: release is a version and a date ($(field "$f" release))" \
		grep -qE '^v[0-9]+\.[0-9]+(\.[0-9]+)?(-rc[0-9]+|-test[0-9]+)? [0-9]{4}-[0-9]{2}-[0-9]{2}$' <<<"$(field "$f" release)"
	read -r kind point <<<"$(field "$f" kind)"
	if [ "$kind" = race ]; then
		check "$f: a race names the schedule point that forces it ($point)" grep -q "^+.*umlbed_point(UMLBED_POINT_${point^^})" <<<"$points"
	else
		check "$f: kind is sequential or race ($kind)" [ "$kind" = sequential ] && [ -z "$point" ]
	fi
	read -r file params <<<"$(field "$f" catch)"
	check "$f: its catching scenario exists ($file)" [ -n "$file" ] && [ -f "$top/$file" ]
	for p in $params; do
		check "$f: the catch's $p is KEY=VALUE of a key in $file's matrix" \
			grep -qE "^[[:space:]]+matrix = \{.*\b${p%%=*} = " "$top/$file"
	done
	check "$f: it has a story" [ -n "$(field "$f" story)" ]
	caught=$(field "$f" caught)
	[ -z "$caught" ] || check "$f: caught is FAILED, or CRASHED and the ERE of the kernel's report ($caught)" \
		grep -qE '^(FAILED|CRASHED [^ ].*)$' <<<"$caught"
	made=$(compgen -G "$top/uml-kernel/historic/*/$f.patch" | wc -l)
	check "$f: at least one generation re-creates it (uml-kernel/historic/GEN/$f.patch: $made)" [ "$made" -gt 0 ]
done

for g in $("$gen_sh" list); do
	suffix=$("$gen_sh" get "$g" suffix)
	listed=$("$gen_sh" get "$g" historic)
	for p in "$top"/uml-kernel/historic/"$g"/*.patch; do
		[ -f "$p" ] || continue
		f=$(basename "$p" .patch)
		v=historic-$f$suffix
		check "$g: $f.patch is listed in the generation's historic key as $v" grep -qw -- "$v" <<<"$listed"
		check "$g: $f is a fault of the corpus" grep -qx "fault $f" "$corpus"
		check "$g: $f.patch says in its subject that it is historic" grep -q '^Subject: \[PATCH\] HISTORIC: ' "$p"
	done
	for v in $listed; do
		f=$("$gen_sh" base "$v")
		f=${f#historic-}
		check "$g: $v is a variant of $g" [ "$("$gen_sh" of "$v" 2>/dev/null)" = "$g" ]
		# The fixed kernel's stack plus one patch: the fault and nothing else separates the two.
		check "$g: $v is full$suffix's stack and then uml-kernel/historic/$g/$f.patch" \
			[ "$("$gen_sh" stack "$v")" = "$("$gen_sh" stack "full$suffix"; echo "uml-kernel/historic/$g/$f.patch")" ]
		check "$g: $v has full$suffix's config fragments" [ "$("$gen_sh" configs "$v")" = "$("$gen_sh" configs "full$suffix")" ]
	done
done

# catch.sh's arguments: a bad count, an unknown fault and a missing runner are refused before any build.
out=$("$top/uml-kernel/catch.sh" --runs 0 historic 2>&1)
check "catch.sh --runs 0 is refused (exit 2)" [ $? = 2 ]
check "... saying why" grep -q 'wants a positive count' <<<"$out"
out=$("$top/uml-kernel/catch.sh" --fault no-such-fault historic 2>&1)
check "catch.sh --fault of a fault the corpus does not have is refused (exit 2)" [ $? = 2 ]
check "... naming it" grep -q 'no fault no-such-fault in uml-kernel/historic/corpus' <<<"$out"
out=$(BUILD=$(mktemp -u) "$top/uml-kernel/catch.sh" historic 2>&1)
check "catch.sh without a runner is refused (exit 2), naming make runner" [ $? = 2 ] && grep -q 'make runner' <<<"$out"
echo "1..$n"
