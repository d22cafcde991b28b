# SPDX-License-Identifier: MIT
# The mutation operators: C text with comments and strings masked, the function of each line, and each line's
# mutants (the classic operators of C mutation tools), numbered so that ids stay stable.
package Mutate::Operators;
use strict;
use warnings;
use List::Util qw(min);
use Mutate::Util;
use Exporter qw(import);
our @EXPORT_OK = qw(mask functions close_paren file_mutants @OPS);

our @OPS = qw(rel logic neg ret arith const del swap flow guard lock lockrw field tern minmax shift);
my %OP_RANK = map { $OPS[$_] => $_ } 0 .. $#OPS;
# The operators whose change has two directions, both kept by default.
my %PAIRED = map { $_ => 1 } qw(rel arith const shift);

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

1;
