#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Names the kernel functions in which a built variant's source differs from another's, for the explorer's --toward: changed-functions.sh VARIANT [BASE].
#
# Both variants must have been built (uml-kernel/build.sh), so that BUILD/kernel/NAME/src holds their trees; BASE
# is the fixed kernel of VARIANT's generation (full, full-6.12, ...) unless named. Prints one name a line, sorted:
# each function that encloses a changed line on either side (a removed line counts in BASE's file, an added one in
# VARIANT's), then the functions that call a static one of them in the same file, again and again. A static
# function may be inlined into its callers, and the explorer's points are named by the function their call sits
# in, which is then the caller's. A changed line outside every function (a declaration, a macro) names nothing.
# A function is found by the kernel's style: its definition starts at the start of a line, with its name before
# the first "(", and its body opens with a "{" and ends with a "}", each at the start of a line.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: changed-functions.sh VARIANT [BASE]" >&2
	exit 2
fi
variant=$1
if [ $# -eq 2 ]; then
	base=$2
else
	gen=$(sed -n 's/^generation //p' "$BUILD/kernel/$variant/variant.info" 2>/dev/null) || true
	if [ -z "$gen" ]; then
		echo "changed-functions.sh: $variant is not built (no $BUILD/kernel/$variant/variant.info)" >&2
		exit 2
	fi
	base=full$("$top/uml-kernel/generation.sh" get "$gen" suffix)
fi
for v in "$variant" "$base"; do
	if [ ! -d "$BUILD/kernel/$v/src" ] || [ ! -f "$BUILD/kernel/$v/.touched" ]; then
		echo "changed-functions.sh: $v is not built (no $BUILD/kernel/$v/src; uml-kernel/build.sh $v)" >&2
		exit 2
	fi
done
old=$BUILD/kernel/$base/src
new=$BUILD/kernel/$variant/src

# functions FILE: "FIRST LAST STATIC NAME" for each function definition of a C file, FIRST its first line. In the
# kernel's style a definition's first line starts with its type at the start of the line and holds the name before
# the first "(" (its type may be the line before); its body opens with a "{" and closes with a "}", each at the
# start of a line. A declaration (a prototype, EXPORT_SYMBOL()) ends with ";" before any "{".
FUNCTIONS_AWK='
function start(line,   s, w, n, i) {
	s = line; sub(/\(.*/, "", s); n = split(s, w, /[^A-Za-z0-9_]+/)
	for (i = n; i > 0 && w[i] == ""; i--) ;
	if (i == 0 || w[i] ~ /^(if|for|while|switch|return|sizeof|__attribute__)$/) return
	cand = w[i]; first = NR; static = (line ~ /^static / || last ~ /^static [^;]*$/) ? 1 : 0
}
body == "" && /^[A-Za-z_][^;=]*\(/ && !/^(#|typedef )/ { start($0) }
body == "" && cand != "" && /;[ \t]*$/ { cand = "" }
body == "" && cand != "" && /^\{/ { body = cand; cand = "" }
body != "" && /^}/ { fn_end(); body = "" }
{ last = $0 }
'
functions() {
	awk "$FUNCTIONS_AWK"'
	function fn_end() { print first, NR, static, body }
	' "$1"
}

# enclosing FILE LINE...: the names of the functions that hold these lines of FILE.
enclosing() {
	local f=$1
	shift
	functions "$f" | awk -v lines="$*" '
	BEGIN { n = split(lines, l, " ") }
	{ for (i = 1; i <= n; i++) if (l[i] >= $1 && l[i] <= $2) { print $4; break } }'
}

changed=$(mktemp "${TMPDIR:-/tmp}/umlbed-changed.XXXXXX")
trap 'rm -f "$changed"' EXIT
sort -u "$BUILD/kernel/$variant/.touched" "$BUILD/kernel/$base/.touched" | while read -r f; do
	case $f in *.c | *.h) ;; *) continue ;; esac
	if [ ! -f "$old/$f" ] || [ ! -f "$new/$f" ] || cmp -s "$old/$f" "$new/$f"; then continue; fi
	# The changed lines of each side ("-a,b +c,d": b lines from a, d from c; a count left out is 1).
	lines=$( (diff -U0 "$old/$f" "$new/$f" || true) | awk '/^@@ / {
		split(substr($2, 2), o, ","); split(substr($3, 2), n, ",")
		for (i = 0; i < (o[2] == "" ? 1 : o[2]); i++) printf "o %d\n", o[1] + i
		for (i = 0; i < (n[2] == "" ? 1 : n[2]); i++) printf "n %d\n", n[1] + i
	}')
	{
		mapfile -t o < <(awk '$1 == "o" { print $2 }' <<<"$lines")
		mapfile -t n < <(awk '$1 == "n" { print $2 }' <<<"$lines")
		enclosing "$old/$f" "${o[@]}"
		enclosing "$new/$f" "${n[@]}"
	} | sort -u | while read -r fn; do echo "$f $fn"; done
done >"$changed"

# callers FILE NAME: the functions of FILE whose body calls NAME, when NAME is a static function of FILE.
callers() {
	awk -v fn="$2" "$FUNCTIONS_AWK"'
	function fn_end() {
		if (body == fn && static) is_static = 1
		else if (calls) found[body] = 1
		calls = 0
	}
	body != "" && $0 ~ ("(^|[^A-Za-z0-9_])" fn "[ \t]*\\(") { calls = 1 }
	END { if (is_static) for (c in found) print c }
	' "$1"
}

# The changed functions, then the static ones' callers in the same file, until no new name comes.
{
	while read -r f fn; do
		echo "$fn"
		todo=("$fn") seen=" $fn "
		while [ ${#todo[@]} -gt 0 ]; do
			cur=${todo[0]} todo=("${todo[@]:1}")
			while read -r caller; do
				[[ $seen == *" $caller "* ]] && continue
				seen+="$caller " todo+=("$caller")
				echo "$caller"
			done < <(callers "$new/$f" "$cur")
		done
	done <"$changed"
} | sort -u
