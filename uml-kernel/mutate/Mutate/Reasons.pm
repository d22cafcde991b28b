# SPDX-License-Identifier: MIT
# The reasons of tests/mutate/equivalent: read, matched to their mutants by id and line, and checked against the
# options the judging kernel's fragments pin (mutate.pl reasons).
package Mutate::Reasons;
use strict;
use warnings;
use Mutate::Util;
use Mutate::Series;
use Exporter qw(import);
our @EXPORT = qw(read_reasons reason_for unpinned cmd_reasons);

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

1;
