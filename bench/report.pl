#!/usr/bin/env perl
# SPDX-License-Identifier: MIT
# umlbed bench's report: results.json and gnuplot plots from a run's JSON, or the comparison of two results.json.
#
#   report.pl RUNS.json OUTDIR [--src DIR]   results.json (every sample, per-point statistics, the kernel, host CPU
#                                           and commit), one SVG and one PNG per sweep, a table on stdout
#   report.pl --compare OLD.json NEW.json   per point: medians, NEW/OLD and whether the change exceeds the noise
#
# Noise, for --compare: a point's spread is its scaled median absolute deviation relative to its median
# (1.4826 * MAD / median, an estimate of the relative standard deviation that one outlier does not move). A point
# changed when |ln(NEW/OLD)| exceeds 3 times the larger of the two spreads plus 0.15, and the two sets of samples do
# not overlap (every sample of one side is below every sample of the other). The 0.15 is for what one run cannot
# measure: the host drifting between two runs (up to 14 % on the fault-path points here, between runs a quarter of
# an hour apart). Exit status 0 either way; 2 on bad input.
use strict;
use warnings;
use Fcntl qw(O_RDONLY O_NONBLOCK);
use File::Path qw(make_path);
use JSON::PP;
use POSIX qw(strftime);
use Scalar::Util qw(looks_like_number);

my $json = JSON::PP->new->canonical->pretty;

# Bad input is exit 2, as documented, not perl's 255 for a die (a die inside an eval is caught there, not here).
$SIG{__DIE__} = sub { return if $^S; print STDERR $_[0]; exit 2 };

# The most a JSON input may hold, as the runner's own bound on the files it is given.
my $INPUT_MAX = 256 << 20;

# A FIFO would hang the report and /dev/zero fill memory: regular files only, opened without waiting, bounded.
sub slurp_json {
    my ($path) = @_;
    sysopen(my $h, $path, O_RDONLY | O_NONBLOCK) or die "report.pl: $path: $!\n";
    -f $h or die "report.pl: $path: not a regular file\n";
    -s _ <= $INPUT_MAX or die "report.pl: $path: too large\n";
    local $/;
    my $d = eval { decode_json(<$h>) } or die "report.pl: $path is not JSON: $@";
    return $d;
}

sub median {
    my @s = sort { $a <=> $b } @_;
    return undef unless @s;
    return @s % 2 ? $s[$#s / 2] : ($s[@s / 2 - 1] + $s[@s / 2]) / 2;
}

# A point: one metric name with one set of labels.
sub point_key {
    my ($name, $labels) = @_;
    return join(' ', $name, map { "$_=$labels->{$_}" } sort keys %$labels);
}

sub stats {
    my @v = @_;
    my $med = median(@v);
    my $mad = median(map { abs($_ - $med) } @v);
    my @s = sort { $a <=> $b } @v;
    return {n => scalar @v, median => $med, min => $s[0], max => $s[-1], mad => $mad};
}

if (@ARGV && $ARGV[0] eq '--compare') {
    @ARGV == 3 or die "usage: report.pl --compare OLD.json NEW.json\n";
    my ($old, $new) = map { slurp_json($_) } @ARGV[1, 2];
    my (%o, %n);
    $o{point_key($_->{name}, $_->{labels})} = $_ for @{$old->{points} // []};
    $n{point_key($_->{name}, $_->{labels})} = $_ for @{$new->{points} // []};
    my @keys = sort grep { $o{$_} } keys %n;
    @keys or die "report.pl: the two results have no point in common\n";
    # A ratio needs two positive medians, and the noise rule finite statistics: anything else would read as "same".
    for my $k (@keys) {
        for ([$ARGV[1], $o{$k}], [$ARGV[2], $n{$k}]) {
            my ($file, $p) = @$_;
            for my $f (qw(median min max mad)) {
                my $v = $p->{$f};
                defined $v && !ref $v && looks_like_number($v) && $v == $v && abs($v) != 9**9**9
                    or die "report.pl: $file: point $k: $f is not a finite number\n";
            }
            $p->{median} > 0 or die "report.pl: $file: point $k: median $p->{median} is not positive\n";
            $p->{mad} >= 0 && $p->{min} <= $p->{median} && $p->{median} <= $p->{max}
                or die "report.pl: $file: point $k: min, median, max and mad are not consistent\n";
        }
    }
    printf "%-58s %12s %12s %7s  %s\n", 'point', 'old median', 'new median', 'new/old', 'verdict';
    my $changed = 0;
    for my $k (@keys) {
        my ($a, $b) = ($o{$k}, $n{$k});
        my $ratio = $b->{median} / $a->{median};
        my $noise = 0;
        for ($a, $b) { my $r = 1.4826 * $_->{mad} / $_->{median}; $noise = $r if $r > $noise }
        my $apart = $a->{max} < $b->{min} || $b->{max} < $a->{min};
        my $big = abs(log($ratio)) > 3 * $noise + 0.15;
        my $verdict = $apart && $big ? ($ratio > 1 ? 'SLOWER' : 'FASTER') : 'same within noise';
        $changed++ if $apart && $big;
        printf "%-58s %12.4g %12.4g %7.3f  %s (noise %.1f%%)\n", substr($k, 0, 58), $a->{median}, $b->{median},
            $ratio, $verdict, 100 * $noise;
    }
    printf "%d of %d point(s) changed beyond noise\n", $changed, scalar @keys;
    exit 0;
}

@ARGV >= 2 or die "usage: report.pl RUNS.json OUTDIR [--src DIR] | report.pl --compare OLD.json NEW.json\n";
my ($runs_path, $out) = splice(@ARGV, 0, 2);
my $src;
while (@ARGV) {
    my $o = shift @ARGV;
    if ($o eq '--src') { $src = shift @ARGV } else { die "report.pl: unknown option $o\n" }
}
my $runs = slurp_json($runs_path);
make_path($out);

# Every sample, with the run it came from.
my (@samples, %by, @bad);
for my $r (@{$runs->{results} // []}) {
    push @bad, "$r->{name}: $r->{verdict}" unless $r->{verdict} eq 'ok';
    for my $m (@{$r->{metrics} // []}) {
        push @samples, {%$m, run => $r->{name}};
        push @{$by{point_key($m->{name}, $m->{labels})}}, $m;
    }
}
my @points;
for my $k (sort keys %by) {
    my $m = $by{$k};
    push @points, {name => $m->[0]{name}, unit => $m->[0]{unit}, labels => $m->[0]{labels},
        %{stats(map { $_->{value} } @$m)}};
}

my $cpu = 'unknown';
if (open(my $c, '<', '/proc/cpuinfo')) {
    while (<$c>) { if (/^model name\s*:\s*(.*)$/) { $cpu = $1; last } }
}
my $commit = 'unknown';
if ($src && -d "$src/.git" || ($src && -f "$src/.git")) {
    chomp(my $c = `git -C '$src' rev-parse HEAD 2>/dev/null` // '');
    my $dirty = `git -C '$src' status --porcelain --untracked-files=no 2>/dev/null` // '';
    $commit = $c . ($dirty =~ /\S/ ? '-dirty' : '') if $c;
}
my $results = {
    format => 1, date => strftime('%Y-%m-%dT%H:%M:%SZ', gmtime), host_cpu => $cpu, commit => $commit,
    kernel => $runs->{kernel}, variant => $runs->{variant}, release => $runs->{release},
    generation => $runs->{generation},
    runs => [map { {name => $_->{name}, verdict => $_->{verdict}, seconds => $_->{seconds}} } @{$runs->{results}}],
    samples => \@samples, points => \@points,
};
open(my $rj, '>', "$out/results.json") or die "report.pl: $out/results.json: $!\n";
print $rj $json->encode($results);
close $rj;

# The sweeps: one plot each, seed and unmap on the same axes.
my @sweeps = (
    {file => 'invalidate-vs-sharers', metric => 'invalidate_ns', x => 'sharers', xlabel => 'processes sharing the file',
        title => 'One invalidation vs sharers', scale => 1e-3, ylabel => 'time per call (µs)', log => 'xy'},
    {file => 'invalidate-vs-vmas', metric => 'invalidate_ns', x => 'vmas', xlabel => 'VMAs of the file (one process)',
        title => 'One invalidation vs VMAs', scale => 1e-3, ylabel => 'time per call (µs)', log => 'xy'},
    {file => 'invalidate-vs-range', metric => 'invalidate_ns', x => 'pages', without => ['sharers', 'vmas'],
        xlabel => 'range (pages of 4 KiB)', title => 'One invalidation vs range', scale => 1e-3,
        ylabel => 'time per call (µs)', log => 'xy'},
    {file => 'refault', metric => 'touch_us_per_page', x => 'phase', categories => 1, series => ['impl', 'cache'],
        xlabel => '', title => 'Cost per page of a touch: first touch vs refault after the call', scale => 1,
        ylabel => 'time per page (µs)', log => ''},
);
my @made;
for my $s (@sweeps) {
    my @p = grep {
        my $l = $_->{labels};
        $_->{name} eq $s->{metric} && defined $l->{$s->{x}} && !grep { defined $l->{$_} } @{$s->{without} // []}
    } @points;
    next unless @p;
    my @series_keys = @{$s->{series} // ['impl']};
    my %series;
    for my $pt (@p) {
        my $name = join(' ', map { $pt->{labels}{$_} // '-' } @series_keys);
        push @{$series{$name}}, $pt;
    }
    my @snames = sort keys %series;
    my $dat = "$out/$s->{file}.dat";
    open(my $d, '>', $dat) or die "report.pl: $dat: $!\n";
    my (@plot, %cat);
    my $idx = 0;
    if ($s->{categories}) {
        my $ci = 0;
        $cat{$_} //= $ci++ for sort map { $_->{labels}{$s->{x}} } @p;
    }
    for my $sn (@snames) {
        print $d "# $sn\n";
        my @pts = sort { ($s->{categories} ? $cat{$a->{labels}{$s->{x}}} <=> $cat{$b->{labels}{$s->{x}}}
                : $a->{labels}{$s->{x}} <=> $b->{labels}{$s->{x}}) } @{$series{$sn}};
        my $off = $s->{categories} ? ($idx - (@snames - 1) / 2) * 0.12 : 0;
        for my $pt (@pts) {
            my $x = $s->{categories} ? $cat{$pt->{labels}{$s->{x}}} + $off : $pt->{labels}{$s->{x}};
            printf $d "%s %g %g %g\n", $x, map { $_ * $s->{scale} } @{$pt}{qw(median min max)};
        }
        print $d "\n\n";
        # Categories are not a scale: points with bars, no lines between them.
        push @plot, sprintf(q{'%s' index %d using 1:2:3:4 with %s title '%s'}, $dat, $idx,
            $s->{categories} ? 'yerrorbars pointsize 1.5' : 'yerrorlines', $sn);
        $idx++;
    }
    close $d;
    my $xtics = $s->{categories}
        ? 'set xtics (' . join(', ', map { qq{"$_" $cat{$_}} } sort { $cat{$a} <=> $cat{$b} } keys %cat) . ")\n"
          . sprintf("set xrange [-0.5:%g]\nset yrange [0:*]\n", (scalar keys %cat) - 0.5)
        : '';
    my $log = $s->{log} ? "set logscale $s->{log}\n" : '';
    for my $term (['svg', qq{set terminal svg size 800,500 dynamic enhanced font "sans,12"}],
        ['png', qq{set terminal pngcairo size 800,500 enhanced font "sans,10"}]) {
        my $gp = "$out/$s->{file}.$term->[0].gp";
        open(my $g, '>', $gp) or die "report.pl: $gp: $!\n";
        print $g <<"GP";
$term->[1]
set output '$out/$s->{file}.$term->[0]'
set title "$s->{title}\\n{/*0.8 $results->{release} ($results->{variant}), median of each point, bars min..max}"
set xlabel "$s->{xlabel}"
set ylabel "$s->{ylabel}"
set key top left
set grid
$log$xtics
plot @{[join(', ', @plot)]}
GP
        close $g;
        system('gnuplot', $gp) == 0 or die "report.pl: gnuplot $gp failed\n";
        unlink $gp;
    }
    push @made, "$s->{file}.svg", "$s->{file}.png";
}

# The table: one line per point.
printf "%-62s %5s %12s %12s %12s %s\n", 'point', 'n', 'median', 'min', 'max', 'unit';
for my $pt (@points) {
    printf "%-62s %5d %12.4g %12.4g %12.4g %s\n", substr(point_key($pt->{name}, $pt->{labels}), 0, 62), $pt->{n},
        @{$pt}{qw(median min max unit)};
}
print "results: $out/results.json\n";
print "plots: ", (@made ? join(' ', map { "$out/$_" } @made) : 'none (no sweep had points)'), "\n";
if (@bad) {
    print "not ok: $_\n" for @bad;
    exit 1;
}
