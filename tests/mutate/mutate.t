#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mutate.t: uml-kernel/mutate.pl: the mutants of each series and each operator, --diff, the report's gate, and a run sharded in three that gives the same verdicts as one run.
#
# The mutants are checked against the series itself: each one's line is a line a patch adds, and changed; each
# operator against the series and against tests/mutate/operators.c.in (mutate.pl file). --diff is checked with
# revisions made here in an object store of the test's own (the checkout's is only read). The gate is checked on
# results files written here: a survivor without a reason fails it, and so does a score over the mutants that are not
# equivalent below the threshold; an equivalent reason leaves the denominator, a survivor's stays in it, and an
# equivalence under an option that no fragment pins explains nothing. A SIGTERM while a mutant is in the tree puts the
# original back; a mutant whose run fails, or hangs, and does so again alone, is killed. The sharded run judges three
# mutants of the default generation's full variant (its own tree under BUILD/mutate/), once whole and once in three
# shards, with a kbuild that builds nothing (UMLBED_MUTATE_KBUILD) and one quick scenario (--scenario): the driver is
# under test here, and the mutants' kernels and the suite's power are make mutate's.
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

# The operators' names, as the ids carry them.
ops='rel|logic|neg|ret|arith|const|del|swap|flow|guard|lock|lockrw|field|tern|minmax|shift'
# has LIST OP ORIGINAL MUTATED...: LIST (list's output) holds a mutant of the operator OP that changes the line
# ORIGINAL into each MUTATED.
has() {
	local list=$1 op=$2 orig=$3 m
	shift 3
	for m in "$@"; do
		awk -F'\t' -v op=":$op:" -v o="$orig" -v m="$m" 'index($1, op) && $2 == o && $3 == m { f = 1 } END { exit !f }' \
			"$list" || return 1
	done
}

# ---- The mutants of each series ----
for g in $("$gen_sh" list); do
	"$mutate" list --gen "$g" >"$T/list" 2>"$T/err"
	check "$g: list runs" [ $? = 0 ]
	count=$(wc -l <"$T/list")
	check "$g: at least 100 mutants by default ($count)" [ "$count" -ge 100 ]
	"$mutate" list --gen "$g" --all >"$T/all"
	all=$(wc -l <"$T/all")
	check "$g: --all gives more ($all)" [ "$all" -gt "$count" ]
	check "$g: the default's mutants are among --all's, with the same ids" \
		[ -z "$(comm -23 <(sort "$T/list") <(sort "$T/all"))" ]
	check "$g: every id is FILE:LINE:OPERATOR:N" \
		not grep -Ev "^[^:[:space:]]+\\.c:[0-9]+:($ops):[0-9]+	" "$T/list" "$T/all"
	check "$g: the ids are unique" [ "$(cut -f1 "$T/list" | sort -u | wc -l)" = "$count" ]
	check "$g: each mutant changes its line" \
		not awk -F'\t' '$2 == $3 { print; bad = 1 } END { exit !bad }' "$T/list"
	# The default: each operator's first mutant of a line, and for rel, arith, const and shift its other direction.
	check "$g: by default one mutant an operator a line, two for rel, arith, const and shift" \
		not awk -F'\t' '{ split($1, p, ":"); k = p[1] ":" p[2] ":" p[3]; n[k]++
			if (n[k] > (p[3] ~ /^(rel|arith|const|shift)$/ ? 2 : 1)) bad = 1 } END { exit !bad }' "$T/list"
	check "$g: a comparison's boundary and its reversal, both by default (rel)" \
		has "$T/list" rel 'if (hea < vba || vea < hba)' 'if (hea <= vba || vea < hba)' 'if (hea > vba || vea < hba)'
	check "$g: a constant one down and one up, both by default (const)" \
		has "$T/list" const 'vea = vba + vma_pages(vp) - 1;' 'vea = vba + vma_pages(vp) - 0;' 'vea = vba + vma_pages(vp) - 2;'
	check "$g: an assigned value one up and one down, both by default (arith)" \
		has "$T/list" arith 'vea = vba + vma_pages(vp) - 1;' 'vea = (vba + vma_pages(vp) - 1) + 1;' \
		'vea = (vba + vma_pages(vp) - 1) - 1;'
	check "$g: --all has 1 to -1 (the probe)" \
		has "$T/all" const 'vea = vba + vma_pages(vp) - 1;' 'vea = vba + vma_pages(vp) - -1;'
	check "... which the default leaves out" \
		not has "$T/list" const 'vea = vba + vma_pages(vp) - 1;' 'vea = vba + vma_pages(vp) - -1;'
	check "$g: a continue deleted (flow)" \
		has "$T/list" flow 'continue; /* Mapping disjoint from hole. */' '; /* Mapping disjoint from hole. */'
	check "$g: an if's body run whatever its condition (guard)" has "$T/list" guard 'if (hlen == 0)' 'if (1)'
	check "$g: the lock deleted (lock)" has "$T/list" lock 'i_mmap_lock_read(mapping);' ';'
	check "$g: the lock taken for writing (lockrw)" \
		has "$T/list" lockrw 'i_mmap_lock_read(mapping);' 'i_mmap_lock_write(mapping);'
	check "... and the unlock too" has "$T/list" lockrw 'i_mmap_unlock_read(mapping);' 'i_mmap_unlock_write(mapping);'
	check "$g: del leaves a lock's call to lock" not has "$T/all" del 'i_mmap_lock_read(mapping);' ';'
	check "$g: a VMA's pgoff read from its start (field)" has "$T/list" field 'vba = vp->vm_pgoff;' 'vba = vp->vm_start;'
	check "$g: the arms of ?: swapped (tern)" \
		has "$T/list" tern 'zba = (hba <= vba) ? vba : hba;' 'zba = (hba <= vba) ? hba : vba;'
	check "$g: a shift by PAGE_SHIFT one less and one more (shift)" has "$T/list" shift \
		'unsigned long hba = holebegin >> PAGE_SHIFT;' 'unsigned long hba = holebegin >> (PAGE_SHIFT - 1);' \
		'unsigned long hba = holebegin >> (PAGE_SHIFT + 1);'
	check "$g: >> turned into << (shift, --all)" has "$T/all" shift \
		'unsigned long hba = holebegin >> PAGE_SHIFT;' 'unsigned long hba = holebegin << PAGE_SHIFT;'
	# Each original line is one the series adds (a "+" line of a patch), so nothing outside it is mutated.
	series=$top/$("$gen_sh" get "$g" series)
	grep -h '^+[^+]' "$series"/*.patch | sed -e 's/^+//' -e 's/^[[:space:]]*//' -e 's/\t/ /g' | sort -u >"$T/added"
	cut -f2 "$T/list" | sort -u >"$T/originals"
	check "$g: every mutated line is a line the series adds" [ -z "$(comm -23 "$T/originals" "$T/added")" ]
	[ "$g" = "$("$gen_sh" default)" ] && cp "$T/list" "$T/list-default" && cp "$T/all" "$T/all-default"
	for k in 1 2 3; do "$mutate" list --gen "$g" --shard "$k/3" | cut -f1; done | sort >"$T/shards"
	check "$g: three shards deal every mutant once" cmp -s "$T/shards" <(cut -f1 "$T/list" | sort)
done
"$mutate" list --shard 4/3 >/dev/null 2>"$T/err"
check "a shard out of range is exit 2" [ $? = 2 ]
# --kbuild builds a real kernel for each mutant: a stand-in for kbuild would make its verdicts up.
UMLBED_MUTATE_KBUILD=true "$mutate" run --kbuild --only none --out "$T/kb" >/dev/null 2>"$T/err"
rc=$?
check "run --kbuild with a stand-in kbuild is refused, exit 2 ($rc)" eval '[ "$rc" = 2 ] && grep -q "not with UMLBED_MUTATE_KBUILD" "$T/err"'

# ---- Each operator on lines written for it (tests/mutate/operators.c.in) ----
ops_c=$top/tests/mutate/operators.c.in
"$mutate" file "$ops_c" >"$T/ops"
"$mutate" file --all "$ops_c" >"$T/ops-all"
check "a return in the middle of a function deleted (flow, the probe)" has "$T/ops" flow 'return -EINVAL;' ';'
check "... not the return that ends its function" not grep -q ':flow:.*	return 0;	' "$T/ops-all"
check "a break and a goto deleted (flow)" eval 'has "$T/ops" flow "break;" ";" && has "$T/ops" flow "goto out;" ";"'
check "an if's condition made 1 (guard, the probe)" has "$T/ops" guard 'if (!vma)' 'if (1)'
check "... not one that is 1 already" not grep -q ':guard:.*	if (1)	' "$T/ops-all"
check "mmap_read_lock taken for writing (lockrw)" has "$T/ops" lockrw 'mmap_read_lock(mm);' 'mmap_write_lock(mm);'
check "a spin_lock deleted (lock, the probe)" has "$T/ops" lock 'spin_lock(l);' ';'
check "... and, having no read form, not exchanged" not grep -q ':lockrw:.*	spin_lock(l);	' "$T/ops-all"
check "lockdep_assert_held is no lock's call: del's" has "$T/ops" del 'lockdep_assert_held(l);' ';'
check "first_index read as last_index, .vm_pgoff as .vm_start and .vm_end (field)" eval \
	'has "$T/ops-all" field "x = details.first_index + vma.vm_pgoff;" "x = details.last_index + vma.vm_pgoff;" \
		"x = details.first_index + vma.vm_start;" "x = details.first_index + vma.vm_end;"'
check "min_t made max_t (minmax)" has "$T/ops" minmax 'x = min_t(unsigned long, x, 2) << PAGE_SHIFT;' \
	'x = max_t(unsigned long, x, 2) << PAGE_SHIFT;'
check "the arms of a ?: and of the ?: inside it swapped (tern)" \
	has "$T/ops-all" tern 'x = x > 1 ? (x < 8 ? x : 8) : 1;' \
	'x = x > 1 ? 1 : (x < 8 ? x : 8);' 'x = x > 1 ? (x < 8 ? 8 : x) : 1;'
check "1 made 0 and 2 by default, -1 with --all (const)" eval 'has "$T/ops" const "unsigned long x = 1;" \
	"unsigned long x = 0;" "unsigned long x = 2;" && has "$T/ops-all" const "unsigned long x = 1;" "unsigned long x = -1;"'
# A change whose line another operator made already is left out, and keeps its number: const's return 1 is ret's.
check "ret's return 1 is there (the probe)" has "$T/ops" ret 'return 0;' 'return 1;'
check "... and only once" [ "$(grep -c '	return 0;	return 1;$' "$T/ops-all")" = 1 ]
# The line is found by its text: a line added above it (a licence line) moves it.
ret0=$(grep -n -m 1 -xF "$(printf '\treturn 0;')" "$ops_c" | cut -d: -f1)
check "... while const's next change keeps its number (const:2)" \
	grep -q ":${ret0:-none}:const:2	return 0;	return -1;\$" "$T/ops-all"

# ---- Schemata: every mutant in one program, each chosen at run time, behaves as that mutant alone ----
# tests/mutate/schema.c.in holds the kinds of line the series has (statements, conditions, initialisers, the arguments
# of a call that goes on below, loops, a ?:, a macro's arguments) and prints what it computes. Each mutant that
# compiles alone is compiled alone and run; the schema of them all is compiled once and run with each chosen (the
# harness sets umlbed_mutant from M); their outputs and exit statuses must be the same. A mutant that loops for ever
# does so in both, ended by the same timeout. Unchosen, the schema prints what the original prints.
if ! command -v gcc >/dev/null; then
	prereq_skip "no gcc for the schema's program"
else
	S=$T/schema
	mkdir -p "$S"
	src=$top/tests/mutate/schema.c.in
	"$mutate" file "$src" >"$S/list"
	printf '#include <stdlib.h>\nint umlbed_mutant;\n__attribute__((constructor)) static void pick(void)\n{ const char *m = getenv("M"); umlbed_mutant = m ? atoi(m) : 0; }\n' >"$S/harness.c"
	# Each mutant's program, m<K>.c for the K-th line of the list.
	perl -e 'my ($src, $list, $dir) = @ARGV; open(my $h, "<", $src) or die; my @l = <$h>; open(my $m, "<", $list) or die;
		my $k = 0; while (<$m>) { chomp; my ($id, undef, $mut) = split /\t/; $k++; my ($n) = $id =~ /:(\d+):\w+:\d+$/;
		my @c = @l; my ($ind) = $c[$n - 1] =~ /^(\s*)/; $c[$n - 1] = "$ind$mut\n";
		open(my $o, ">", "$dir/m$k.c") or die; print $o @c }' "$src" "$S/list" "$S"
	n_mut=$(wc -l <"$S/list")
	seq "$n_mut" | xargs -P "$(nproc)" -I{} sh -c 'gcc -O1 -w -o "$1/m$2" "$1/m$2.c" 2>/dev/null || : >"$1/m$2.nobuild"' sh "$S" {}
	only=()
	for k in $(seq "$n_mut"); do [ -e "$S/m$k.nobuild" ] || only+=(--only "$(sed -n "${k}p" "$S/list" | cut -f1)"); done
	"$mutate" schema "${only[@]}" "$src" "$S/s.c" >"$S/map"
	check "the schema of the program's mutants compiles" gcc -O1 -w -o "$S/s" "$S/s.c" "$S/harness.c"
	gcc -O1 -w -o "$S/orig" -x c "$src"
	check "... and unchosen prints what the original prints" cmp -s <("$S/orig") <("$S/s")
	same=0 differ=()
	declare -A k_of
	k=0
	while IFS=$'\t' read -r id _; do k=$((k + 1)); k_of[$id]=$k; done <"$S/list"
	while IFS=$'\t' read -r num id kind _; do
		[ "$kind" = switch ] || continue
		k=${k_of[$id]}
		a=$(timeout 2 "$S/m$k" 2>&1; echo "exit $?")
		b=$(M=$num timeout 2 "$S/s" 2>&1; echo "exit $?")
		if [ "$a" = "$b" ]; then same=$((same + 1)); else differ+=("$id"); fi
	done <"$S/map"
	check "each of the $same switches, chosen, prints and exits as its mutant alone (at least 80)" \
		eval '[ ${#differ[@]} = 0 ] && [ $same -ge 80 ]'
	[ ${#differ[@]} = 0 ] || printf 'differs: %s\n' "${differ[@]}" | diag
	check "a mutant of a line outside a function is left to its own kbuild" \
		grep -q "	$(printf '%s' "$src"):[0-9]*:const:1	own	outside a function$" "$S/map"
fi

# ---- --diff: the mutants of the lines a change of the series touched ----
# Revisions are made in an object store of this test's own, which reads the checkout's through an alternate.
if ! git -C "$top" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	prereq_skip "not a git checkout: no revision for --diff"
else
	mkdir "$T/objects"
	export GIT_OBJECT_DIRECTORY=$T/objects
	# commit-tree wants an identity, which a fresh root (the clean room) has not configured.
	export GIT_AUTHOR_NAME=mutate.t GIT_AUTHOR_EMAIL=mutate.t@localhost
	export GIT_COMMITTER_NAME=mutate.t GIT_COMMITTER_EMAIL=mutate.t@localhost
	GIT_ALTERNATE_OBJECT_DIRECTORIES=$(git -C "$top" rev-parse --path-format=absolute --git-common-dir)/objects
	export GIT_ALTERNATE_OBJECT_DIRECTORIES
	g=$("$gen_sh" default)
	series=$("$gen_sh" get "$g" series)
	# revision FILE: a commit of HEAD's tree with the series' files as the working tree has them, FILE's content
	# (if any) standing for the patch of the series that holds the line below.
	patch=$(grep -l '^+	if (!capable(CAP_SYS_ADMIN)) {$' "$top/$series"/*.patch)
	revision() {
		(
			cd "$top" || exit 1
			export GIT_INDEX_FILE=$T/index
			git read-tree HEAD && for f in "$series"/*; do
				git update-index --add --cacheinfo "100644,$(git hash-object -w "$f"),$f" || exit 1
			done
			[ -z "${1:-}" ] || git update-index --cacheinfo "100644,$(git hash-object -w "$1"),${patch#"$top"/}" || exit 1
			git commit-tree "$(git write-tree)" -p HEAD -m "mutate.t"
		)
	}
	same=$(revision)
	sed 's/^+	if (!capable(CAP_SYS_ADMIN)) {$/+	if (!capable(CAP_SYS_RESOURCE)) {/' "$patch" >"$T/older.patch"
	older=$(revision "$T/older.patch")
	nothing=$(cd "$top" && git commit-tree "$(git hash-object -w -t tree /dev/null)" -m "mutate.t: no series")
	"$mutate" list --gen "$g" --diff "$older" >"$T/diff"
	check "--diff REV: the mutants of the line REV's series had otherwise (the probe: some)" [ -s "$T/diff" ]
	check "... and those only: the line's mutants as list has them" \
		cmp -s "$T/diff" <(awk -F'\t' '$2 == "if (!capable(CAP_SYS_ADMIN)) {"' "$T/list-default")
	"$mutate" list --gen "$g" --diff "$nothing" >"$T/diff-nothing"
	check "--diff of a revision without the series: every mutant" cmp -s "$T/diff-nothing" "$T/list-default"
	"$mutate" list --diff no-such-revision >/dev/null 2>"$T/err"
	check "--diff of no revision is exit 2" [ $? = 2 ]
fi

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
# The sample check's choice: every verdict of the whole run, at most --per of each at first, then the commonest
# verdicts until the size; in the results' order.
sample_of() {
	perl -I"$top/uml-kernel/mutate" -MMutate::Sample -e '
		my ($per, $size, @v) = @ARGV;
		my @r = map { { id => "m$_", verdict => $v[$_] } } 0 .. $#v;
		print join(" ", choose_sample(\@r, $per, $size)), "\n"' "$@"
}
sample=$(sample_of 2 5 killed killed killed killed killed killed survived equivalent 'not built' killed)
check "the sample holds each verdict, the rarest whole ($sample)" \
	eval '[[ " $sample " == *" m6 m7 m8 "* ]] && [ "$(wc -w <<<"$sample")" = 5 ]'
sample=$(sample_of 2 8 killed killed killed killed killed killed survived equivalent 'not built' killed)
check "... and more of the commonest up to its size, none twice ($sample)" \
	eval '[ "$(tr " " "\n" <<<"$sample" | sort -u | wc -l)" = 8 ] && [[ " $sample " == *" m6 m7 m8 "* ]]'
printf '# test\nscore-non-equivalent 60\ntarget 98\n' >"$T/threshold"
printf '# test\n' >"$T/equivalent"
report() { "$mutate" report --out "$T/report" --threshold "$T/threshold" --equivalent "$T/equivalent" "$@" >"$T/out" 2>&1; }
results "$T/r1.json" a:1:rel:1 killed b:2:rel:1 killed c:3:rel:1 survived
report "$T/r1.json"
check "a survivor without a reason fails the gate" [ $? = 1 ]
check "... and is named" grep -q 'no reason in .*: c:3:rel:1' "$T/out"
check "the JSON report is written" jqt '.counts.killed == 2 and .counts.survived == 1' "$T/report/report.json"
check "the HTML report shows the survivor at its line" grep -q 'survived c:3:rel:1' "$T/report/index.html"
# A reason names its mutant's line too: one written for another line does not explain the mutant.
printf 'c:3:rel:1\ta >= b\tequivalent\tthe test says so, of another line\n' >>"$T/equivalent"
report "$T/r1.json"
check "a reason for the id but another line leaves the survivor unexplained" [ $? = 1 ]
check "... and says which line the reason is for" grep -q "no reason in .*: c:3:rel:1 (the reason at .* is for another line, 'a >= b')" "$T/out"
# An equivalent mutant leaves the second score's denominator; an accepted survivor stays in it, and the gate is on it.
printf '# test\nc:3:rel:1\ta <= b\tequivalent\tthe test says so\n' >"$T/equivalent"
report "$T/r1.json"
check "with an equivalent reason listed, the gate passes" [ $? = 0 ]
check "... and the mutant counts as equivalent, which is not a kill: 2 of 3 built killed" \
	jqt '.counts.equivalent == 1 and .score == "66.7"' "$T/report/report.json"
check "... and 2 of the 2 that are not equivalent: the gate's score" \
	jqt '.score_non_equivalent == "100.0" and .non_equivalent == 2 and .threshold == 60 and .target == 98' \
	"$T/report/report.json"
printf '# test\nscore-non-equivalent 70\n' >"$T/threshold"
report "$T/r1.json"
check "... and under a threshold of 70 % too" [ $? = 0 ]
printf '# test\nc:3:rel:1\ta <= b\tsurvivor\tthe test accepts it\n' >"$T/equivalent"
report "$T/r1.json"
check "a survivor's reason instead fails the gate at 70 %" [ $? = 1 ]
check "... and says so" grep -q 'not equivalent 66.67% below the threshold 70%' "$T/out"
check "... since the mutant is an accepted survivor, in the denominator: 2 of 3" \
	jqt '.counts.accepted == 1 and .counts.equivalent == null and .score_non_equivalent == "66.7"' "$T/report/report.json"
check "... shown at its line in the HTML report" grep -q 'accepted c:3:rel:1' "$T/report/index.html"
printf '# test\nscore 60\n' >"$T/threshold"
report "$T/r1.json"
check "a threshold file without score-non-equivalent is exit 2" [ $? = 2 ]
printf '# test\nscore-non-equivalent 60\n' >"$T/threshold"
# Equivalent under an option: left out of the score only where the kernel that judged the results (full, or run
# --variant's) has the option pinned so by its fragments.
grep -qx 'CONFIG_64BIT=y' "$top/uml-kernel/config/umlbed.config"
check "umlbed.config pins CONFIG_64BIT=y (the probe's option)" [ $? = 0 ]
results "$T/r7.json" a:1:rel:1 killed b:2:rel:1 survived c:3:rel:1 survived d:4:rel:1 survived
printf '# test\nb:2:rel:1\ta <= b\tequivalent CONFIG_64BIT\tonly on 64-bit\n' >"$T/equivalent"
printf 'c:3:rel:1\ta <= b\tequivalent CONFIG_64BIT=n\tonly on 32-bit\n' >>"$T/equivalent"
printf 'd:4:rel:1\ta <= b\tequivalent CONFIG_KASAN\tonly with KASAN\n' >>"$T/equivalent"
printf 'score-non-equivalent 0\n' >"$T/threshold"
report "$T/r7.json"
check "a mutant equivalent under a pinned option is equivalent" \
	jqt '[.results[] | select(.verdict == "equivalent") | .id] == ["b:2:rel:1"]' "$T/report/report.json"
check "... one of an option pinned the other way fails the gate" \
	grep -q "no reason in .*: c:3:rel:1 (the reason at .*: its option CONFIG_64BIT=n is pinned the other way" "$T/out"
check "... and one of an option full does not pin (CONFIG_KASAN)" \
	grep -q "no reason in .*: d:4:rel:1 (the reason at .*: its option CONFIG_KASAN is pinned by no fragment of full" "$T/out"
sed '1s/^{/{"variant":"kasan",/' "$T/r7.json" >"$T/r7-kasan.json"
report "$T/r7-kasan.json"
check "... which is equivalent in results the kasan variant judged" \
	jqt '[.results[] | select(.verdict == "equivalent") | .id] == ["b:2:rel:1", "d:4:rel:1"]' "$T/report/report.json"
# A reason under an option pinned the other way is another kernel's: its mutant killed here does not make it stale.
results "$T/r8.json" a:1:rel:1 killed b:2:rel:1 killed c:3:rel:1 killed
printf '# test\nc:3:rel:1\ta <= b\tequivalent CONFIG_64BIT=n\tonly on 32-bit\n' >"$T/equivalent"
report "$T/r8.json"
check "a killed mutant whose reason's option is pinned the other way passes the gate (the reason is another kernel's)" \
	[ $? = 0 ]
printf '# test\nc:3:rel:1\ta <= b\tequivalent CONFIG_64BIT\tonly on 64-bit\n' >"$T/equivalent"
report "$T/r8.json"
check "... while one whose option is pinned so is stale" [ $? = 1 ]
printf 'score-non-equivalent 60\n' >"$T/threshold"
printf '# test\nc:3:rel:1\ta <= b\tthe test says so\n' >"$T/equivalent"
report "$T/r1.json"
check "a reason without its kind is exit 2" [ $? = 2 ]
check "... naming the line" grep -q 'equivalent:2: want ID<TAB>MUTATED LINE<TAB>KIND<TAB>REASON' "$T/out"
printf '# test\nc:3:rel:1\ta <= b\tsurvivor CONFIG_64BIT\tonly on 64-bit\n' >"$T/equivalent"
report "$T/r1.json"
check "a survivor's reason that names an option is exit 2: that is an equivalence under it" [ $? = 2 ]
check "... naming the kind it should be" grep -q "equivalent:2: a survivor is accepted whatever the configuration: a mutant equivalent only with CONFIG_64BIT is 'equivalent CONFIG_64BIT'" "$T/out"
results "$T/r2.json" a:1:rel:1 killed b:2:rel:1 timeout c:3:rel:1 survived
printf '# test\nb:2:rel:1\ta <= b\tsurvivor\ta timeout the test accepts\nc:3:rel:1\ta <= b\tsurvivor\tthe test accepts it\n' \
	>"$T/equivalent"
report "$T/r2.json"
check "a score below the threshold fails the gate, every survivor accepted" [ $? = 1 ]
check "... and says so" grep -q 'below the threshold' "$T/out"
# The project's own reasons: each names a mutant of some generation, with the line it was written for, and each
# option a reason needs is pinned for the kernels that judge it.
"$mutate" reasons >"$T/reasons.out" 2>&1
check "every reason in tests/mutate/equivalent names a mutant that exists, with its line, and its option pinned" [ $? = 0 ]
diag "$T/reasons.out"
# Planted, judged for the kasan variant: a reason for a mutant that does not exist; an equivalence under an option
# no fragment pins (the probe), and two under pinned options (CONFIG_64BIT, and CONFIG_KASAN, which only kasan pins), each
# for a mutant that exists and has no reason.
field1=$(awk -F'\t' '$1 ~ /:field:1$/ && $2 == "vba = vp->vm_pgoff;" { print $1 "\t" $3; exit }' "$T/all-default")
field2=$(awk -F'\t' '$1 ~ /:field:2$/ && $2 == "vba = vp->vm_pgoff;" { print $1 "\t" $3; exit }' "$T/all-default")
tern=$(awk -F'\t' '$1 ~ /:tern:1$/ && $2 == "zba = (hba <= vba) ? vba : hba;" { print $1 "\t" $3; exit }' "$T/all-default")
{
	cat "$top/tests/mutate/equivalent"
	printf 'mm/memory.c:1:rel:1\tno such line\tequivalent\tplanted\n'
	printf '%s\tequivalent CONFIG_MUTATE_T_NOWHERE\tplanted\n' "$field1"
	printf '%s\tequivalent CONFIG_64BIT\tplanted\n' "$field2"
	printf '%s\tequivalent CONFIG_KASAN\tplanted\n' "$tern"
} >"$T/eq-planted"
"$mutate" reasons --equivalent "$T/eq-planted" --variant kasan >"$T/reasons.out" 2>&1
check "a planted reason for a mutant that does not exist fails it (exit 1)" [ $? = 1 ]
check "... naming its file and line" grep -q "eq-planted:[0-9]*: mm/memory.c:1:rel:1 'no such line' is no mutant" \
	"$T/reasons.out"
check "... and an equivalence under an option no fragment pins, naming the option and the variant (${field1%%	*})" \
	grep -q "eq-planted:[0-9]*: ${field1%%	*}, equivalent under an option in generation .*: its option CONFIG_MUTATE_T_NOWHERE is pinned by no fragment of kasan" \
	"$T/reasons.out"
check "... not one of CONFIG_64BIT, which umlbed.config pins" not grep -q "${field2%%	*}," "$T/reasons.out"
check "... nor one of CONFIG_KASAN, which the variant of --variant kasan pins" not grep -q "${tern%%	*}," "$T/reasons.out"
# A reason whose mutant is killed now is stale: the gate names it.
printf '# test\nc:3:rel:1\ta <= b\tequivalent\tthe test says so\n' >"$T/equivalent"
results "$T/r5.json" a:1:rel:1 killed b:2:rel:1 killed c:3:rel:1 killed
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
printf 'score-non-equivalent 0\n' >"$T/threshold"
# A TCE verdict needs no reason and leaves the second score's denominator; a duplicate is left out of both, as a
# mutant not built.
results "$T/r6.json" a:1:rel:1 killed b:2:rel:1 equivalent c:3:rel:1 duplicate d:4:rel:1 survived
printf '# test\nd:4:rel:1\ta <= b\tsurvivor\tthe test accepts it\n' >"$T/equivalent"
report "$T/r6.json"
check "a TCE-equivalent mutant needs no reason, and the gate passes" [ $? = 0 ]
check "... and a duplicate is left out of the score (1 killed of 3), the TCE-equivalent of the gate's (1 of 2)" \
	jqt '.counts.duplicate == 1 and .score == "33.3" and .score_non_equivalent == "50.0"' "$T/report/report.json"
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
	"$BUILD/runner/umlbed" mutate --help >"$T/help" 2>&1
	check "umlbed mutate --help is the driver's manual (exit 0)" [ $? = 0 ]
	# The text is what is tested: the manual names the option.
	check "... which names --diff REV" grep -q -- '--diff REV' "$T/help"
	# The runner gives an instance umlbed_mutant=N only when its environment has UMLBED_MUTANT=N (the mutate tool's),
	# and refuses the option from any command line (umlbed boot --print shows the command line and boots nothing).
	mkdir -p "$T/boot/root" "$T/boot/dir"
	boot=("$BUILD/runner/umlbed" boot --print --root "$T/boot/root" --dir "$T/boot/dir" --kernel "$kernel" --umid "mutate-t-$$")
	"${boot[@]}" >"$T/boot.out" 2>&1
	check "an instance's command line without UMLBED_MUTANT has no umlbed_mutant= (the probe: mem= is there)" \
		eval 'grep -q "^mem=" "$T/boot.out" && ! grep -q "umlbed_mutant" "$T/boot.out"'
	UMLBED_MUTANT=41 "${boot[@]}" >"$T/boot.out" 2>&1
	check "UMLBED_MUTANT=41 gives it umlbed_mutant=41" grep -qx "umlbed_mutant=41" "$T/boot.out"
	for v in 0 041 4x -1 1234567890; do
		UMLBED_MUTANT=$v "${boot[@]}" >"$T/boot.out" 2>&1
		rc=$?
		check "UMLBED_MUTANT=$v is refused (exit 2, naming UMLBED_MUTANT; got $rc)" eval '[ $rc = 2 ] && grep -q UMLBED_MUTANT "$T/boot.out"'
	done
	"${boot[@]}" --cmdline "quiet umlbed_mutant=3" >"$T/boot.out" 2>&1
	rc=$?
	check "--cmdline umlbed_mutant=3 is refused (exit 2, naming the option; got $rc)" \
		eval '[ $rc = 2 ] && grep -q "option .umlbed_mutant. is the mutate tool" "$T/boot.out"'
	# Three mutants of three operators, whatever the series' line numbers are now.
	"$mutate" list >"$T/list"
	ids=()
	for op in del ret rel; do ids+=("$(awk -F'\t' -v op=":$op:" 'index($1, op) { print $1; exit }' "$T/list")"); done
	only=()
	for id in "${ids[@]}"; do only+=(--only "$id"); done
	# One quick scenario judges: the driver's logic is under test here, not the suite's power (make mutate). Every
	# mutant runs its runs whatever make coverage left in the build folder: the line reach has a check of its own.
	only+=(--scenario "$top/scenarios/rounding.lua" --reach none)
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
	# A failed kbuild is a mutant that does not compile. The mutants are a --diff's, where there is one: run --diff
	# judges those of the changed line, and only those.
	if [ -n "${older:-}" ]; then
		sel=(--diff "$older")
		want=$(cut -f1 "$T/diff" | sort)
	else
		sel=(--only "${ids[0]}")
		want=${ids[0]}
	fi
	UMLBED_MUTATE_KBUILD=false "$mutate" run "${sel[@]}" --scenario "$top/scenarios/rounding.lua" \
		--out "$T/nobuild" >"$T/nobuild.out" 2>&1
	check "a kbuild that fails makes each mutant 'not built'" \
		jqt '[.results[].verdict] | length > 0 and all(. == "not built")' "$T/nobuild/results.json"
	check "... and the run judged the mutants asked for (${sel[*]})" \
		[ "$(jq -r '.results[].id' "$T/nobuild/results.json" | sort)" = "$want" ]
	if [ -n "${older:-}" ]; then
		check "... and its results say of which change" jqt --arg r "$older" '.diff == $r' "$T/nobuild/results.json"
		"$BUILD/runner/umlbed" mutate --diff "$same" --out "$T/diff-none" >"$T/diff-none.out" 2>&1
		check "umlbed mutate --diff REV is a run of the change's mutants (none here)" \
			jqt --arg r "$same" '.results == [] and .diff == $r' "$T/diff-none/results.json"
	fi
	# Two mutants that a scenario kills, each confirmed alone, as the runner's JSON report tells the runs: one
	# FAILED (fails-for-mutant.lua), one that hangs until the timeout (hangs-for-mutant.lua). Each scenario does so
	# for the mutant whose number it is given: what the runner's UMLBED_MUTANT says, the number umlbed_mutant= gives
	# the schema kernel (the mutant's place in list's output). The unmutated kernel's run has none and must pass
	# (else exit 2).
	num0=$(cut -f1 "$T/list" | grep -n -x -F "${ids[0]}" | cut -d: -f1)
	num1=$(cut -f1 "$T/list" | grep -n -x -F "${ids[1]}" | cut -d: -f1)
	MUTATE_T_FAIL=$num0 MUTATE_T_HANG=$num1 "$mutate" run --only "${ids[0]}" \
		--only "${ids[1]}" --timeout 2 --scenario "$top/tests/mutate/scenarios/fails-for-mutant.lua" \
		--scenario "$top/tests/mutate/scenarios/hangs-for-mutant.lua" --out "$T/kills" >"$T/kills.out" 2>&1
	check "a run of a mutant that hangs ends (exit $?)" [ -f "$T/kills/results.json" ]
	check "... the one whose run fails, and fails again alone, is killed by that run (mutant $num0)" \
		jqt --argjson n "$num0" '[.results[] | select(.killed_by[0].verdict == "FAILED") | .verdict, .killed_by[0].file, .num]
			== ["killed", "tests/mutate/scenarios/fails-for-mutant.lua", $n]' "$T/kills/results.json"
	check "... and the hang, timed out again alone, is detected: killed, as a hang (mutant $num1)" \
		jqt --argjson n "$num1" '[.results[] | select(.detected == "hang") | .verdict, .killed_by[0].file, .num]
			== ["killed", "tests/mutate/scenarios/hangs-for-mutant.lua", $n]' "$T/kills/results.json"
	jq -c '.results[]' "$T/kills/results.json" 2>/dev/null | diag

	# The line reach: a mutant runs the runs that execute its line, and no run when none does. A planted reach file
	# (--reach) says that the two runs of rounding.lua were measured, that no line of the first mutant's file ran,
	# and that every line of the second's ran in the first run only.
	tree=$BUILD/mutate/kernel/full$("$gen_sh" get "$("$gen_sh" default)" suffix)/orig
	f0=${ids[0]%%:*} f1=${ids[1]%%:*}
	mapfile -t rr < <("$BUILD/runner/umlbed" list "$top/scenarios/rounding.lua" | cut -f2)
	perl -MJSON::PP -e 'my ($tree, $f0, $f1, @runs) = @ARGV; my %f; for ([$f0, []], [$f1, [0]]) { my ($f, $r) = @$_;
		open(my $h, "<", "$tree/$f") or die "$tree/$f: $!"; my $n = () = do { local $/; <$h> } =~ /\n/g;
		$f{$f} = [map { { line => $_, runs => $r } } 1 .. $n] } print encode_json({ format => 1, src => $tree,
		runs => [map { { name => $_ } } @runs], files => \%f })' "$tree" "$f0" "$f1" "${rr[@]}" >"$T/reach.json"
	"$mutate" run --only "${ids[0]}" --only "${ids[1]}" --reach "$T/reach.json" --scenario "$top/scenarios/rounding.lua" \
		--out "$T/reach" >"$T/reach.out" 2>&1
	check "the line reach: a mutant whose line no run executes is 'not reached', with no run (${ids[0]})" \
		jqt --arg id "${ids[0]}" '.results[] | select(.id == $id) | .verdict == "not reached" and (.runs // 0) == 0' \
		"$T/reach/results.json"
	check "... and one whose line one run executes runs that one, of rounding.lua's ${#rr[@]} (${ids[1]})" \
		jqt --arg id "${ids[1]}" '.results[] | select(.id == $id) | .verdict == "survived" and .runs == 1' "$T/reach/results.json"

	# SIGTERM while a mutant is in the tree: a mutant that is no switch (a line outside a function) has a kbuild of
	# its own, with its line written into the tree; the build is ended first, the schema put back with a new time.
	id=$(awk -F'\t' '$2 ~ /^static .*\[[0-9]+\];$/ && index($1, ":const:") { print $1; exit }' "$T/list")
	file=$BUILD/mutate/kernel/full$("$gen_sh" get "$("$gen_sh" default)" suffix)/src/${id%%:*}
	# A kbuild that runs until it is ended, with the build folder in its command line as kbuild has it (a mutant's
	# compile, which is given its file too, passes).
	UMLBED_MUTATE_KBUILD='[ -n "${2:-}" ] || while :; do sleep 1; done' \
		"$mutate" run --only "$id" --scenario "$top/scenarios/rounding.lua" --out "$T/term" >"$T/term.out" 2>&1 &
	pid=$!
	# building: the mutant is in place, its schema beside it, and its kbuild runs (bounded: a build takes seconds).
	# The kbuild is the run's own child, in a process group of its own: a neighbour's mutate build is not this one.
	# The probe sees that group live before the check below trusts its silence.
	build_pg=
	building() {
		[ -e "$file.umlbed-orig" ] && build_pg=$(pgrep -P "$pid" -f "O=$BUILD/mutate/") &&
			[[ $build_pg =~ ^[0-9]+$ ]] && pgrep -g "$build_pg" >/dev/null
	}
	for _ in $(seq 600); do building && break; sleep 0.1; done
	check "the schema waits beside the mutated file of $id, and pgrep sees the build (the probes)" building
	cp "$file.umlbed-orig" "$T/original"
	kill -TERM "$pid"
	wait "$pid"
	check "SIGTERM ends the run with 143" [ $? = 143 ]
	check "... and puts the schema back" cmp -s "$T/original" "$file"
	check "... with no copy left beside it" [ ! -e "$file.umlbed-orig" ]
	# pgrep exits 1 for no match only; 2 or 3 is an error of the probe, not an empty group.
	gone() { [[ $build_pg =~ ^[0-9]+$ ]] || return 1; pgrep -g "$build_pg" -r R,S,D,T,t,I >/dev/null; [ $? = 1 ]; }
	check "... and no build of the run still going (its group has ended)" gone
fi
echo "1..$n"
