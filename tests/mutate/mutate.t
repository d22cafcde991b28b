#!/usr/bin/env bash
# mutate.t: uml-kernel/mutate.pl: the mutants of each series, the report's gate, and a run sharded in three that gives the same verdicts as one run.
#
# The mutants are checked against the series itself: each one's line is a line a patch adds, and changed. The gate
# is checked on results files written here: a survivor without a reason fails it, and so does a score below the
# threshold (60 % here: one kill of three, the others explained, is below it); a reason passes it. A SIGTERM while a
# mutant is in the tree puts the original back; a mutant whose run fails, or hangs, and does so again alone, is
# killed. The sharded run judges three mutants of the default generation's full variant (its own tree under
# BUILD/mutate/), once whole and once in three shards, with a kbuild that builds nothing (UMLBED_MUTATE_KBUILD) and
# one quick scenario (--scenario): the driver is under test here, and the mutants' kernels and the suite's power are
# make mutate's.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${UMLBED_BUILD:-${BUILD:-$top/build}}
export BUILD
gen_sh=$top/uml-kernel/generation.sh
mutate=$top/uml-kernel/mutate.pl
. "$top/tests/lib/strict.sh"
. "$top/tests/lib/tap.sh"
command -v jq >/dev/null || prereq_skip_all "no jq to read the reports (Debian package jq)"
# jqt FILTER FILE: FILTER is true of FILE.
jqt() { jq -e "$@" >/dev/null; }
T=$(mktemp -d "${TMPDIR:-/tmp}/mutate-t.XXXXXX")
trap 'rm -rf "$T"' EXIT

# ---- The mutants of each series ----
for g in $("$gen_sh" list); do
	"$mutate" list --gen "$g" >"$T/list" 2>"$T/err"
	check "$g: list runs" [ $? = 0 ]
	count=$(wc -l <"$T/list")
	check "$g: at least 100 mutants by default ($count)" [ "$count" -ge 100 ]
	all=$("$mutate" list --gen "$g" --all | wc -l)
	check "$g: --all gives more ($all)" [ "$all" -gt "$count" ]
	check "$g: every id is FILE:LINE:OPERATOR:N" \
		not grep -Ev '^[^:[:space:]]+\.c:[0-9]+:(rel|logic|neg|ret|arith|const|del|swap):[0-9]+	' "$T/list"
	check "$g: the ids are unique" [ "$(cut -f1 "$T/list" | sort -u | wc -l)" = "$count" ]
	check "$g: each mutant changes its line" \
		not awk -F'\t' '$2 == $3 { print; bad = 1 } END { exit !bad }' "$T/list"
	check "$g: at most two mutants a line by default" \
		not awk -F'\t' '{ split($1, p, ":"); n[p[1] ":" p[2]]++ } END { for (k in n) if (n[k] > 2) bad = 1; exit !bad }' "$T/list"
	# Each original line is one the series adds (a "+" line of a patch), so nothing outside it is mutated.
	series=$top/$("$gen_sh" get "$g" series)
	grep -h '^+[^+]' "$series"/*.patch | sed -e 's/^+//' -e 's/^[[:space:]]*//' -e 's/\t/ /g' | sort -u >"$T/added"
	cut -f2 "$T/list" | sort -u >"$T/originals"
	check "$g: every mutated line is a line the series adds" [ -z "$(comm -23 "$T/originals" "$T/added")" ]
	for k in 1 2 3; do "$mutate" list --gen "$g" --shard "$k/3" | cut -f1; done | sort >"$T/shards"
	check "$g: three shards deal every mutant once" cmp -s "$T/shards" <(cut -f1 "$T/list" | sort)
done
"$mutate" list --shard 4/3 >/dev/null 2>"$T/err"
check "a shard out of range is exit 2" [ $? = 2 ]

# ---- The gate ----
# results ID VERDICT...: a results file of those mutants with those verdicts.
results() {
	local out=$1 i=0
	shift
	{
		echo '{"generation":"'"$("$gen_sh" default)"'","mutants_total":'$(($# / 2))',"seconds":10,"build_seconds":6,'
		echo '"run_seconds":4,"results":['
		while [ $# -gt 0 ]; do
			[ $i -gt 0 ] && echo ,
			echo '{"id":"'"$1"'","file":"mm/memory.c","line":'$((i + 1))',"op":"rel","function":"f",'
			echo '"original":"a < b","mutated":"a <= b","verdict":"'"$2"'"}'
			i=$((i + 1))
			shift 2
		done
		echo ']}'
	} >"$out"
}
printf '# test\nscore 60\n' >"$T/threshold"
printf '# test\n' >"$T/equivalent"
report() { "$mutate" report --out "$T/report" --threshold "$T/threshold" --equivalent "$T/equivalent" "$@" >"$T/out" 2>&1; }
results "$T/r1.json" a:1:rel:1 killed b:2:rel:1 killed c:3:rel:1 survived
report "$T/r1.json"
check "a survivor without a reason fails the gate" [ $? = 1 ]
check "... and is named" grep -q 'no reason in .*: c:3:rel:1' "$T/out"
check "the JSON report is written" jqt '.counts.killed == 2 and .counts.survived == 1' "$T/report/report.json"
check "the HTML report shows the survivor at its line" grep -q 'survived c:3:rel:1' "$T/report/index.html"
# A reason names its mutant's line too: one written for another line does not explain the mutant.
printf 'c:3:rel:1\ta >= b\tthe test says so, of another line\n' >>"$T/equivalent"
report "$T/r1.json"
check "a reason for the id but another line leaves the survivor unexplained" [ $? = 1 ]
check "... and says which line the reason is for" grep -q "no reason in .*: c:3:rel:1 (the reason at .* is for another line, 'a >= b')" "$T/out"
printf '# test\nc:3:rel:1\ta <= b\tthe test says so\n' >"$T/equivalent"
report "$T/r1.json"
check "with its reason listed, the gate passes" [ $? = 0 ]
check "... and the mutant counts as equivalent, which is not a kill" jqt '.counts.equivalent == 1 and .score == "66.7"' \
	"$T/report/report.json"
check "... and the score over the mutants that are not equivalent is reported beside it" \
	jqt '.score_non_equivalent == "100.0"' "$T/report/report.json"
results "$T/r2.json" a:1:rel:1 killed b:2:rel:1 timeout c:3:rel:1 survived
printf 'b:2:rel:1\ta <= b\ta timeout the test explains\n' >>"$T/equivalent"
report "$T/r2.json"
check "a score below the threshold fails the gate" [ $? = 1 ]
check "... and says so" grep -q 'below the threshold' "$T/out"
# The project's own reasons: each names a mutant of some generation, with the line it was written for.
"$mutate" reasons >"$T/reasons.out" 2>&1
check "every reason in tests/mutate/equivalent names a mutant that exists, with its line" [ $? = 0 ]
diag "$T/reasons.out"
{ cat "$top/tests/mutate/equivalent"; printf 'mm/memory.c:1:rel:1\tno such line\tplanted\n'; } >"$T/eq-planted"
"$mutate" reasons --equivalent "$T/eq-planted" >"$T/reasons.out" 2>&1
check "a planted reason for a mutant that does not exist fails it (exit 1)" [ $? = 1 ]
check "... naming its file and line" grep -q "eq-planted:[0-9]*: mm/memory.c:1:rel:1 'no such line' is no mutant" \
	"$T/reasons.out"
# A reason whose mutant is killed now is stale: the gate names it.
results "$T/r5.json" a:1:rel:1 killed b:2:rel:1 timeout c:3:rel:1 killed
report "$T/r5.json"
check "a reason of a mutant that is killed now fails the gate" [ $? = 1 ]
check "... naming it" grep -q 'does not match its mutant: c:3:rel:1: killed now' "$T/out"
# Trivial Compiler Equivalence: the same code with other columns (gcc's line table holds them) is the same code;
# another operator is not. The probe: the two objects of the same code differ as files.
printf 'int f(int a, int b) { return a < b ? a : b; }\n' >"$T/tce-a.c"
printf 'int f(int a,int b){return a<b?a:b;}\n' >"$T/tce-b.c"
printf 'int f(int a, int b) { return a > b ? a : b; }\n' >"$T/tce-c.c"
for x in a b c; do gcc -O2 -g -c -o "$T/tce-$x.o" "$T/tce-$x.c"; done
check "TCE's probe: the same code in other columns gives objects that differ as files" not cmp -s "$T/tce-a.o" "$T/tce-b.o"
check "TCE: those objects have the same code" "$mutate" tce "$T/tce-a.o" "$T/tce-b.o"
check "TCE: another operator's object has other code (exit 1)" eval '"$mutate" tce "$T/tce-a.o" "$T/tce-c.o"; [ $? = 1 ]'
printf 'score 0\n' >"$T/threshold"
# A TCE verdict needs no reason; a duplicate is left out of the score, as a mutant not built.
results "$T/r6.json" a:1:rel:1 killed b:2:rel:1 equivalent c:3:rel:1 duplicate
report "$T/r6.json"
check "a TCE-equivalent mutant needs no reason, and the gate passes" [ $? = 0 ]
check "... and a duplicate is left out of the score (1 killed of 2)" \
	jqt '.counts.duplicate == 1 and .score == "50.0"' "$T/report/report.json"
results "$T/r3.json" a:1:rel:1 killed b:2:rel:1 dunno
report "$T/r3.json"
check "an unknown verdict is exit 2" [ $? = 2 ]
results "$T/r4.json" a:1:rel:1 killed
report "$T/r1.json" "$T/r4.json"
check "results of other mutant sets do not join (exit 2)" [ $? = 2 ]

# ---- A run in three shards gives the verdicts of one run ----
kernel=$BUILD/kernel/full$("$gen_sh" get "$("$gen_sh" default)" suffix)/obj/linux
if [ ! -x "$kernel" ] || [ ! -x "$BUILD/runner/umlbed" ]; then
	prereq_skip "no built full kernel and runner (make kernel runner)"
else
	"$BUILD/runner/umlbed" mutate list --gen "$("$gen_sh" default)" >"$T/umlbed-list"
	check "umlbed mutate runs the driver" cmp -s "$T/umlbed-list" <("$mutate" list)
	# Three mutants of three operators, whatever the series' line numbers are now.
	"$mutate" list >"$T/list"
	ids=()
	for op in del ret rel; do ids+=("$(awk -F'\t' -v op=":$op:" 'index($1, op) { print $1; exit }' "$T/list")"); done
	only=()
	for id in "${ids[@]}"; do only+=(--only "$id"); done
	# One quick scenario judges: the driver's logic is under test here, not the suite's power (make mutate).
	only+=(--scenario "$top/scenarios/rounding.lua")
	# A kbuild that builds nothing: the driver's logic is under test, not a mutant kernel (make mutate builds those).
	export UMLBED_MUTATE_KBUILD=true
	"$mutate" run "${only[@]}" --out "$T/whole" >"$T/whole.out" 2>&1
	check "a run of three mutants (${ids[*]})" [ $? = 0 ]
	for k in 1 2 3; do "$mutate" run --shard "$k/3" "${only[@]}" --out "$T/s$k" >"$T/s$k.out" 2>&1; done
	verdicts() { jq -r '.results[] | "\(.id) \(.verdict)"' "$@" | sort; }
	check "the three shards together give the same verdicts" cmp -s <(verdicts "$T/whole/results.json") \
		<(verdicts "$T"/s[123]/results.json)
	verdicts "$T/whole/results.json" | diag
	check "each of the three mutants was built and run" \
		jqt '[.results[] | select(.verdict == "killed" or .verdict == "survived")] | length == 3' "$T/whole/results.json"
	# A failed kbuild is a mutant that does not compile.
	UMLBED_MUTATE_KBUILD=false "$mutate" run --only "${ids[0]}" --scenario "$top/scenarios/rounding.lua" \
		--out "$T/nobuild" >"$T/nobuild.out" 2>&1
	check "a kbuild that fails makes the mutant 'not built'" \
		jqt '[.results[].verdict] == ["not built"]' "$T/nobuild/results.json"
	# A mutant that hangs: its kbuild stand-in leaves the mark that makes the judging scenario loop until the
	# timeout. The unmutated kernel's run comes before any kbuild, without the mark, and must pass (else exit 2).
	mark=$T/hang-mark
	MUTATE_T_MARK=$mark UMLBED_MUTATE_KBUILD="touch $mark" "$mutate" run --only "${ids[0]}" --timeout 2 \
		--scenario "$top/tests/mutate/scenarios/hang-when-marked.lua" --out "$T/hang" >"$T/hang.out" 2>&1
	check "a run of a mutant that hangs ends (exit $?)" [ -f "$T/hang/results.json" ]
	check "... and the hang, timed out again alone, is detected: killed, as a hang" \
		jqt '[.results[] | .verdict, .detected] == ["killed", "hang"]' "$T/hang/results.json"
	jq -c '.results[]' "$T/hang/results.json" 2>/dev/null | diag
	# A mutant that a scenario kills: FAILED once the mark is there, and FAILED again alone, as the runner's JSON
	# report tells the runs.
	mark=$T/fail-mark
	MUTATE_T_FAIL=$mark UMLBED_MUTATE_KBUILD="touch $mark" "$mutate" run --only "${ids[0]}" \
		--scenario "$top/tests/mutate/scenarios/fail-when-marked.lua" --out "$T/fail" >"$T/fail.out" 2>&1
	check "a mutant whose run fails, and fails again alone, is killed, by that run" \
		jqt '[.results[] | .verdict, .killed_by[0].verdict, .killed_by[0].file]
			== ["killed", "FAILED", "tests/mutate/scenarios/fail-when-marked.lua"]' "$T/fail/results.json"
	jq -c '.results[]' "$T/fail/results.json" 2>/dev/null | diag

	# SIGTERM while a mutant is in the tree: the build is ended first, the original is put back with a new time.
	id=${ids[0]}
	file=$BUILD/mutate/kernel/full$("$gen_sh" get "$("$gen_sh" default)" suffix)/src/${id%%:*}
	cp "$file" "$T/original"
	# A kbuild that runs until it is ended, with the build folder in its command line as kbuild has it.
	UMLBED_MUTATE_KBUILD='while :; do sleep 1; done' \
		"$mutate" run --only "$id" --scenario "$top/scenarios/rounding.lua" --out "$T/term" >"$T/term.out" 2>&1 &
	pid=$!
	# building: the mutant is in place, its original beside it, and its kbuild runs (bounded: a build takes seconds).
	building() { [ -e "$file.umlbed-orig" ] && pgrep -f "O=$BUILD/mutate/" >/dev/null; }
	for _ in $(seq 600); do building && break; sleep 0.1; done
	check "the original waits beside the mutated file, and pgrep sees the build (the probes)" building
	kill -TERM "$pid"
	wait "$pid"
	check "SIGTERM ends the run with 143" [ $? = 143 ]
	check "... and puts the original back" cmp -s "$T/original" "$file"
	check "... with no copy left beside it" [ ! -e "$file.umlbed-orig" ]
	check "... and no build of the run still going" not pgrep -f "O=$BUILD/mutate/"
fi
echo "1..$n"
