#!/usr/bin/perl
# Mutation testing of the series: mutate.pl list|run|report [options]; each mutant is one changed line of the series' C code, built incrementally and run against the scenarios that reach it.
#
#   mutate.pl list   [--gen GEN] [--all] [--diff REV] [--shard K/N]   the mutants, one a line: ID<TAB>ORIGINAL<TAB>MUTATED
#                                                                (the lines without their indentation)
#   mutate.pl run    [--gen GEN] [--all] [--diff REV] [--shard K/N] [--only ID]... [--scenario FILE]... [--out DIR]
#                    [--timeout S] [--resume] [--variant BASE]
#                    builds and runs each mutant, writes DIR/results.json (default BUILD/mutate/GEN/shard-K-of-N)
#                    after each one; --resume keeps the results DIR holds of the same mutants (same id and change);
#                    --scenario judges with those scenario files only (default: every file of scenarios/), for the
#                    edit loop and for the tool's own test; a command line that starts with an option is run's
#   mutate.pl file   [--all] FILE...                             the mutants of every line of each C file (the
#                                                                operators' own test)
#   mutate.pl tce OBJECT OBJECT                                  exit 0 when the two have the same code (debug aside)
#   mutate.pl reasons [--equivalent F] [--variant BASE]          every reason names a mutant that exists (its id and
#                                                                its mutated line, in some generation), and each
#                                                                option a reason needs is pinned for the judging
#                                                                variant, or exit 1
#   mutate.pl report [--gen GEN] [--out DIR] [--threshold F] [--equivalent F] RESULTS.json...
#                    joins results (shards), writes DIR/report.json and DIR/index.html, and fails (exit 1) when the
#                    score over the mutants that are not equivalent is below the threshold (tests/mutate/threshold)
#                    or when a mutant that was built and not killed has no reason in tests/mutate/equivalent
#
# The lines mutated are those the series (the generation's "series" key) adds or changes in its .c files: the
# series is applied alone to copies of the pristine files and compared with them, so the test bed's own patches
# (fixes, schedule points) are never mutated. --diff REV keeps those that the change of the series since the git
# revision REV touched: the series as it was at REV is applied alone to other copies, and a line counts when it
# differs from what that gave. An id is FILE:LINE:OPERATOR:N, LINE in the series-applied file, N counting that
# operator's mutants on that line from 1. The operators are the classic ones of C mutation tools: rel (< <= > >= ==
# !=, and < to > the other way), logic (&& ||), neg (a condition negated), arith (+ 1 or - 1 dropped or added, + and
# - swapped), const (0 1 -1 2 and N +- 1), ret (a returned value, an error code, true and false), del (a statement
# deleted), swap (two arguments of a call swapped), flow (a return, continue, break or goto deleted), guard (an if's
# condition made 1), lock (a lock's or unlock's call deleted), lockrw (read and write forms of a lock exchanged),
# field (vm_pgoff, vm_start and vm_end, first_index and last_index exchanged), tern (the arms of ?: swapped), minmax
# (min and max exchanged) and shift (<< and >> exchanged, a named shift count one less or more). By default a line
# keeps each operator's first mutant and, for rel, arith, const and shift, the other direction of that same change;
# --all keeps every one.
#
# run builds the generation's full variant (--variant BASE: BASE, judge say, with the generation's suffix) once in a
# tree of its own (BUILD/mutate/kernel/VARIANT, uml-kernel/build.sh with BUILD= there and the pristine tree as KSRC),
# then for each mutant: writes the mutated line, runs kbuild (one object recompiles, the kernel relinks), restores the
# line. A mutant that does not compile is "not built". The runs are the scenario files that reach the mutated function
# according to the coverage report's reach.txt (BUILD/coverage/COVERAGE-VARIANT/report/reach.txt, make coverage; a
# file newer than it runs for every mutant), or every scenario when there is none; the files that killed earlier
# mutants go first. A mutant is killed by the first FAILED or CRASHED run (read from the runner's JSON report),
# confirmed by running that scenario file alone; a run that only times out makes it "timeout" (not a kill) unless it
# times out again alone. A run of the unmutated kernel first must pass, or nothing is reported.
use strict;
use warnings;
use Cwd qw(abs_path);
use Digest::SHA;
use File::Basename qw(dirname);
use File::Path qw(make_path remove_tree);
use File::Temp qw(tempdir);
use Getopt::Long qw(GetOptionsFromArray);
use JSON::PP;
use List::Util qw(max min);
use POSIX qw(floor);
use Time::HiRes qw(time);

my $top = abs_path(dirname(abs_path($0)) . '/..');
my $BUILD = $ENV{BUILD} // "$top/build";
my $gen_sh = "$top/uml-kernel/generation.sh";
my @OPS = qw(rel logic neg ret arith const del swap flow guard lock lockrw field tern minmax shift);
my %OP_RANK = map { $OPS[$_] => $_ } 0 .. $#OPS;
# The operators whose change has two directions, both kept by default.
my %PAIRED = map { $_ => 1 } qw(rel arith const shift);

sub usage { print STDERR "usage: mutate.pl list|run|file|tce|reasons|report [--gen GEN] [--all] [--diff REV] [--shard K/N] [--only ID]... [--out DIR] [--timeout S] [RESULTS.json...] (mutate.pl --help)\n"; exit 2 }
sub fail { print STDERR "mutate: @_\n"; exit 2 }
sub note { print STDERR "mutate: @_\n" }

# gen_get(GEN, KEY): a key of the generation's file, read once.
my %gen_cache;
sub gen_get {
    my ($g, $key) = @_;
    return $gen_cache{"$g\t$key"} //= do {
        my $v = `"$gen_sh" get "$g" "$key"`;
        $? == 0 or fail("generation $g has no key $key");
        chomp $v;
        $v;
    };
}

sub slurp {
    my ($f) = @_;
    open(my $h, '<', $f) or fail("$f: $!");
    local $/;
    my $t = <$h>;
    return $t;
}

sub spew {
    my ($f, $t) = @_;
    open(my $h, '>', "$f.tmp") or fail("$f.tmp: $!");
    print $h $t;
    close $h or fail("$f.tmp: $!");
    rename "$f.tmp", $f or fail("$f: $!");
}

# ---- The series' lines ----

# series_files(GEN): the series' patches in order, and the .c files they touch.
sub series_patches {
    my ($g) = @_;
    my $dir = "$top/" . gen_get($g, 'series');
    my @p = grep { !/^#/ && /\S/ } split /\n/, slurp("$dir/series");
    return map { "$dir/$_" } @p;
}

sub touched {
    my @f;
    for my $p (@_) {
        my $t = slurp($p);
        push @f, $1 while $t =~ m{^\+\+\+ b/(\S+)}mg;
    }
    my %seen;
    return grep { !$seen{$_}++ } @f;
}

# apply_series(PRISTINE, PATCH...): a scratch tree with the patches alone applied to copies of the files they touch,
# and the .c files among them.
sub apply_series {
    my ($pristine, @patches) = @_;
    my $tmp = tempdir('umlbed-mutate-series.XXXXXX', TMPDIR => 1, CLEANUP => 1);
    for my $f (touched(@patches)) {
        next unless -e "$pristine/$f";
        make_path(dirname("$tmp/$f"));
        system('cp', "$pristine/$f", "$tmp/$f") == 0 or fail("cp $f");
    }
    for my $p (@patches) {
        system('patch', '-d', $tmp, '-p1', '-s', '--no-backup-if-mismatch', '-i', $p) == 0
            or fail("$p does not apply to the pristine files");
    }
    return ($tmp, grep { /\.c$/ } touched(@patches));
}

# series_tree(GEN, PRISTINE): a scratch tree with the series alone applied to copies of the files it touches.
sub series_tree {
    my ($g, $pristine) = @_;
    return apply_series($pristine, series_patches($g));
}

# git_show(REV, PATH): the file PATH of the checkout at revision REV, or undef when REV has no such file.
sub git_show {
    my ($rev, $path) = @_;
    my $pid = open(my $h, '-|') // fail("fork: $!");
    if (!$pid) {
        open(STDERR, '>', '/dev/null');
        exec('git', '-C', $top, 'show', "$rev:$path") or exit 127;
    }
    local $/;
    my $t = <$h>;
    return close($h) ? $t : undef;
}

# series_at(GEN, PRISTINE, REV): a scratch tree with the generation's series as it was at the git revision REV
# applied alone to copies of the pristine files (empty when REV has no such series: every line of the series is
# then new).
sub series_at {
    my ($g, $pristine, $rev) = @_;
    my $dir = gen_get($g, 'series');
    my $pdir = tempdir('umlbed-mutate-rev.XXXXXX', TMPDIR => 1, CLEANUP => 1);
    my $list = git_show($rev, "$dir/series");
    return $pdir unless defined $list;
    my @patches;
    for my $name (grep { !/^#/ && /\S/ } split /\n/, $list) {
        my $t = git_show($rev, "$dir/$name") // fail("$rev:$dir/$name: not in the revision its series names");
        (my $base = $name) =~ s{.*/}{};
        spew("$pdir/$base", $t);
        push @patches, "$pdir/$base";
    }
    my ($tree) = apply_series($pristine, @patches);
    return $tree;
}

# changed_lines(OLD, NEW): the line numbers of NEW that diff -U0 shows as added or changed (all, for a new file).
sub changed_lines {
    my ($old, $new) = @_;
    my %l;
    if (!-e $old) {
        my $n = () = slurp($new) =~ /\n/g;
        $l{$_} = 1 for 1 .. $n;
        return \%l;
    }
    open(my $d, '-|', 'diff', '-U0', $old, $new) or fail("diff: $!");
    while (<$d>) {
        next unless /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/;
        my ($s, $n) = ($1, $2 // 1);
        $l{$_} = 1 for $s .. $s + $n - 1;
    }
    close $d;
    return \%l;
}

# line_map(A, B): for each line of A that diff leaves unchanged in B, its number in B.
sub line_map {
    my ($a, $b) = @_;
    my ($na) = scalar(() = slurp($a) =~ /\n/g);
    my (%map, @hunks);
    open(my $d, '-|', 'diff', '-U0', $a, $b) or fail("diff: $!");
    while (<$d>) {
        push @hunks, [$1, $2 // 1, $3, $4 // 1] if /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
    }
    close $d;
    my ($ia, $ib) = (1, 1);
    for my $h (@hunks) {
        my ($sa, $la, $sb, $lb) = @$h;
        # A pure insertion's old start names the line before it; a deletion's new start likewise.
        my $enda = $la ? $sa : $sa + 1;
        while ($ia < $enda) { $map{$ia++} = $ib++ }
        $ia += $la;
        $ib = ($lb ? $sb : $sb + 1) + $lb;
    }
    while ($ia <= $na) { $map{$ia++} = $ib++ }
    return \%map;
}

# ---- C text: comments and strings masked, functions found ----

# mask(LINES): each line with the contents of comments, strings and character constants blanked, so that an
# operator is only ever found in code. A comment may span lines.
sub mask {
    my @out;
    my $in_comment = 0;
    for my $l (@_) {
        my $m = '';
        my $i = 0;
        while ($i < length $l) {
            my $c = substr($l, $i, 1);
            my $two = substr($l, $i, 2);
            if ($in_comment) {
                if ($two eq '*/') { $in_comment = 0; $m .= '  '; $i += 2 } else { $m .= ' '; $i++ }
            } elsif ($two eq '/*') {
                $in_comment = 1; $m .= '  '; $i += 2;
            } elsif ($two eq '//') {
                $m .= ' ' x (length($l) - $i); last;
            } elsif ($c eq '"' || $c eq "'") {
                my $j = $i + 1;
                $j += substr($l, $j, 1) eq '\\' ? 2 : 1 while $j < length $l && substr($l, $j, 1) ne $c;
                $m .= $c . (' ' x ($j - $i - 1)) . ($j < length $l ? $c : '');
                $i = $j + 1;
            } else {
                $m .= $c; $i++;
            }
        }
        push @out, $m;
    }
    return @out;
}

# functions(LINES): for each line number, the function whose body holds it (kernel style: the body's braces are
# at the start of a line, the name is the last identifier before the first parenthesis of its declarator).
sub functions {
    my @l = @_;
    my (@f, $cur, $decl);
    for my $i (0 .. $#l) {
        my $s = $l[$i];
        if (!defined $cur && $s =~ /^[A-Za-z_]/ && $s !~ /;\s*$/) {
            $decl = $1 if $s =~ /\b([A-Za-z_]\w*)\s*\(/;
        }
        $cur = $decl if $s =~ /^\{/ && defined $decl;
        $f[$i + 1] = $cur;
        if ($s =~ /^\}/) { undef $cur; undef $decl }
    }
    return \@f;
}

# ---- Operators ----

my $ID = qr/[A-Za-z_]\w*/;
my $SIMPLE = qr/(?:&?$ID(?:(?:->|\.)$ID)*|\d+)/;
my $DECL_TYPES = qr/(?:struct|union|enum|unsigned|signed|int|long|short|char|bool|const|static|size_t|ssize_t|loff_t|pgoff_t|u8|u16|u32|u64|s64|void)\b/;
# A lock or unlock call: a name with "lock" or "unlock" as one of its words (i_mmap_lock_read, spin_unlock_irq,
# rcu_read_lock, mutex_lock, lock_page), or the rwsem's down/up.
my $LOCK_CALL = qr/(?:\w+_)?(?:un)?lock(?:_\w+)?|(?:down|up)_(?:read|write)/;
# The read and write forms of the same lock, each the other's mutant.
my %LOCK_RW = (
    i_mmap_lock_read => 'i_mmap_lock_write', i_mmap_unlock_read => 'i_mmap_unlock_write',
    mmap_read_lock => 'mmap_write_lock', mmap_read_unlock => 'mmap_write_unlock',
    down_read => 'down_write', up_read => 'up_write', read_lock => 'write_lock', read_unlock => 'write_unlock',
);
%LOCK_RW = (%LOCK_RW, reverse %LOCK_RW);
# The fields that hold positions of the same kind, each replaced by the others of its group.
my %FIELD_TO = (
    vm_pgoff => [qw(vm_start vm_end)], vm_start => [qw(vm_end vm_pgoff)], vm_end => [qw(vm_start vm_pgoff)],
    first_index => ['last_index'], last_index => ['first_index'],
);
my %MINMAX = (min => 'max', max => 'min', min_t => 'max_t', max_t => 'min_t', min3 => 'max3', max3 => 'min3');

# close_paren(M, OPEN): the position of the parenthesis that closes the one at OPEN in M, or undef when it does not
# close on this line.
sub close_paren {
    my ($m, $open) = @_;
    my $depth = 0;
    for my $j ($open .. length($m) - 1) {
        my $ch = substr($m, $j, 1);
        $depth++ if $ch eq '(';
        $depth-- if $ch eq ')';
        return $j if $depth == 0;
    }
    return undef;
}

# ternary_arms(M, Q): the two arms of the conditional whose '?' is at Q, as [start, length] each (blanks around
# them left out), or () when the expression does not end on this line.
sub ternary_arms {
    my ($m, $q) = @_;
    my ($depth, $nest, $colon) = (0, 0, undef);
    my $j;
    for ($j = $q + 1; $j < length $m; $j++) {
        my $ch = substr($m, $j, 1);
        if ($ch eq '(' || $ch eq '[') { $depth++ }
        elsif ($ch eq ')' || $ch eq ']') { last if --$depth < 0 }
        elsif ($depth == 0 && $ch eq '?') { $nest++ }
        elsif ($depth == 0 && $ch eq ':') {
            if (defined $colon) { last unless $nest; $nest-- }
            elsif ($nest) { $nest-- }
            else { $colon = $j }
        } elsif ($depth == 0 && ($ch eq ',' || $ch eq ';')) { last }
    }
    return () unless defined $colon && $j < length $m;
    my @arms;
    for my $span ([$q + 1, $colon], [$colon + 1, $j]) {
        my $t = substr($m, $span->[0], $span->[1] - $span->[0]);
        my ($lead) = $t =~ /^(\s*)/;
        (my $core = $t) =~ s/^\s+|\s+$//g;
        return () if $core eq '';
        push @arms, [$span->[0] + length $lead, length $core];
    }
    return @arms;
}

# candidates(M, LINE, NEXT): the changes of one line, M the line masked (positions are the same in the line), NEXT
# the next line that is not blank, masked. Each { op, at, len, to, tier, pair, key }: replace LEN characters at AT
# by TO. Tier 0 holds the changes each operator had before tier 1's were added: a line's mutants are numbered
# operator by operator, tier 0 first, so the ids of the earlier changes stay what they were. PAIR names the two
# directions of one change (< to <= and to >, a constant up and down), which the default keeps together. KEY
# orders an operator's changes on the line (default: AT).
sub candidates {
    my ($m, $line, $next) = @_;
    my @c;
    my $add = sub {
        my ($op, $at, $len, $to, %x) = @_;
        push @c, { op => $op, at => $at, len => $len, to => $to, tier => $x{tier} // 0, pair => $x{pair},
                   key => $x{key} // $at, seq => scalar @c };
    };
    return () if $m =~ /^\s*#/ || $m !~ /\S/;
    # rel: relational and equality operators, not shifts, arrows or compound assignments; tier 1 turns the
    # comparison around (< to >, <= to >=).
    while ($m =~ /(?<![<>=!\-])(<=|>=|==|!=|<|>)(?![<>=])/g) {
        my ($op, $at) = ($1, $-[1]);
        next if $op eq '>' && $at > 0 && substr($m, $at - 1, 1) eq '-';
        my %to = ('<' => '<=', '<=' => '<', '>' => '>=', '>=' => '>', '==' => '!=', '!=' => '==');
        my %back = ('<' => '>', '<=' => '>=', '>' => '<', '>=' => '<=');
        $add->('rel', $at, length $op, $to{$op}, pair => "rel$at");
        $add->('rel', $at, length $op, $back{$op}, tier => 1, pair => "rel$at") if $back{$op};
    }
    # logic: && and ||.
    while ($m =~ /(&&|\|\|)/g) {
        $add->('logic', $-[1], 2, $1 eq '&&' ? '||' : '&&');
    }
    # neg: the whole condition of an if or a while on this line.
    if ($m =~ /\b(?:if|while)\s*(\()/) {
        my $open = $-[1];
        my $j = close_paren($m, $open);
        if (defined $j) {
            my $cond = substr($line, $open + 1, $j - $open - 1);
            $add->('neg', $open + 1, $j - $open - 1, "!($cond)");
        }
    }
    # ret: a returned value, an error code, a boolean constant.
    if ($m =~ /\breturn\s+([^;]+);/) {
        my ($at, $len, $v) = ($-[1], length $1, $1);
        # (0 for NULL or false would change nothing; false becomes true below.)
        $add->('ret', $at, $len, '0') unless $v =~ /^\s*(?:0|NULL|false)\s*$/;
        $add->('ret', $at, $len, '1') if $v =~ /^\s*0\s*$/;
    }
    while ($m =~ /-(E[A-Z0-9]+)\b/g) {
        $add->('ret', $-[1], length $1, $1 eq 'EINVAL' ? 'EPERM' : 'EINVAL');
    }
    while ($m =~ /\b(true|false)\b/g) {
        $add->('ret', $-[1], length $1, $1 eq 'true' ? 'false' : 'true');
    }
    # arith: + 1 and - 1 dropped, binary + and - swapped, + 1 added to an assigned value (and in tier 1, - 1).
    while ($m =~ /(\s[+-] 1)(?![\w.])/g) {
        $add->('arith', $-[1], length $1, '');
    }
    while ($m =~ /(?<=[\w)\]]) ([+-]) (?=[\w(])/g) {
        $add->('arith', $-[1], 1, $1 eq '+' ? '-' : '+');
    }
    # (Not to a constant: const and ret change those; not to a boolean, where + 1 changes nothing.)
    if ($m =~ /^\s*\**$ID(?:(?:->|\.)$ID)*\s*=\s*([^;=][^;]*);\s*$/) {
        my ($at, $len, $v) = ($-[1], length $1, $1);
        unless ($v =~ /^\s*(?:-?\d+|-?E[A-Z0-9]+|true|false|NULL)\s*$/) {
            my $e = substr($line, $at, $len);
            $add->('arith', $at, $len, "($e) + 1", pair => 'assign');
            $add->('arith', $at, $len, "($e) - 1", tier => 1, pair => 'assign');
        }
    }
    # const: integer constants (not part of a name or of a size suffix's number), one up and one down: 0 to 1 and
    # -1, 1 to 0 and 2 (and -1), N to N + 1 and N - 1.
    while ($m =~ /(?<![\w.])(\d+)(?![\w.])/g) {
        my ($n, $at) = ($1, $-[1]);
        next if $n =~ /^0\d/;
        my $p = "const$at";
        if ($n == 0) {
            $add->('const', $at, 1, 1, pair => $p);
            $add->('const', $at, 1, -1, tier => 1, pair => $p);
        } elsif ($n == 1) {
            $add->('const', $at, 1, 0, pair => $p);
            $add->('const', $at, 1, -1);
            $add->('const', $at, 1, 2, tier => 1, pair => $p);
        } else {
            $add->('const', $at, length $n, $n + 1, pair => $p);
            $add->('const', $at, length $n, $n - 1, pair => $p);
        }
    }
    # The whole statement of the line, if it is one and ends here.
    my ($st_at, $st_len) = $m =~ /^(\s*)(\S.*;)\s*$/ ? ($-[2], length $2) : ();
    my $balanced = (() = $m =~ /\(/g) == (() = $m =~ /\)/g);
    my $lock_stmt = $m =~ /^\s*$LOCK_CALL\s*\(.*\)\s*;\s*$/;
    # del: a whole statement on one line: a call, an assignment, an increment; not a declaration, a jump (flow's)
    # or a lock's call (lock's).
    if (defined $st_at && $balanced && !$lock_stmt && $m !~ /^\s*(?:return|break|continue|goto|case|default)\b/
        && $m !~ /^\s*$DECL_TYPES/ && $m !~ /^\s*$ID\s+\**$ID\s*(?:=|;|\[)/
        && ($m =~ /^\s*$ID(?:(?:->|\.)$ID)*\s*\(.*\)\s*;\s*$/ || $m =~ /^\s*[\w>.\-\[\]*]+\s*(?:[-+|&]?=|\+\+|--)/)) {
        $add->('del', $st_at, $st_len, ';');
    }
    # swap: two simple arguments of a call, side by side.
    while ($m =~ /\b$ID\s*\(\s*($SIMPLE)\s*,\s*($SIMPLE)\s*([,)])/g) {
        my ($a1, $s1, $a2, $s2) = ($1, $-[1], $2, $-[2]);
        pos($m) = $s1;    # the next call may start inside this one's arguments
        next if $a1 eq $a2;
        my $span = $s2 + length($a2) - $s1;
        my $mid = substr($line, $s1 + length $a1, $s2 - $s1 - length $a1);
        $add->('swap', $s1, $span, $a2 . $mid . $a1);
    }
    # flow: a return, continue, break or goto deleted. Not a return that ends its function (the next line closes
    # it): in a void function that changes nothing, in another one it does not compile (-Werror=return-type).
    if (defined $st_at && $balanced && $m =~ /^\s*(?:return\b[^;]*|continue|break|goto\s+$ID)\s*;\s*$/
        && !($m =~ /^\s*return\b/ && ($next // '') =~ /^\}/)) {
        $add->('flow', $st_at, $st_len, ';');
    }
    # guard: an if's condition replaced by 1, so that its body runs whatever the condition.
    if ($m =~ /\bif\s*(\()/) {
        my $open = $-[1];
        my $j = close_paren($m, $open);
        $add->('guard', $open + 1, $j - $open - 1, '1')
            if defined $j && substr($m, $open + 1, $j - $open - 1) !~ /^\s*1\s*$/;
    }
    # lock: a lock's or an unlock's call deleted (the whole statement).
    $add->('lock', $st_at, $st_len, ';') if defined $st_at && $balanced && $lock_stmt;
    # lockrw: a lock taken or released for writing instead of reading, or the other way round.
    while ($m =~ /\b($ID)\s*\(/g) {
        $add->('lockrw', $-[1], length $1, $LOCK_RW{$1}) if $LOCK_RW{$1};
    }
    # field: a VMA's or a range's position read from its sibling field (vm_pgoff, vm_start, vm_end; first_index,
    # last_index).
    while ($m =~ /(?:->|\.)($ID)\b/g) {
        my ($f, $at) = ($1, $-[1]);
        $add->('field', $at, length $f, $_) for @{ $FIELD_TO{$f} // [] };
    }
    # tern: the arms of a conditional expression swapped.
    while ($m =~ /\?/g) {
        my $q = $-[0];
        my ($x, $y) = ternary_arms($m, $q) or next;
        my $mid = substr($line, $x->[0] + $x->[1], $y->[0] - $x->[0] - $x->[1]);
        $add->('tern', $x->[0], $y->[0] + $y->[1] - $x->[0],
               substr($line, $y->[0], $y->[1]) . $mid . substr($line, $x->[0], $x->[1]));
    }
    # minmax: min and max (and min_t, min3) exchanged.
    while ($m =~ /\b($ID)\s*\(/g) {
        $add->('minmax', $-[1], length $1, $MINMAX{$1}) if $MINMAX{$1};
    }
    # shift: a shift by a named count one less and one more (PAGE_SHIFT - 1, PAGE_SHIFT + 1; a number's count is
    # const's), then << and >> exchanged.
    while ($m =~ /(<<|>>)(?!=)/g) {
        my ($op, $at) = ($1, $-[1]);
        if (substr($m, $at + 2) =~ /^(\s*)($ID)\b(?!\s*(?:\(|->|\.|\[))/) {
            my ($cat, $name) = ($at + 2 + length $1, $2);
            $add->('shift', $cat, length $name, "($name - 1)", key => $at, pair => "shift$at");
            $add->('shift', $cat, length $name, "($name + 1)", key => $at, pair => "shift$at");
        }
        $add->('shift', $at, 2, $op eq '<<' ? '>>' : '<<', key => $at);
    }
    return @c;
}

# line_mutants(FILE, N, LINE, MASKED, NEXT, FUNCTION, ALL): the mutants of one line. N counts each operator's changes
# on the line in operator, tier and position order; a change whose line is an earlier one's (ret's return 1 and
# const's, say) is left out, and keeps its number so that the others keep theirs. By default a line keeps each
# operator's first mutant, and for rel, arith, const and shift the other direction of that same change (the same
# PAIR): both the boundary and the reversal of a comparison, a constant one up and one down. ALL keeps every one.
sub line_mutants {
    my ($f, $n, $line, $masked, $next, $fn, $all) = @_;
    my (%count, %seen, @mut);
    my @c = sort { $OP_RANK{$a->{op}} <=> $OP_RANK{$b->{op}} || $a->{tier} <=> $b->{tier} || $a->{key} <=> $b->{key}
                   || $a->{seq} <=> $b->{seq} } candidates($masked, $line, $next);
    for my $c (@c) {
        my $new = substr($line, 0, $c->{at}) . $c->{to} . substr($line, $c->{at} + $c->{len});
        next if $new eq $line;
        my $k = ++$count{$c->{op}};
        next if $seen{$new}++;
        push @mut, { id => "$f:$n:$c->{op}:$k", file => $f, line => $n, op => $c->{op}, function => $fn // '',
                     original => $line, mutated => $new, pair => $c->{pair} };
    }
    unless ($all) {
        my (%first, @keep);
        for my $x (@mut) {
            my $p = $first{$x->{op}};
            if (!$p) { $first{$x->{op}} = $x; push @keep, $x }
            elsif ($PAIRED{$x->{op}} && defined $x->{pair} && defined $p->{pair} && $x->{pair} eq $p->{pair}
                   && !$p->{paired}++) { push @keep, $x }
        }
        @mut = @keep;
    }
    delete $_->{pair} for @mut;
    delete $_->{paired} for @mut;
    return @mut;
}

# file_mutants(FILE, PATH, LINES, ALL): the mutants of the lines LINES (a set of numbers) of the C file at PATH.
sub file_mutants {
    my ($f, $path, $lines, $all) = @_;
    my @l = split /\n/, slurp($path), -1;
    pop @l if @l && $l[-1] eq '';
    my @m = mask(@l);
    my $fn = functions(@l);
    my @out;
    for my $n (sort { $a <=> $b } keys %$lines) {
        next unless defined $l[$n - 1];
        my ($next) = grep { /\S/ } @m[$n .. min($n + 5, $#m)];
        push @out, line_mutants($f, $n, $l[$n - 1], $m[$n - 1], $next, $fn->[$n], $all);
    }
    return @out;
}

# mutants(GEN, ALL, DIFF): every mutant of the generation's series, in file and line order; with DIFF (a git
# revision), only those on the lines that the change of the series from DIFF to the working tree touched.
sub mutants {
    my ($g, $all, $diff) = @_;
    my $pristine = `"$top/uml-kernel/build.sh" --tree "$g"`;
    $? == 0 or fail("no pristine tree of $g");
    chomp $pristine;
    my ($stree, @files) = series_tree($g, $pristine);
    my $before = defined $diff ? series_at($g, $pristine, $diff) : undef;
    my @out;
    for my $f (@files) {
        my $lines = changed_lines("$pristine/$f", "$stree/$f");
        if ($before) {
            # The lines the series' change touched: those of the file the series gave at DIFF (the pristine one
            # where the series did not touch it then) that differ now.
            my $old = -e "$before/$f" ? "$before/$f" : "$pristine/$f";
            my $touched = changed_lines($old, "$stree/$f");
            $lines = { map { $_ => 1 } grep { $touched->{$_} } keys %$lines };
        }
        push @out, file_mutants($f, "$stree/$f", $lines, $all);
    }
    return (\@out, $stree, $pristine);
}

sub shard_of {
    my ($list, $spec) = @_;
    return @$list unless $spec;
    my ($k, $n) = $spec =~ m{^(\d+)/(\d+)$} or fail("--shard wants K/N, not '$spec'");
    ($n >= 1 && $k >= 1 && $k <= $n) or fail("--shard $spec: K must be 1..N");
    return map { $list->[$_] } grep { $_ % $n == $k - 1 } 0 .. $#$list;
}

# ---- Building and running ----

# The command running now, in a process group of its own: a signal to this script ends it first, so no build is
# left writing an object after the mutant's source has been put back.
my $child;
sub sh {
    my ($log, @cmd) = @_;
    my $pid = fork // fail("fork: $!");
    if (!$pid) {
        setpgrp(0, 0);
        open(STDOUT, '>>', $log) or exit 127;
        open(STDERR, '>&', \*STDOUT) or exit 127;
        exec @cmd or exit 127;
    }
    $child = $pid;
    waitpid($pid, 0);
    my $st = $?;
    undef $child;
    return $st;
}

# The reach of each function: the scenario files of the runs that reached it (make coverage's reach.txt).
sub reach {
    my ($g) = @_;
    my $f = "$BUILD/coverage/" . gen_get($g, 'coverage') . '/report/reach.txt';
    return undef unless -f $f;
    my %names;
    open(my $l, '-|', "$BUILD/runner/umlbed", 'list', "$top/scenarios") or fail("umlbed list: $!");
    while (<$l>) {
        chomp;
        my ($file, $name) = split /\t/, $_, 2;
        $names{$name} = $file if defined $name;
    }
    close $l;
    my (%r, $cur);
    for (split /\n/, slurp($f)) {
        if (/^(\S+) \(/) { $cur = $1; $r{$cur} //= {} }
        elsif (/^  (.+)$/ && defined $cur) { $r{$cur}{$names{$1}} = 1 if $names{$1} }
    }
    note("run selection from $f");
    return \%r;
}

# drop_kept(PATH...): the run folders a runner kept for runs that were not ok. A mutant's failing runs are the
# point, not a fault to look into, and their diagnostics are in the log already: a whole run would otherwise leave
# a thousand of them in TMPDIR.
sub drop_kept {
    for my $d (@_) {
        remove_tree($d) if defined $d && $d =~ m{/umlbed-\d+-[A-Za-z0-9]+\z} && -d $d;
    }
}

# run_files(KERNEL, JSON, TIMEOUT, FILES): one runner over FILES; the verdicts by run name, and the file of each.
sub run_files {
    my ($kernel, $json, $timeout, $log, @files) = @_;
    unlink $json;
    sh($log, "$BUILD/runner/umlbed", 'run', '-j', $ENV{JOBS} // 'auto', '--timeout', $timeout,
       '--kernel', $kernel, '--json', $json, @files);
    return undef unless -s $json;
    my $r = decode_json(slurp($json));
    drop_kept(map { $_->{kept} } @{ $r->{results} // [] });
    return $r->{results} // [];
}

# run_stream(KERNEL, JSON, TIMEOUT, LOG, NAMES, FILES): one runner over FILES that is stopped (SIGINT, which it
# cleans up after, and still writes its report) as soon as a run ends not ok: a mutant that breaks the kernel costs
# one run's time, not every run's. Its TAP is read for that moment only, a result line that starts with "not ok";
# what each run was comes from its JSON report. The runs that ended, as { name, verdict, file, report }, and whether
# the runner was stopped.
sub run_stream {
    my ($kernel, $json, $timeout, $log, $names, @files) = @_;
    unlink $json;
    pipe(my $r, my $w) or fail("pipe: $!");
    my $pid = fork // fail("fork: $!");
    if (!$pid) {
        setpgrp(0, 0);
        close $r;
        open(STDOUT, '>&', $w) or exit 127;
        open(STDERR, '>>', $log) or exit 127;
        exec("$BUILD/runner/umlbed", 'run', '-j', $ENV{JOBS} // 'auto', '--timeout', $timeout, '--kernel', $kernel,
             '--json', $json, @files) or exit 127;
    }
    close $w;
    $child = $pid;
    open(my $lh, '>>', $log) or fail("$log: $!");
    my $stopped;
    while (my $l = <$r>) {
        print $lh $l;
        next if $stopped || $l !~ /^\s*not ok\b/;
        kill('INT', $pid);
        $stopped = 1;
    }
    waitpid($pid, 0);
    undef $child;
    close $lh;
    my $rep = -s $json ? eval { decode_json(slurp($json)) } : undef;
    my @res = @{ $rep->{results} // [] };
    drop_kept(map { $_->{kept} } @res);
    # The runs that had not started, and those the stop ended (ERROR, interrupted), did not end on their own.
    my @runs = map { { name => $_->{name}, verdict => $_->{verdict}, file => $_->{file} // $names->{$_->{name}} // '',
                       report => crashed_hang($_) } }
        grep { $_->{verdict} ne 'NOT RUN' && !($stopped && $_->{verdict} eq 'ERROR') } @res;
    return (\@runs, $stopped);
}

# crashed_hang(RUN): a run of the JSON report that timed out after a kernel report (1 or 0: a match in list context
# would give the empty list, and shift the keys of the hash the caller builds).
sub crashed_hang {
    my ($run) = @_;
    return ($run->{verdict} eq 'TIMEOUT'
        && ($run->{diag} // '') =~ /console at the timeout \((kernel \w+|lockdep report)/) ? 1 : 0;
}

# tce_code(OBJECT): the hash of an object file's code, its debug sections left out (Trivial Compiler Equivalence:
# two mutants whose objects have the same code behave the same). Without them, because gcc's line table holds
# columns: a mutant that only moves tokens on its line changes the debug info, not the code. undef when there is no
# object or objcopy cannot read it.
sub tce_code {
    my ($obj) = @_;
    return undef unless -f $obj;
    my $tmp = "$obj.tce-stripped";
    my $ok = system('objcopy', '--strip-debug', $obj, $tmp) == 0;
    my $h = $ok ? Digest::SHA->new(256)->addfile($tmp)->hexdigest : undef;
    unlink $tmp;
    return $h;
}

# judge(R, FILES, KILLS, ...): runs FILES on the mutant's kernel until one kills it. The files that killed earlier
# mutants run first, one at a time (most mutants die there); the rest run together in one runner, stopped at its
# first failure. A FAILED or CRASHED run kills only when its file, run again alone at -j 1, fails again. A run that
# timed out is a hang, and a hang confirmed the same way (its file alone times out again) kills too, as PIT counts
# TIMED_OUT as detected; an unconfirmed one is noted and the judging goes on. When a stage stopped early at a
# failure that was not confirmed, the stage runs again whole and every failure of that run is confirmed in turn.
# A mutant no run killed is "timeout" when a run of it timed out, else "survived".
sub judge {
    my ($r, $files, $kills, $kernel, $timeout, $out, $log, $names) = @_;
    my @first = grep { $kills->{$_} } @$files;
    splice(@first, 3) if @first > 3;
    my %in_first = map { $_ => 1 } @first;
    my @rest = grep { !$in_first{$_} } @$files;
    my @stages = ((map { [$_] } @first), @rest ? (\@rest) : ());
    $r->{verdict} = 'survived';
    $r->{runs} = 0;
    my (@hung, @unconfirmed);
    # confirmed(RUNS): the first of RUNS whose file, run again alone, fails or hangs again; records the kill.
    my $confirmed = sub {
        my ($runs) = @_;
        for my $k (@$runs) {
            my $sf = $k->{file} or next;
            local $ENV{JOBS} = 1;
            my $again = run_files($kernel, "$out/confirm.json", $timeout, $log, $sf) // [];
            my $hang = $k->{verdict} eq 'TIMEOUT' && !$k->{report};
            my @c = grep {
                $_->{name} eq $k->{name}
                    && ($_->{verdict} =~ /^(FAILED|CRASHED)$/ || crashed_hang($_) || ($hang && $_->{verdict} eq 'TIMEOUT'))
            } @$again;
            if (!@c) {
                push @unconfirmed, $k->{name};
                next;
            }
            $r->{verdict} = 'killed';
            $r->{killed_by} = [map { { name => $_->{name}, verdict => $_->{verdict},
                                       file => ($sf =~ s{^\Q$top/\E}{}r) } } @c];
            $r->{detected} = 'hang' if $hang;
            $kills->{$sf}++;
            return 1;
        }
        return 0;
    };
    for my $stage (@stages) {
        my ($res, $stopped) = run_stream($kernel, "$out/stream.json", $timeout, $log, $names, @$stage);
        $r->{runs} += @$res;
        # A run that hung after a kernel report (a WARNING, lockdep, BUG, KASAN) is a crash: the kernel said what
        # went wrong before it stopped answering.
        my @k = grep { $_->{verdict} =~ /^(FAILED|CRASHED|TIMEOUT)$/ || $_->{report} } @$res;
        push @hung, map { $_->{name} } grep { $_->{verdict} eq 'TIMEOUT' } @$res;
        return if $confirmed->(\@k);
        next unless $stopped;
        # The stream stopped at a failure that did not fail again alone (or at a run that was not a failure, an
        # ERROR): the stage again, whole, and every failure of that run read and confirmed.
        my $all = run_files($kernel, "$out/mutant.json", $timeout, $log, @$stage) // [];
        $r->{runs} += @$all;
        my @again = map { { name => $_->{name}, verdict => $_->{verdict}, file => $names->{$_->{name}} // '',
                            report => crashed_hang($_) } }
            grep { $_->{verdict} =~ /^(FAILED|CRASHED|TIMEOUT)$/ } @$all;
        push @hung, map { $_->{name} } grep { $_->{verdict} eq 'TIMEOUT' } @again;
        return if $confirmed->(\@again);
    }
    $r->{unconfirmed} = [@unconfirmed] if @unconfirmed;
    if (@hung) {
        my %seen;
        $r->{verdict} = 'timeout';
        $r->{why} = 'a run timed out, and did not time out again alone: ' . join(', ', grep { !$seen{$_}++ } @hung);
    }
}

# The file that holds a mutant now, if any; restore() puts its original back.
my $mutated;
# The original gets the time of now, newer than the mutant's object, so the next build compiles it again.
sub put_back {
    my ($f) = @_;
    rename("$f.umlbed-orig", $f) or die "mutate: cannot put back $f: $!\n";
    utime(undef, undef, $f) or die "mutate: cannot touch $f: $!\n";
}
sub restore {
    return unless defined $mutated;
    put_back($mutated);
    undef $mutated;
}
# group_alive(PGID): whether a process of the group runs still (a zombie does not: it writes nothing, and whoever
# inherited it reaps it when it will).
sub group_alive {
    my ($pg) = @_;
    opendir(my $d, '/proc') or return 0;
    for my $p (grep { /^\d+$/ } readdir $d) {
        open(my $f, '<', "/proc/$p/stat") or next;
        my $st = <$f> // next;
        # "PID (COMM) STATE PPID PGRP ...": COMM may hold anything, so the fields start after its last ')'.
        my ($state, $pgrp) = $st =~ /\)\s+(\S)\s+\d+\s+(\d+)[^)]*$/ or next;
        return 1 if $pgrp == $pg && $state !~ /^[ZX]$/;
    }
    return 0;
}

# stop_group(PGID): TERM to a child's process group, the child reaped, and then every other member of the group
# ended (KILL to those left after 10 s): a compiler of the group that wrote its object after the original was back
# would leave an object newer than the source, and the mutant's code in every later build.
sub stop_group {
    my ($pg) = @_;
    kill('TERM', -$pg);
    waitpid($pg, 0);
    my $deadline = time + 10;
    while (group_alive($pg)) {
        kill('KILL', -$pg) if time > $deadline;
        select(undef, undef, undef, 0.01);
    }
}
for my $sig (qw(INT TERM HUP)) {
    $SIG{$sig} = sub {
        stop_group($child) if defined $child;
        restore();
        print STDERR "\nmutate: stopped by SIG$sig; the tree is back as it was\n";
        exit($sig eq 'INT' ? 130 : $sig eq 'TERM' ? 143 : 129);
    };
}

sub cmd_run {
    my ($o) = @_;
    my $g = $o->{gen};
    my ($all, $stree) = mutants($g, $o->{all}, $o->{diff});
    my @list = shard_of($all, $o->{shard});
    if (@{ $o->{only} }) {
        my %want = map { $_ => 1 } @{ $o->{only} };
        my %known = map { $_->{id} => 1 } @$all;
        $known{$_} or fail("no mutant named $_") for @{ $o->{only} };
        @list = grep { $want{$_->{id}} } @list;
    }
    my $out = $o->{out};
    make_path($out);
    my %doc = (generation => $g, shard => $o->{shard} // '1/1', all => $o->{all} ? JSON::PP::true : JSON::PP::false,
               mutants_total => scalar @$all, variant => $o->{variant}, defined $o->{diff} ? (diff => $o->{diff}) : ());
    if (!@list) {
        # A shard that holds none of the mutants asked for: an empty result, which joins the others.
        spew("$out/results.json", JSON::PP->new->canonical->pretty->encode({ %doc, seconds => 0, build_seconds => 0,
              run_seconds => 0, reach => JSON::PP::false, results => [] }));
        print "mutate: no mutant in this shard" . (defined $o->{diff} ? " on the lines changed since $o->{diff}" : '')
            . "; $out/results.json\n";
        return 0;
    }
    my $variant = $o->{variant} . gen_get($g, 'suffix');
    my $mbuild = "$BUILD/mutate";
    my $vdir = "$mbuild/kernel/$variant";
    my $log = "$out/log.txt";
    unlink $log;
    my $pristine = `"$top/uml-kernel/build.sh" --tree "$g"`;
    chomp $pristine;
    (my $kvar = "KSRC_$g") =~ s/\./_/g;
    # A run killed while a mutant was in place left the original beside it.
    for my $f (sort keys %{ { map { $_->{file} => 1 } @$all } }) {
        next unless -e "$vdir/src/$f.umlbed-orig";
        put_back("$vdir/src/$f");
        note("put back $f, which a killed run had left mutated");
    }
    # With UMLBED_MUTATE_KBUILD (below) no mutant is built: the tree is only patched and configured, for the lines
    # to map into, and the runs take the build's own kernel of the variant.
    my $stand_in = $ENV{UMLBED_MUTATE_KBUILD};
    note("building $variant in $vdir (log: $log)");
    {
        local $ENV{BUILD} = $mbuild;
        local $ENV{$kvar} = $pristine;
        local $ENV{KBUILD_TARGETS} = $stand_in ? 'olddefconfig' : $ENV{KBUILD_TARGETS};
        sh($log, "$top/uml-kernel/build.sh", $variant) == 0 or fail("the unmutated $variant does not build (see $log)");
    }
    # The test modules: those the build folder has for the variant (same configuration and version), else built here
    # against the unmutated tree, since another variant's (full's for judge) have another configuration.
    my $mods = "$BUILD/kernel/$variant/modules";
    if (-d $mods && !-e "$vdir/modules") { symlink($mods, "$vdir/modules") or fail("symlink $vdir/modules: $!") }
    elsif (!-e "$vdir/modules" && !$stand_in) {
        sh($log, 'make', '-s', '-C', "$top/uml-kernel/modules", "BUILD=$mbuild", "VARIANT=$variant") == 0
            or fail("the test modules of $variant do not build (see $log)");
    }
    my $kernel = $stand_in ? "$BUILD/kernel/$variant/obj/linux" : "$vdir/obj/linux";
    -x $kernel or fail("no kernel $kernel (make kernel VARIANT=$variant)");
    my @kmake = ('make', '-C', "$vdir/src", "O=$vdir/obj", 'ARCH=um', '-j' . ($ENV{JOBS_BUILD} // `nproc` + 0), '-s');
    push @kmake, 'CC=ccache gcc' if system('command -v ccache >/dev/null') == 0;
    # UMLBED_MUTATE_KBUILD: a shell command that stands for each mutant's kbuild, given O=OBJ as $1. The driver's own
    # test uses it to check the driver (shards, verdicts, a SIGTERM mid-build) without linking a kernel; with it,
    # every mutant runs the variant's unmutated kernel from the build folder.
    @kmake = ('sh', '-c', $stand_in, 'kbuild', "O=$vdir/obj") if $stand_in;
    local $ENV{CCACHE_BASEDIR} = $mbuild;
    local $ENV{CCACHE_NOHASHDIR} = 1;

    my $reach = reach($g);
    my @scen = @{ $o->{scenario} } ? map { abs_path($_) // fail("no scenario $_") } @{ $o->{scenario} }
             : glob("$top/scenarios/*.lua");
    my %chosen = map { $_ => 1 } @scen;
    note('no coverage reach data (make coverage): every mutant runs the whole suite') unless $reach;
    # The baseline: the unmutated kernel must pass every scenario, and gives each file's duration.
    my $base = run_files($kernel, "$out/baseline.json", 60, $log, @scen)
        // fail("the baseline run wrote no report (see $log)");
    my @bad = grep { $_->{verdict} ne 'ok' } @$base;
    fail('the unmutated kernel does not pass: ' . join(', ', map { "$_->{name}: $_->{verdict}" } @bad)) if @bad;
    my %dur;
    $dur{$_->{file}} += $_->{seconds} // 0 for @$base;
    my %names = map { $_->{name} => $_->{file} } @$base;
    # A mutant's run is bounded by ten times the slowest unmutated run (at least 10 s), unless --timeout says:
    # a mutant that hangs the kernel is "timeout" within that bound instead of holding the run list.
    my ($slowest) = sort { $b <=> $a } map { $_->{seconds} // 0 } @$base;
    my $timeout = $o->{timeout} // max(10, POSIX::ceil(10 * ($slowest // 1)));
    note("each run of a mutant is bounded by $timeout s");
    # --resume: a mutant that an earlier run in DIR judged keeps its result, if it is the same mutant (same id,
    # same line, same change): a stopped run goes on, and after a generator or series change only what changed runs.
    my (%done, %prev);
    if ($o->{resume} && -f "$out/results.json") {
        my $old = eval { decode_json(slurp("$out/results.json")) } // {};
        my %now = map { $_->{id} => $_ } @$all;
        for my $r (@{ $old->{results} // [] }) {
            my $m = $now{$r->{id}} or next;
            $done{$r->{id}} = $r if $m->{original} eq $r->{original} && $m->{mutated} eq $r->{mutated};
        }
        note(scalar(keys %done) . " mutants judged already ($out/results.json)");
        # Their time counts: the figures stay those of judging the whole set.
        $prev{$_} = $old->{$_} // 0 for qw(seconds build_seconds run_seconds);
    }

    # Trivial Compiler Equivalence, where kbuild builds each mutant (not with a stand-in): the code of each mutated
    # file's object as the unmutated build left it, and of each mutant built so far. A mutant with the original's
    # code is equivalent, one with an earlier mutant's code a duplicate of it, without a run.
    my (%orig_code, %code_of);
    my $object = sub { "$vdir/obj/" . ($_[0] =~ s/\.c$/.o/r) };
    if (!$stand_in) {
        $orig_code{$_->{file}} //= tce_code($object->($_->{file})) for @list;
    }

    # Each mutant's line is found in the mutate tree through the map from the series-applied file.
    my %maps;
    my %kills;    # kills per scenario file: the likeliest killers run first
    my @res;
    my $t0 = time;
    my ($tb, $tr) = (0, 0);
    for my $i (0 .. $#list) {
        my $mu = $list[$i];
        if ($done{$mu->{id}}) { push @res, $done{$mu->{id}}; next }
        my $f = "$vdir/src/$mu->{file}";
        $maps{$mu->{file}} //= line_map("$stree/$mu->{file}", $f);
        my $tl = $maps{$mu->{file}}{$mu->{line}};
        my @l = split /\n/, slurp($f), -1;
        my %r = (id => $mu->{id}, file => $mu->{file}, line => $mu->{line}, op => $mu->{op},
                 function => $mu->{function}, original => $mu->{original}, mutated => $mu->{mutated});
        if (!defined $tl || $l[$tl - 1] ne $mu->{original}) {
            $r{verdict} = 'not built';
            $r{why} = 'the line is not in the mutate tree';
            push @res, \%r;
            next;
        }
        my $orig = slurp($f);
        # The original is kept beside the file while the mutant is in place: a run that is killed there leaves it
        # for the next run to put back, and a signal puts it back at once.
        spew("$f.umlbed-orig", $orig);
        $mutated = $f;
        $l[$tl - 1] = $mu->{mutated};
        spew($f, join("\n", @l));
        my $b0 = time;
        my $built = sh($log, @kmake) == 0;
        $r{build_s} = sprintf('%.2f', time - $b0);
        $tb += time - $b0;
        my $code = $built && !$stand_in ? tce_code($object->($mu->{file})) : undef;
        restore();
        if (!$built) {
            $r{verdict} = 'not built';
            $r{why} = 'does not compile';
        } elsif (defined $code && defined $orig_code{$mu->{file}} && $code eq $orig_code{$mu->{file}}) {
            $r{verdict} = 'equivalent';
            $r{why} = 'TCE: its object code is the unmutated one\'s';
        } elsif (defined $code && $code_of{$mu->{file}}{$code}) {
            $r{verdict} = 'duplicate';
            $r{of} = $code_of{$mu->{file}}{$code};
            $r{why} = "TCE: its object code is $r{of}'s";
        } else {
            $code_of{$mu->{file}}{$code} = $mu->{id} if defined $code;
            my $r0 = time;
            my @files = @scen;
            if ($reach && $mu->{function} && $reach->{$mu->{function}}) {
                # A scenario file that the coverage run did not know (newer than reach.txt) has no reach yet: it
                # runs for every mutant rather than be left out.
                my %known = map { %$_ } values %$reach;
                my %sel = map { $_ => 1 } keys %{ $reach->{$mu->{function}} }, grep { !$known{$_} } @scen;
                @files = sort grep { $chosen{$_} } keys %sel;
            }
            @files = sort { ($kills{$b} // 0) <=> ($kills{$a} // 0) || ($dur{$a} // 0) <=> ($dur{$b} // 0) } @files;
            judge(\%r, \@files, \%kills, $kernel, $timeout, $out, $log, \%names);
            $r{run_s} = sprintf('%.2f', time - $r0);
            $tr += time - $r0;
        }
        push @res, \%r;
        # The results so far, so that a stopped run can be resumed (--resume).
        spew("$out/results.json", JSON::PP->new->canonical->pretty->encode({ %doc, partial => JSON::PP::true,
              seconds => sprintf('%.1f', time - $t0 + ($prev{seconds} // 0)),
              build_seconds => sprintf('%.1f', $tb + ($prev{build_seconds} // 0)),
              run_seconds => sprintf('%.1f', $tr + ($prev{run_seconds} // 0)), results => \@res }));
        my $done = $i + 1;
        my %c;
        $c{$_->{verdict}}++ for @res;
        my $left = (time - $t0) / $done * (@list - $done);
        printf STDERR "\rmutate: %d/%d done, %d killed, %d survived, %d timeout, %d not built; about %d s left ",
            $done, scalar @list, $c{killed} // 0, $c{survived} // 0, $c{timeout} // 0, $c{'not built'} // 0, $left
            if -t STDERR;
        printf "%s %s%s\n", $r{verdict}, $r{id}, $r{killed_by} ? " by $r{killed_by}[0]{name}" : '';
    }
    print STDERR "\n" if -t STDERR;
    # The tree back as it was: the last mutant's file is restored, so rebuild the unmutated kernel.
    sh($log, @kmake);
    my $wall = time - $t0;
    $wall += $prev{seconds} // 0;
    $tb += $prev{build_seconds} // 0;
    $tr += $prev{run_seconds} // 0;
    my $doc = { %doc, seconds => sprintf('%.1f', $wall), build_seconds => sprintf('%.1f', $tb),
                run_seconds => sprintf('%.1f', $tr), reach => $reach ? JSON::PP::true : JSON::PP::false, results => \@res };
    spew("$out/results.json", JSON::PP->new->canonical->pretty->encode($doc));
    printf "mutate: %d mutants in %.0f s (%.0f per hour): building %.0f s, running %.0f s; %s\n",
        scalar @list, $wall, $wall > 0 ? @list * 3600 / $wall : 0, $tb, $tr, "$out/results.json";
    return 0;
}

# ---- Reports and the gate ----

# read_reasons(FILE): the reasons by id, each { text, kind, option, set, why, where }: ID<TAB>MUTATED<TAB>KIND<TAB>REASON,
# MUTATED the mutated line as list prints it, KIND "equivalent", "equivalent CONFIG_X" (equivalent only in a build
# with CONFIG_X set; CONFIG_X=n: with it not set) or "survivor". The text ties a reason to its mutant, so a reason
# cannot move to another mutant when the series' lines shift.
sub read_reasons {
    my ($f) = @_;
    my %r;
    return \%r unless -f $f;
    my $n = 0;
    for (split /\n/, slurp($f)) {
        $n++;
        next if /^#/ || !/\S/;
        my ($id, $text, $kind, $why) = split /\t/, $_, 4;
        ($why // '') =~ /\S/ && $text =~ /\S/
            or fail("$f:$n: want ID<TAB>MUTATED LINE<TAB>KIND<TAB>REASON");
        my ($k, $opt, $val) = $kind =~ /^(equivalent|survivor)(?: (CONFIG_\w+)(=n)?)?$/
            or fail("$f:$n: the kind is 'equivalent', 'equivalent CONFIG_X' or 'survivor', not '$kind'");
        fail("$f:$n: a survivor is accepted whatever the configuration: a mutant equivalent only with $opt is 'equivalent $opt'")
            if $k eq 'survivor' && $opt;
        fail("$f:$n: $id has a reason already (line $r{$id}{where})") if $r{$id} && $r{$id}{text} eq $text;
        my $c = { text => $text, kind => $k, option => $opt, set => !$val, why => $why, where => $n };
        $r{$id} = $c unless $r{$id};
        push @{ $r{$id}{others} }, $c if $r{$id}{where} != $n;
    }
    return \%r;
}

# reason_for(REASONS, ID, MUTATED): the reason of the mutant ID whose mutated line is MUTATED (list's form), if any.
sub reason_for {
    my ($eq, $id, $mutated) = @_;
    my $r = $eq->{$id} or return;
    my $text = $mutated =~ s/^\s+//r =~ s/\t/ /gr;
    for my $c ($r, @{ $r->{others} // [] }) { return $c if $c->{text} eq $text }
    return;
}

# fragments(GEN, BASE): the config fragments of the kernel that judges the generation's mutants, its variant BASE
# (full unless --variant says), in the order uml-kernel/build.sh merges them (the shared ones, debug.config unless
# DEBUG=0, the generation's, the variant's).
sub fragments {
    my ($g, $base) = @_;
    my $cdir = "$top/uml-kernel/config";
    my @f = ('umlbed.config');
    push @f, 'debug.config' if ($ENV{DEBUG} // 1) eq '1';
    my $gc = gen_get($g, 'config');
    push @f, $gc if $gc ne 'none';
    my $variant = $base . gen_get($g, 'suffix');
    my $vfile = "$top/uml-kernel/variants/$variant";
    -f $vfile or fail("no variant $variant (uml-kernel/variants/)");
    for (split /\n/, slurp($vfile)) { push @f, $1 if /^config\s+(\S+)\s*$/ }
    return map { "$cdir/$_" } @f;
}

# pinned(GEN, BASE, OPTION): the value ("n" when not set) the fragments of the kernel that judges GEN's mutants (its
# variant BASE) give OPTION, and the fragment that gives it (the last one that names it, as merge_config.sh takes
# it); () when none does.
sub pinned {
    my ($g, $base, $opt) = @_;
    my ($value, $from);
    for my $frag (fragments($g, $base)) {
        for (split /\n/, slurp($frag)) {
            if (/^\Q$opt\E=(.*)$/) { ($value, $from) = ($1, $frag) }
            elsif (/^# \Q$opt\E is not set\s*$/) { ($value, $from) = ('n', $frag) }
        }
    }
    return defined $value ? ($value, $from =~ s{.*/}{}r) : ();
}

# unpinned(GEN, BASE, REASON): why REASON, an equivalence under an option, explains nothing for GEN's kernel of the
# variant BASE; '' when it does.
sub unpinned {
    my ($g, $base, $r) = @_;
    return '' unless $r->{option};
    my ($value, $from) = pinned($g, $base, $r->{option});
    my $want = $r->{set} ? $r->{option} : "$r->{option}=n";
    my $variant = $base . gen_get($g, 'suffix');
    return "its option $want is pinned by no fragment of $variant ("
        . join(' ', map { s{.*/}{}r } fragments($g, $base)) . ')'
        unless defined $value;
    return '' if ($value ne 'n') == !!$r->{set};
    return "its option $want is pinned the other way for $variant, $r->{option}=$value by $from";
}

# reasons: every reason of the equivalent list names a mutant that exists, in some generation, with the line it was
# written for (id and mutated line), and an option a reason needs is pinned in each generation where its mutant is; exit 1
# naming each one that is not.
sub cmd_reasons {
    my ($o) = @_;
    my $eq = read_reasons($o->{equivalent});
    my %have;
    for my $g (split /\s+/, `"$gen_sh" list`) {
        next unless $g;
        my ($all) = mutants($g, 1);
        push @{ $have{"$_->{id}\t" . ($_->{mutated} =~ s/^\s+//r =~ s/\t/ /gr)} }, $g for @$all;
    }
    my ($bad, %kinds) = (0);
    for my $id (sort keys %$eq) {
        for my $r ($eq->{$id}, @{ $eq->{$id}{others} // [] }) {
            $kinds{$r->{kind}}++;
            my $gens = $have{"$id\t$r->{text}"};
            if (!$gens) {
                print "mutate: $o->{equivalent}:$r->{where}: $id '$r->{text}' is no mutant of any generation\n";
                $bad = 1;
                next;
            }
            for my $g (@$gens) {
                my $why = unpinned($g, $o->{variant}, $r) or next;
                print "mutate: $o->{equivalent}:$r->{where}: $id, equivalent under an option in generation $g: $why\n";
                $bad = 1;
            }
        }
    }
    printf "mutate: %d reasons (%d equivalent, %d survivors), each for a mutant that exists, each option pinned\n",
        ($kinds{equivalent} // 0) + ($kinds{survivor} // 0), $kinds{equivalent} // 0, $kinds{survivor} // 0
        unless $bad;
    return $bad;
}

sub html_escape { my $s = shift; $s =~ s/&/&amp;/g; $s =~ s/</&lt;/g; $s =~ s/>/&gt;/g; return $s }

sub cmd_report {
    my ($o, @inputs) = @_;
    @inputs or usage();
    my (%by_id, $total, $all, %gens, %diffs, %bases);
    my ($secs, $bsecs, $rsecs) = (0, 0, 0);
    for my $in (@inputs) {
        my $d = eval { decode_json(slurp($in)) } or fail("$in: not a results file: $@");
        ref $d->{results} eq 'ARRAY' or fail("$in: no results");
        fail("$in: the partial results of a stopped run (run it again with --resume)") if $d->{partial};
        $gens{$d->{generation} // '?'} = 1;
        $diffs{$d->{diff} // ''} = 1;
        $bases{$d->{variant} // 'full'} = 1;
        $total //= $d->{mutants_total};
        ($d->{mutants_total} // -1) == $total or fail("$in: of another mutant set ($d->{mutants_total} mutants, not $total)");
        $secs += $d->{seconds}; $bsecs += $d->{build_seconds}; $rsecs += $d->{run_seconds};
        for my $r (@{ $d->{results} }) {
            $r->{verdict} =~ /^(killed|survived|timeout|equivalent|duplicate|not built|error)$/
                or fail("$in: $r->{id}: unknown verdict '$r->{verdict}'");
            fail("$in: $r->{id} is in two results") if $by_id{$r->{id}};
            $by_id{$r->{id}} = $r;
        }
    }
    keys %gens == 1 or fail('results of several generations: ' . join(' ', sort keys %gens));
    keys %diffs == 1 or fail('results of the mutants of several changes (--diff): ' . join(' ', map { $_ || 'none' } sort keys %diffs));
    keys %bases == 1 or fail('results judged by several variants: ' . join(' ', sort keys %bases));
    my ($base) = keys %bases;
    my $eq = read_reasons($o->{equivalent});
    my $g = (keys %gens)[0];
    my %c;
    my (@unexplained, @stale);
    for my $r (values %by_id) {
        my $why = reason_for($eq, $r->{id}, $r->{mutated} // '');
        my $unpinned = $why ? unpinned($g, $base, $why) : '';
        if ($eq->{$r->{id}} && !$why && $r->{verdict} ne 'killed') {
            # The id has a reason, but for another line (the series moved, or another generation's line has the id):
            # it does not explain this mutant.
            $r->{note} = "the reason at $o->{equivalent}:$eq->{$r->{id}}{where} is for another line, '$eq->{$r->{id}}{text}'";
        } elsif ($why && $r->{verdict} eq 'killed' && !$unpinned) {
            # A reason under an option the judging kernel does not pin is another kernel's (full's, where judge
            # kills): not stale here.
            push @stale, "$r->{id}: killed now, its reason at $o->{equivalent}:$why->{where} is stale";
        } elsif ($why && $unpinned && $r->{verdict} =~ /^(survived|timeout|error)$/) {
            # A mutant equivalent under an option that this generation's kernel does not pin may be a survivor there.
            $r->{note} = "the reason at $o->{equivalent}:$why->{where}: $unpinned";
        } elsif ($why && $r->{verdict} =~ /^(survived|timeout|error)$/) {
            # A reason explains a mutant that was run and not killed; TCE's verdicts stand on their own. An equivalent
            # one behaves as the original (under its option, which the judging kernel pins); a survivor is accepted,
            # not equivalent.
            $r->{verdict} = $why->{kind} eq 'equivalent' ? 'equivalent' : 'accepted';
            $r->{why} = $why->{why};
            $r->{option} = $why->{set} ? $why->{option} : "$why->{option}=n" if $why->{option};
        }
        push @unexplained, $r->{id} if $r->{verdict} eq 'survived' || $r->{verdict} eq 'timeout' || $r->{verdict} eq 'error';
        $c{$r->{verdict}}++;
    }
    # Two scores. killed / built counts every mutant that was built. killed / (built - equivalent) leaves out the
    # mutants proven equivalent (TCE's, and those whose reason is of the kind equivalent, under an option the judging
    # kernel pins where the reason names one): they cannot be killed, so
    # a perfect suite scores 100 % on it; an accepted survivor stays in, a mutant not killed. The gate is on the
    # second. A duplicate (TCE: the code of another mutant) is one mutant counted twice: it is left out of both, as
    # one not built.
    my $scored = grep { $_->{verdict} ne 'not built' && $_->{verdict} ne 'duplicate' } values %by_id;
    my $score = $scored ? 100 * ($c{killed} // 0) / $scored : 0;
    my $nonequiv = $scored - ($c{equivalent} // 0);
    my $score_ne = $nonequiv ? 100 * ($c{killed} // 0) / $nonequiv : 0;
    my ($threshold, $target);
    for (split /\n/, slurp($o->{threshold})) {
        $threshold = $1 if /^score-non-equivalent\s+(\d+(?:\.\d+)?)\s*$/;
        $target = $1 if /^target\s+(\d+(?:\.\d+)?)\s*$/;
    }
    defined $threshold or fail("$o->{threshold}: no line 'score-non-equivalent PERCENT' (the gate's threshold)");
    my $out = $o->{out};
    make_path($out);
    my @res = sort { $a->{file} cmp $b->{file} || $a->{line} <=> $b->{line} || $a->{id} cmp $b->{id} } values %by_id;
    my $doc = { generation => $g, mutants => scalar @res, counts => \%c, score => sprintf('%.1f', $score),
                score_non_equivalent => sprintf('%.1f', $score_ne), built => $scored, non_equivalent => $nonequiv,
                threshold => $threshold + 0, defined $target ? (target => $target + 0) : (), seconds => $secs, build_seconds => $bsecs, run_seconds => $rsecs,
                per_hour => $secs > 0 ? floor(@res * 3600 / $secs) : 0, results => \@res };
    spew("$out/report.json", JSON::PP->new->canonical->pretty->encode($doc));
    write_html($o, "$out/index.html", \@res, $doc);
    printf "mutate: %s: %d mutants: %d killed, %d survived, %d timeout, %d equivalent (%d by TCE), %d accepted survivors, %d duplicate, %d not built, %d error\n",
        $g, scalar @res, map({ $c{$_} // 0 } 'killed', 'survived', 'timeout', 'equivalent'),
        scalar(grep { ($_->{why} // '') =~ /^TCE:/ && $_->{verdict} eq 'equivalent' } @res),
        map({ $c{$_} // 0 } 'accepted', 'duplicate', 'not built', 'error');
    printf "mutate: score %.1f%% of the built (%d of %d); %.1f%% of those not equivalent (%d of %d), the gate's: threshold %s%%%s\n",
        $score, $c{killed} // 0, $scored, $score_ne, $c{killed} // 0, $nonequiv, $threshold,
        defined $target ? ", target $target%" : '';
    printf "mutate: %.0f s (%d per hour): building %.0f s, running %.0f s\n", $secs, $doc->{per_hour}, $bsecs, $rsecs;
    print "mutate: report $out/report.json, $out/index.html\n";
    my $fail = 0;
    if (@stale) {
        print "mutate: a reason that does not match its mutant: $_\n" for sort @stale;
        $fail = 1;
    }
    if (@unexplained) {
        for my $id (sort @unexplained) {
            my $note = $by_id{$id}{note};
            print "mutate: not killed and no reason in $o->{equivalent}: $id" . ($note ? " ($note)" : '') . "\n";
        }
        $fail = 1;
    }
    if ($score_ne < $threshold) {
        printf "mutate: score over the mutants not equivalent %.2f%% below the threshold %s%%\n", $score_ne, $threshold;
        $fail = 1;
    }
    return $fail;
}

sub write_html {
    my ($o, $path, $res, $doc) = @_;
    my $g = $doc->{generation};
    my $pristine = `"$top/uml-kernel/build.sh" --tree "$g"`;
    chomp $pristine;
    my ($stree) = series_tree($g, $pristine);
    my %at;
    push @{ $at{"$_->{file}:$_->{line}"} }, $_ for @$res;
    my %files = map { $_->{file} => 1 } @$res;
    my $h = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>umlbed mutate: $g</title>\n"
        . "<style>body{font-family:sans-serif} pre{margin:0} .l{white-space:pre;font-family:monospace}"
        . " .k{background:#dfd} .s{background:#fcc} .a{background:#fec} .e{background:#eee} .m{font-family:monospace;padding-left:4em;color:#800}</style>"
        . "</head><body>\n<h1>Mutants of the $g series</h1>\n"
        . sprintf('<p>%d mutants; score %s%% of the built, %s%% of those not equivalent (the gate\'s: threshold %s%%%s): %s.</p>',
                  $doc->{mutants}, $doc->{score}, $doc->{score_non_equivalent}, $doc->{threshold},
                  defined $doc->{target} ? ", target $doc->{target}%" : '',
                  join(', ', map { "$doc->{counts}{$_} $_" } sort keys %{ $doc->{counts} }))
        . "<p>Green lines: every mutant killed. Red: a mutant survived, shown under its line. Amber: a survivor accepted for"
        . " its reason. Grey: equivalent or not built.</p>\n";
    for my $f (sort keys %files) {
        $h .= '<h2>' . html_escape($f) . "</h2>\n<table>\n";
        my @l = split /\n/, slurp("$stree/$f");
        for my $n (1 .. @l) {
            my $ms = $at{"$f:$n"} // [];
            my $cls = !@$ms ? '' : (grep { $_->{verdict} =~ /^(survived|timeout|error)$/ } @$ms) ? 's'
                    : (grep { $_->{verdict} eq 'accepted' } @$ms) ? 'a'
                    : (grep { $_->{verdict} eq 'killed' } @$ms) ? 'k' : 'e';
            $h .= sprintf("<tr class=\"%s\"><td>%d</td><td class=\"l\">%s</td></tr>\n", $cls, $n, html_escape($l[$n - 1]));
            for my $m (grep { $_->{verdict} ne 'killed' } @$ms) {
                $h .= sprintf("<tr><td></td><td class=\"m\">%s %s: %s%s</td></tr>\n", html_escape($m->{verdict}),
                              html_escape($m->{id}), html_escape($m->{mutated} =~ s/^\s+//r),
                              $m->{why} ? ' (' . ($m->{option} ? html_escape($m->{option}) . ': ' : '')
                                          . html_escape($m->{why}) . ')' : '');
            }
        }
        $h .= "</table>\n";
    }
    spew($path, "$h</body></html>\n");
}

# ---- Main ----

# help: the comment at the top of this file, which is its manual.
sub help {
    my @l = split /\n/, slurp(abs_path($0));
    shift @l;
    for (@l) { last unless /^#/; print s/^# ?//r, "\n" }
    exit 0;
}

# A command line that starts with an option is run's (umlbed mutate --diff REV).
@ARGV or usage();
help() if $ARGV[0] =~ /^(?:-h|--help|help)$/;
my $cmd = $ARGV[0] =~ /^-/ ? 'run' : shift @ARGV;
my %o = (only => [], scenario => [], threshold => "$top/tests/mutate/threshold", equivalent => "$top/tests/mutate/equivalent",
         variant => 'full');
GetOptionsFromArray(\@ARGV, \%o, 'gen=s', 'all', 'shard=s', 'only=s@', 'scenario=s@', 'out=s', 'timeout=i', 'threshold=s', 'equivalent=s',
    'resume', 'diff=s', 'variant=s', 'help|h' => \&help)
    or usage();
$o{gen} //= do { my $d = `"$gen_sh" default`; chomp $d; $d };
defined git_show($o{diff}, '') or fail("--diff $o{diff}: not a revision of $top") if defined $o{diff};
# print_mutants(LIST): one mutant a line, ID<TAB>ORIGINAL<TAB>MUTATED, the lines without their indentation.
sub print_mutants {
    for (@_) {
        my ($from, $to) = map { s/^\s+//r =~ s/\t/ /gr } $_->{original}, $_->{mutated};
        print "$_->{id}\t$from\t$to\n";
    }
}
if ($cmd eq 'list') {
    my ($all) = mutants($o{gen}, $o{all}, $o{diff});
    print_mutants(shard_of($all, $o{shard}));
    exit 0;
} elsif ($cmd eq 'file') {
    # file [--all] FILE...: the mutants of every line of each C file, as if the series had written all of it.
    @ARGV or usage();
    for my $f (@ARGV) {
        my $n = () = slurp($f) =~ /\n/g;
        print_mutants(file_mutants($f, $f, { map { $_ => 1 } 1 .. $n }, $o{all}));
    }
    exit 0;
} elsif ($cmd eq 'run') {
    @ARGV and usage();
    my $tag = $o{shard} ? 'shard-' . ($o{shard} =~ s{/}{-of-}r) : 'all';
    $o{out} //= "$BUILD/mutate/$o{gen}/" . (defined $o{diff} ? 'diff-' : '') . $tag;
    exit cmd_run(\%o);
} elsif ($cmd eq 'tce') {
    # tce OBJECT OBJECT: exit 0 when the two objects have the same code (their debug sections aside), 1 when not.
    @ARGV == 2 or usage();
    my ($x, $y) = map { tce_code($_) // fail("$_: not an object objcopy reads") } @ARGV;
    print $x eq $y ? "same code\n" : "different code\n";
    exit($x eq $y ? 0 : 1);
} elsif ($cmd eq 'reasons') {
    exit cmd_reasons(\%o);
} elsif ($cmd eq 'report') {
    $o{out} //= "$BUILD/mutate/$o{gen}/report";
    exit cmd_report(\%o, @ARGV);
}
usage();
