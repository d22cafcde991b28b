# SPDX-License-Identifier: MIT
# The report page's plots: for each generation, the time a whole mutation run spent building and running, and its mutants per hour, for each way of running it (a kbuild per mutant, the schema kernel) side by side, and this report's run beside them.
#
# The runs come from tests/mutate/times (one recorded run a line: GEN METHOD SECONDS BUILD_SECONDS RUN_SECONDS
# MUTANTS, then where the figures come from) and from this report. The plots are inline SVG: the page needs nothing
# but itself.
package Mutate::Plots;
use strict;
use warnings;
use List::Util qw(max);
use Mutate::Util;
use Exporter qw(import);
our @EXPORT = qw(read_times plots_html);

# read_times(FILE): the recorded runs, each { gen, method, seconds, build, run, mutants, from }.
sub read_times {
    my ($f) = @_;
    my @t;
    return \@t unless defined $f && -f $f;
    my $n = 0;
    for (split /\n/, slurp($f)) {
        $n++;
        next if /^\s*(?:#|$)/;
        my ($g, $m, $s, $b, $r, $k, $from) = split ' ', $_, 7;
        defined $k && "$s$b$r$k" =~ /^[\d.]+$/ or fail("$f:$n: want GEN METHOD SECONDS BUILD_SECONDS RUN_SECONDS MUTANTS [FROM]");
        push @t, { gen => $g, method => $m, seconds => $s, build => $b, run => $r, mutants => $k, from => $from // '' };
    }
    return \@t;
}

sub esc { my $s = shift; $s =~ s/&/&amp;/g; $s =~ s/</&lt;/g; $s =~ s/>/&gt;/g; return $s }

# bars(TITLE, UNIT, ROWS): a horizontal bar chart, each row [LABEL, [VALUE, COLOUR, NAME]...], the parts stacked.
sub bars {
    my ($title, $unit, @rows) = @_;
    my $top = max(1, map { my $s = 0; $s += $_->[0] for @{ $_->[1] }; $s } @rows);
    my ($lw, $w, $bh) = (260, 420, 18);
    my $h = 30 + @rows * ($bh + 8) + 24;
    my $svg = sprintf('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">',
                      $lw + $w + 90, $h) . sprintf('<text x="0" y="16" font-weight="bold">%s</text>', esc($title));
    my $y = 30;
    my %legend;
    for my $r (@rows) {
        my ($label, $parts) = @$r;
        $svg .= sprintf('<text x="0" y="%d">%s</text>', $y + 13, esc($label));
        my ($x, $sum) = ($lw, 0);
        for my $p (@$parts) {
            my $pw = $w * $p->[0] / $top;
            $svg .= sprintf('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %.0f %s</title></rect>',
                            $x, $y, $pw, $bh, $p->[1], esc($p->[2]), $p->[0], $unit);
            $legend{ $p->[2] } = $p->[1];
            $x += $pw;
            $sum += $p->[0];
        }
        $svg .= sprintf('<text x="%.1f" y="%d">%.0f %s</text>', $x + 4, $y + 13, $sum, $unit);
        $y += $bh + 8;
    }
    my $lx = $lw;
    for my $name (sort keys %legend) {
        $svg .= sprintf('<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>',
                        $lx, $y + 4, $legend{$name}, $lx + 14, $y + 13, esc($name));
        $lx += 14 + 7 * length($name) + 16;
    }
    return "$svg</svg>\n";
}

# plots_html(TIMES, DOC): the plots of the recorded runs and this report's (DOC: its generation, seconds, build and
# run seconds, mutants), one pair per generation.
sub plots_html {
    my ($times, $doc) = @_;
    my @runs = @$times;
    push @runs, { gen => $doc->{generation}, method => 'this report', seconds => $doc->{seconds},
                  build => $doc->{build_seconds}, run => $doc->{run_seconds}, mutants => $doc->{mutants} }
        if $doc->{seconds} > 0;
    return '' unless @runs;
    my %gens;
    push @{ $gens{ $_->{gen} } }, $_ for @runs;
    my $h = "<h2>What a whole run costs</h2>\n<p>Per generation, each recorded run (tests/mutate/times) and this report's:"
        . " the time spent building (the kernels, the mutants' objects) and running, and the mutants judged per hour.</p>\n";
    for my $g (sort keys %gens) {
        my @r = @{ $gens{$g} };
        my $label = sub { "$_[0]{method} ($_[0]{mutants} mutants)" };
        $h .= bars("Linux $g: seconds of a whole run", 's',
                   map { [$label->($_), [[$_->{build}, '#d62728', 'building'], [$_->{run}, '#1f77b4', 'running'],
                                         [max(0, $_->{seconds} - $_->{build} - $_->{run}), '#bbbbbb', 'other']]] } @r);
        $h .= bars("Linux $g: mutants per hour", '/h',
                   map { [$label->($_), [[$_->{seconds} > 0 ? $_->{mutants} * 3600 / $_->{seconds} : 0, '#2ca02c', 'mutants per hour']]] } @r);
    }
    return $h;
}

1;
