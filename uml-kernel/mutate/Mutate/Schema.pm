# SPDX-License-Identifier: MIT
# Mutant schemata: every mutant of a file written into one copy of it as a switch on the global umlbed_mutant, set at boot from the kernel command line, so that one kernel holds them all and an unchosen site runs the original code.
#
# A line that is a whole statement becomes one statement: { if (umlbed_mutant == 7) { MUTATED } else { ORIGINAL } }.
# Any other line (a condition, a declaration's initialiser, an argument of a call that goes on below) has each change
# switched where it is, as the smallest expression around it that the line closes: (umlbed_mutant == 7 ? (A) : (B)).
# A line keeps its number (one line becomes one line), so a compiler's message names the line of the series. What
# cannot be a run-time switch (a line outside a function, a declarator, a case label, a static declaration, an
# expression the line does not close) is "own": its mutant keeps a kbuild of its own.
package Mutate::Schema;
use strict;
use warnings;
use List::Util qw(min max);
use Mutate::Operators qw(mask functions);
use Exporter qw(import);
our @EXPORT_OK = qw(schema_file $VAR);

our $VAR = 'umlbed_mutant';
my $ID = qr/[A-Za-z_]\w*/;
my $DECL = qr/(?:struct|union|enum|unsigned|signed|int|long|short|char|bool|const|static|size_t|ssize_t|loff_t|pgoff_t|u8|u16|u32|u64|s8|s16|s32|s64|void|float|double)\b/;

# groups(M): the parenthesis and bracket groups of a masked line, each [OPEN, CLOSE, PARENT] (CLOSE undef when the
# line does not close it, PARENT the index of the enclosing group or -1), and the positions of closers the line does
# not open (a call or condition opened above ends here).
sub groups {
    my ($m) = @_;
    my (@g, @stack, @stray);
    for my $i (0 .. length($m) - 1) {
        my $c = substr($m, $i, 1);
        if ($c eq '(' || $c eq '[') {
            push @g, [$i, undef, @stack ? $stack[-1] : -1];
            push @stack, $#g;
        } elsif ($c eq ')' || $c eq ']') {
            if (@stack) { $g[pop @stack][1] = $i } else { push @stray, $i }
        }
    }
    return (\@g, \@stray);
}

# segments(M, GROUPS, STRAY, G): the pieces of group G's content (G -1: the line) between separators at its own depth
# (a comma, a semicolon, and for the line also a closer it does not open), each [START, END, CLOSED], END exclusive;
# CLOSED says a separator or the group's close ends it, not the end of the line.
sub segments {
    my ($m, $g, $stray, $gi) = @_;
    my ($from, $to) = $gi < 0 ? (0, length $m) : ($g->[$gi][0] + 1, $g->[$gi][1] // length $m);
    my %inner;
    for my $k (0 .. $#$g) {
        next unless $g->[$k][2] == $gi;
        $inner{$_} = 1 for $g->[$k][0] .. ($g->[$k][1] // length($m) - 1);
    }
    my %stop = map { $_ => 1 } $gi < 0 ? @$stray : ();
    my (@s, $start);
    $start = $from;
    for my $i ($from .. $to - 1) {
        next if $inner{$i};
        my $c = substr($m, $i, 1);
        next unless $c eq ',' || $c eq ';' || $stop{$i};
        push @s, [$start, $i, 1];
        $start = $i + 1;
        last if $stop{$i};
    }
    push @s, [$start, $to, $gi >= 0 && defined $g->[$gi][1] ? 1 : 0] if $start < $to && substr($m, $start, $to - $start) =~ /\S/;
    return @s;
}

sub trimmed {
    my ($m, $s, $e) = @_;
    my $t = substr($m, $s, $e - $s);
    my ($lead) = $t =~ /^(\s*)/;
    my ($tail) = $t =~ /(\s*)$/;
    return ($s + length $lead, $e - length $tail);
}

# A declaration, or a designated initialiser: only what follows its '=' is an expression.
sub declares { $_[0] !~ /^\s*(?:return|goto|else|do|case|sizeof)\b/ && $_[0] =~ /^\s*(?:$DECL|$ID\s+\**\s*$ID\s*[=;,\[]|$ID\s*\*+\s*$ID\s*[=;,\[]|\.$ID\s*=)/ }

# initialiser(M, S, E): where the expression after the segment's first '=' (not ==, <=, >=, !=) starts, or undef.
sub initialiser {
    my ($m, $s, $e) = @_;
    my $t = substr($m, $s, $e - $s);
    return undef unless $t =~ /^[^=()\[\]]*?(?<![=<>!])=(?!=)/;
    return $s + $+[0];
}

# units(M, PARSE, CTX, S, E): the smallest switchable spans of the masked line M around the change at [S, E): the
# piece of the innermost group that holds it (a condition, an argument, an initialiser), or each piece it touches
# where it spans several pieces of one group (swapped arguments), lifted to the enclosing group's piece while a piece
# is not a whole expression of the line. Returns the group and the spans ([START, END] each), or undef and why not.
sub units {
    my ($m, $p, $ctx, $s, $e) = @_;
    my ($g, $stray) = @$p;
    my $gi = -1;
    for my $k (0 .. $#$g) {
        my ($o, $c) = @{ $g->[$k] };
        $gi = $k if $o < $s && (!defined $c || $e <= $c) && ($gi < 0 || $o > $g->[$gi][0]);
    }
    for (;;) {
        my @segs = segments($m, $g, $stray, $gi);
        my @hit = grep { $_->[0] <= $s && $s < $_->[1] || $_->[0] < $e && $e <= $_->[1] || $s <= $_->[0] && $_->[1] <= $e } @segs;
        my @spans;
        for my $seg (@hit) {
            my ($a, $b) = trimmed($m, @$seg);
            if ($gi < 0 && ($ctx->{decl} || declares(substr($m, $a, $b - $a)))) {
                my $init = initialiser($m, $a, $b);
                return (undef, 'a declarator') unless defined $init && $init <= $s;
                ($a) = trimmed($m, $init, $b);
            }
            my $text = substr($m, $a, $b - $a);
            my $ok = $seg->[2] && $text =~ /\S/ && $text !~ /^[=<>|^%\/?:.,]|[-+*\/%&|^<>=!?:,.]$/
                && $text !~ /^\s*(?:case|default|return|goto)\b/;
            # A piece of the line that starts it is a whole expression only when the line above ended one.
            $ok &&= $ctx->{fresh} if $gi < 0 && $seg == $segs[0];
            # Several pieces are a group's arguments, each switched where it is.
            $ok &&= $gi >= 0 if @hit > 1;
            @spans = (), last unless $ok;
            push @spans, [$a, $b];
        }
        return ($gi, @spans) if @spans;
        return (undef, 'no expression that the line closes holds the change') if $gi < 0 || !defined $g->[$gi][1];
        # The group's own piece of its parent holds the whole group, and the call or name in front of it.
        ($s, $e) = ($g->[$gi][0], $g->[$gi][1] + 1);
        $s-- while $s > 0 && substr($m, $s - 1, 1) =~ /\w/;
        $gi = $g->[$gi][2];
    }
}

# region(A, B): where the lines A and B differ: [START, END in A, END in B].
sub region {
    my ($x, $y) = @_;
    my $p = 0;
    $p++ while $p < length($x) && $p < length($y) && substr($x, $p, 1) eq substr($y, $p, 1);
    my $q = 0;
    $q++ while $q < length($x) - $p && $q < length($y) - $p && substr($x, -1 - $q, 1) eq substr($y, -1 - $q, 1);
    return ($p, length($x) - $q, length($y) - $q);
}

# A line that is one whole statement of a function's body, which a compound statement may replace.
sub statement {
    my ($m, $prev) = @_;
    return 0 unless $m =~ /^\s*\S.*;\s*$/ && $m !~ /[{}]/ && !declares($m);
    return 0 if $m =~ /^\s*(?:case\b|default\s*:|$ID\s*:[^:])/ || $m =~ /^\s*[=<>|^%\/?:.,+&]/;
    return 0 unless (() = $m =~ /\(/g) == (() = $m =~ /\)/g) && (() = $m =~ /\[/g) == (() = $m =~ /\]/g);
    return $prev =~ /(?:[;{}:)]|\belse)\s*$/ ? 1 : 0;
}

# schema_file(LINES, SITES, DEFINE): the schema of a file (LINES, its text as lines) whose mutants are SITES, each
# { num, line, original, mutated } (line counting from 1, original the text there now). DEFINE: this file defines the
# global and its boot option. Returns the text and, for each site that is its own kbuild's, the reason.
sub schema_file {
    my ($lines, $sites, $define) = @_;
    my @l = @$lines;
    my @m = mask(@l);
    my $fn = functions(@l);
    my (%by_line, %own);
    push @{ $by_line{$_->{line}} }, $_ for @$sites;
    for my $n (sort { $a <=> $b } keys %by_line) {
        my @s = sort { $a->{num} <=> $b->{num} } @{ $by_line{$n} };
        my ($line, $ml) = ($l[$n - 1], $m[$n - 1]);
        my ($prev) = grep { /\S/ } reverse @m[0 .. $n - 2];
        $prev //= '';
        my $why;
        $why = 'outside a function' unless $fn->[$n];
        $why //= 'a static declaration' if $ml =~ /^\s*static\b/;
        $why //= 'a case label' if $ml =~ /^\s*(?:case\b|default\s*:)/;
        $why //= 'a brace initialiser' if $ml =~ /=\s*\{/ || $ml =~ /^\s*[.{]/;
        if ($why) { $own{$_->{num}} = $why for @s; next }
        if (statement($ml, $prev)) {
            my ($lead) = $line =~ /^(\s*)/;
            my $code_end = length($ml) - length(($ml =~ /(\s*)$/)[0]);
            my $tail = substr($line, $code_end);
            my $orig = substr($line, length $lead, $code_end - length $lead);
            my $sw = join(' else ', map {
                my $d = length($_->{mutated}) - length($line);
                "if ($VAR == $_->{num}) { " . substr($_->{mutated}, length $lead, $code_end + $d - length $lead) . ' }'
            } @s);
            $l[$n - 1] = "$lead\{ $sw else { $orig } }$tail";
            next;
        }
        my $p = [groups($ml)];
        my $ctx = { fresh => $prev =~ /[;{}(,]\s*$/ || $prev eq '' ? 1 : 0, decl => declares($ml) ? 1 : 0 };
        # Each site's changes: the spans of the line it switches and the text it puts in each.
        my (%at, @all);
        for my $site (@s) {
            my ($ds, $de, $de2) = region($line, $site->{mutated});
            my ($gi, @spans) = units($ml, $p, $ctx, $ds, $de);
            if (!defined $gi) { $own{$site->{num}} = $spans[0]; next }
            my @texts;
            if (@spans == 1) {
                my ($a, $b) = @{ $spans[0] };
                @texts = (substr($line, $a, $ds - $a) . substr($site->{mutated}, $ds, $de2 - $ds) . substr($line, $de, $b - $de));
            } else {
                # Pieces of one group (swapped arguments): the mutated line's pieces of the group that opens where
                # this one does, as many as there are.
                my $mm = (mask($site->{mutated}))[0];
                my ($g2, $st2) = groups($mm);
                my ($k) = grep { $g2->[$_][0] == $p->[0][$gi][0] } 0 .. $#$g2;
                my @segs = defined $k ? segments($mm, $g2, $st2, $k) : ();
                my @old = segments($ml, @$p, $gi);
                if (@segs != @old) { $own{$site->{num}} = 'a change of the pieces of a group'; next }
                my %index = map { join(',', trimmed($ml, @{ $old[$_] })) => $_ } 0 .. $#old;
                @texts = map { my $i = $index{"$_->[0],$_->[1]"}; substr($site->{mutated}, $segs[$i][0], $segs[$i][1] - $segs[$i][0]) =~ s/^\s+|\s+$//gr } @spans;
            }
            push @all, [$site, [map { [@{ $spans[$_] }, $texts[$_]] } 0 .. $#spans]];
        }
        # Spans of two sites that overlap without being the same cannot both be switched where they are.
        my %span;
        $span{"$_->[0],$_->[1]"} = $_ for map { @{ $_->[1] } } @all;
        my @sp = sort { $a->[0] <=> $b->[0] || $b->[1] <=> $a->[1] } values %span;
        if (grep { $sp[$_][0] < $sp[$_ - 1][1] } 1 .. $#sp) {
            # Then every change of the line is switched in the one span that holds them all, if there is one.
            my @r = map { [region($line, $_->[0]{mutated})] } @all;
            my ($ds, $de) = (min(map { $_->[0] } @r), max(map { $_->[1] } @r));
            my ($gi, @spans) = units($ml, $p, $ctx, $ds, $de);
            if (!defined $gi || @spans != 1) {
                $own{$_->[0]{num}} = 'changes of the line that overlap' for @all;
                @all = ();
            } else {
                my ($a, $b) = @{ $spans[0] };
                for my $i (0 .. $#all) {
                    my ($s1, $e1, $e2) = @{ $r[$i] };
                    $all[$i][1] = [[$a, $b, substr($line, $a, $s1 - $a) . substr($all[$i][0]{mutated}, $s1, $e2 - $s1)
                                            . substr($line, $e1, $b - $e1)]];
                }
            }
        }
        # A line is switched whole or not at all: a mutant of its own kbuild has the original line to change.
        if (grep { $own{$_->{num}} } @s) {
            $own{$_->{num}} //= 'another change of its line is no switch' for @s;
            next;
        }
        for my $x (@all) { push @{ $at{"$_->[0],$_->[1]"} }, [$x->[0]{num}, $_->[2]] for @{ $x->[1] } }
        # From the right, so that the spans to the left keep their positions.
        for my $k (sort { (split /,/, $b)[0] <=> (split /,/, $a)[0] } keys %at) {
            my ($a, $b) = split /,/, $k;
            my $sw = join(' : ', map { "$VAR == $_->[0] ? ($_->[1])" } @{ $at{$k} });
            substr($line, $a, $b - $a) = "($sw : (" . substr($line, $a, $b - $a) . '))';
        }
        $l[$n - 1] = $line;
    }
    $l[0] = "extern int $VAR; $l[0]";
    push @l, "int $VAR __read_mostly;",
        "static int __init ${VAR}_setup(char *arg)", '{', "\treturn !kstrtoint(arg, 10, &$VAR);", '}',
        "__setup(\"$VAR=\", ${VAR}_setup);" if $define;
    return (join("\n", @l) . "\n", \%own);
}

1;
