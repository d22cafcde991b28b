#!/usr/bin/env perl
# SPDX-License-Identifier: MIT
# Coverage of the series from the gcov data of umlbed runs: per-function summary, per-run reach, lcov file, HTML.
#
# report.pl --runs DIR --obj OBJ --src SRC --pristine TREE --out OUT [--series-file F]... [--threshold FILE]
#           [--unreachable FILE] [--results JSON] [--no-html]
#
# DIR is what `umlbed run --coverage=DIR` wrote: one folder per run (its name in DIR/RUN/label), one vmN folder per
# instance holding the kernel's .gcda files under their build paths (mm/memory.gcda). OBJ is the kernel's build
# folder (the .gcno files), SRC its patched source and TREE the pristine one: the series' lines are the lines of
# each series file that differ from TREE. Counts of all runs are summed, which is what merging .gcda files does.
# JSON is the runner's report of those runs (umlbed run --json): it gives each run's scenario file in reach-lines.json.
# OUT gets summary.txt, reach.txt (the runs reaching each function), reach-lines.json (the runs executing each
# line; docs/coverage.md has its format), series.info, series.totals and html/.
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(basename dirname);
use File::Path qw(make_path remove_tree);
use File::Temp qw(tempdir);
use Getopt::Long qw(GetOptions);
use JSON::PP qw(decode_json);

my (%o, @files);
GetOptions(\%o, 'runs=s', 'obj=s', 'src=s', 'pristine=s', 'out=s', 'threshold=s', 'unreachable=s', 'results=s', 'no-html',
    'series-file=s' => \@files) or die "report.pl: bad arguments\n";
for (qw(runs obj src pristine out)) { defined $o{$_} or die "report.pl: --$_ is required\n" }
make_path($o{out});
# gcov runs in a scratch folder: every path must be absolute.
for (qw(runs obj src pristine out)) { $o{$_} = abs_path($o{$_}) // die "report.pl: --$_ $o{$_}: $!\n" }
@files or die "report.pl: no --series-file\n";

# The lines each series file adds or changes, from diff -U0 against the pristine tree (a new file: all lines).
my %series;
for my $f (@files) {
    my $old = "$o{pristine}/$f";
    if (!-e $old) {
        open(my $h, '<', "$o{src}/$f") or die "report.pl: $o{src}/$f: $!\n";
        my $n = 0;
        $n++ while <$h>;
        $series{$f}{$_} = 1 for 1 .. $n;
        next;
    }
    open(my $d, '-|', 'diff', '-U0', $old, "$o{src}/$f") or die "report.pl: diff: $!\n";
    while (<$d>) {
        next unless /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/;
        my ($start, $len) = ($1, $2 // 1);
        $series{$f}{$_} = 1 for $start .. $start + $len - 1;
    }
    close $d;
}

# Source text, for the lines a report quotes.
my %text;
for my $f (@files) {
    open(my $h, '<', "$o{src}/$f") or die "report.pl: $o{src}/$f: $!\n";
    my @l = <$h>;
    chomp @l;
    $text{$f} = [undef, @l];
}

# Lines whose misses are explained: "FILE<TAB>FUNCTION<TAB>TEXT<TAB>REASON", TEXT a substring of the line.
my @unreach;
if ($o{unreachable}) {
    open(my $h, '<', $o{unreachable}) or die "report.pl: $o{unreachable}: $!\n";
    while (<$h>) {
        next if /^\s*(#|$)/;
        chomp;
        my @f = split /\t+/, $_, 4;
        @f == 4 or die "report.pl: $o{unreachable}:$.: want FILE, FUNCTION, TEXT and REASON separated by tabs\n";
        push @unreach, {file => $f[0], func => $f[1], text => $f[2], reason => $f[3], used => 0};
    }
}

# gcov's JSON for one file of one instance: the .gcda from the run, the .gcno from the build.
my $stage = tempdir(CLEANUP => 1);
sub gcov_json {
    my ($gcda, $f) = @_;
    my $base = basename($f, '.c');
    my $dir = "$stage/o";
    remove_tree($dir);
    make_path($dir);
    my $gcno = "$o{obj}/" . dirname($f) . "/$base.gcno";
    -f $gcno or die "report.pl: no $gcno: is $o{obj} a gcov kernel's build folder?\n";
    symlink($gcno, "$dir/$base.gcno") or die "report.pl: symlink: $!\n";
    symlink($gcda, "$dir/$base.gcda") or die "report.pl: symlink: $!\n";
    # gcov finds the source by the path compiled in; -o names the folder of the .gcno and .gcda.
    open(my $g, '-|', "cd '$stage' && gcov -t -j -b -o '$dir' '$o{src}/$f' 2>/dev/null")
        or die "report.pl: gcov: $!\n";
    local $/;
    my $json = <$g>;
    close $g;
    return undef unless $json && $json =~ /^\s*\{/;
    my $d = decode_json($json);
    for my $file (@{$d->{files}}) {
        return $file if $file->{file} =~ m{(^|/)\Q$f\E$};
    }
    return undef;
}

# Every instance's data, summed; and which runs reached each function, and each line.
my (%line, %branch, %fn, %fnruns, %lineruns, @runs);
opendir(my $rd, $o{runs}) or die "report.pl: $o{runs}: $!\n";
for my $run (sort grep { !/^\./ && -d "$o{runs}/$_" } readdir $rd) {
    my $label = $run;
    if (open(my $l, '<', "$o{runs}/$run/label")) { $label = <$l> // $run; chomp $label }
    opendir(my $vd, "$o{runs}/$run") or next;
    my @vms = sort grep { /^vm\d+$/ && -d "$o{runs}/$run/$_" } readdir $vd;
    my $had = 0;
    for my $vm (@vms) {
        for my $f (@files) {
            my $gcda = "$o{runs}/$run/$vm/" . dirname($f) . '/' . basename($f, '.c') . '.gcda';
            next unless -f $gcda;
            $had = 1;
            my $j = gcov_json($gcda, $f) or next;
            for my $fu (@{$j->{functions}}) {
                my $k = "$f\t$fu->{name}";
                $fn{$k} //= {file => $f, name => $fu->{demangled_name} // $fu->{name}, start => $fu->{start_line},
                    end => $fu->{end_line}, count => 0};
                $fn{$k}{count} += $fu->{execution_count};
                $fnruns{$k}{$label} = 1 if $fu->{execution_count} > 0;
            }
            for my $ln (@{$j->{lines}}) {
                my $n = $ln->{line_number};
                $line{$f}{$n} += $ln->{count};
                $lineruns{$f}{$n}{$label} = 1 if $ln->{count} > 0;
                my $i = 0;
                for my $b (@{$ln->{branches} // []}) {
                    $branch{$f}{$n}[$i++] += $b->{count};
                }
            }
        }
    }
    push @runs, $label if $had;
}
closedir $rd;
@runs or die "report.pl: no gcov data under $o{runs} (umlbed run --coverage=$o{runs} on a coverage kernel)\n";

# The series' functions: those with a series line in their body.
my @sfn = sort { $a->{file} cmp $b->{file} || $a->{start} <=> $b->{start} }
    grep { my $x = $_; grep { $series{$x->{file}}{$_} } $x->{start} .. $x->{end} } values %fn;
my %key_of = map { ($fn{$_} => $_) } keys %fn;

sub explained {
    my ($f, $func, $n) = @_;
    my $t = $text{$f}[$n] // '';
    for my $u (@unreach) {
        next unless $u->{file} eq $f && $u->{func} eq $func && index($t, $u->{text}) >= 0;
        $u->{used} = 1;
        return $u->{reason};
    }
    return undef;
}

my ($lh, $lt, $bh, $bt, $lx, $bx) = (0) x 6;
my @out;
push @out, sprintf("Coverage of the series: %d run(s) under %s", scalar @runs, $o{runs});
push @out, '';
push @out, sprintf('%-52s %13s %15s  %s', 'function (file)', 'lines', 'branches', 'runs reaching it');
my (@missing, @reach);
for my $fu (@sfn) {
    my $f = $fu->{file};
    my ($h, $t, $bht, $btt) = (0) x 4;
    for my $n ($fu->{start} .. $fu->{end}) {
        next unless $series{$f}{$n} && exists $line{$f}{$n};
        $t++;
        my $why;
        if ($line{$f}{$n} > 0) {
            $h++;
        } else {
            $why = explained($f, $fu->{name}, $n);
            $lx++ if defined $why;
            push @missing, sprintf('%s:%d (%s) line never run%s: %s', $f, $n, $fu->{name},
                defined $why ? " [explained: $why]" : '', $text{$f}[$n] =~ s/^\s+//r);
        }
        my $bl = $branch{$f}{$n} // [];
        for my $i (0 .. $#$bl) {
            $btt++;
            if ($bl->[$i] > 0) { $bht++; next }
            next if $line{$f}{$n} == 0;
            my $bwhy = explained($f, $fu->{name}, $n);
            $bx++ if defined $bwhy;
            push @missing, sprintf('%s:%d (%s) branch %d never taken%s: %s', $f, $n, $fu->{name}, $i,
                defined $bwhy ? " [explained: $bwhy]" : '', $text{$f}[$n] =~ s/^\s+//r);
        }
        # A line never run takes none of its branches; they count once, as explained or not, with the line.
        if ($line{$f}{$n} == 0 && defined $why) { $bx += scalar @$bl }
    }
    my @r = sort keys %{$fnruns{$key_of{$fu}} // {}};
    # A scenario's runs differ only in their parameters ("name [impl=seed]"): name each scenario once.
    my %sc = map { (s/ \[[^\]]*\]$//r => 1) } @r;
    push @out, sprintf('%-52s %5d/%-5d %s %6d/%-6d %s  %d runs of %d scenarios', "$fu->{name} (" . basename($f) . ')',
        $h, $t, ($t ? sprintf('%3d%%', 100 * $h / $t) : '  -%'), $bht, $btt,
        ($btt ? sprintf('%3d%%', 100 * $bht / $btt) : '  -%'), scalar @r, scalar keys %sc);
    push @reach, "$fu->{name} ($f): " . scalar(@r) . ' runs', map({ "  $_" } @r), '';
    ($lh, $lt, $bh, $bt) = ($lh + $h, $lt + $t, $bh + $bht, $bt + $btt);
}
my $lp = $lt ? 100 * $lh / $lt : 0;
my $bp = $bt ? 100 * $bh / $bt : 0;
# What is left once the explained misses are set aside: what the gate compares with its threshold.
my $lpx = $lt ? 100 * ($lh + $lx) / $lt : 0;
my $bpx = $bt ? 100 * ($bh + $bx) / $bt : 0;
push @out, '';
push @out, sprintf('series lines:    %d/%d = %.1f%% (%.1f%% counting the explained misses)', $lh, $lt, $lp, $lpx);
push @out, sprintf('series branches: %d/%d = %.1f%% (%.1f%% counting the explained misses)', $bh, $bt, $bp, $bpx);
push @out, '';
push @out, @missing ? ('not covered:', map { "  $_" } @missing) : 'not covered: nothing';
for my $u (grep { !$_->{used} } @unreach) {
    push @out, "note: $o{unreachable}: no missed line matches '$u->{text}' in $u->{func} (covered now? remove it)";
}

push @out, '', "runs reaching each function: $o{out}/reach.txt";
open(my $rf, '>', "$o{out}/reach.txt") or die "report.pl: $o{out}/reach.txt: $!\n";
print $rf "$_\n" for @reach;
close $rf;

# Per line, the runs that executed it (a run being all its instances): what a mutant of that line can be judged by.
# Every line gcov counts in the series files is listed, the series' own marked; runs are indices into "runs".
{
    my %file_of;
    if ($o{results}) {
        open(my $h, '<', $o{results}) or die "report.pl: $o{results}: $!\n";
        local $/;
        my $doc = decode_json(<$h>);
        $file_of{$_->{name}} //= $_->{file} for grep { defined $_->{name} && defined $_->{file} } @{$doc->{results} // []};
    }
    my @names = sort @runs;
    my %idx = map { $names[$_] => $_ } 0 .. $#names;
    my %doc = (format => 1, src => $o{src},
        runs => [map { { name => $_, defined $file_of{$_} ? (file => $file_of{$_}) : () } } @names], files => {});
    for my $f (@files) {
        $doc{files}{$f} = [map { {
            line => $_, series => ($series{$f}{$_} ? JSON::PP::true : JSON::PP::false), count => $line{$f}{$_},
            text => $text{$f}[$_] // '', runs => [sort { $a <=> $b } map { $idx{$_} } keys %{$lineruns{$f}{$_} // {}}],
        } } sort { $a <=> $b } keys %{$line{$f} // {}}];
    }
    open(my $lf, '>', "$o{out}/reach-lines.json") or die "report.pl: $o{out}/reach-lines.json: $!\n";
    print $lf JSON::PP->new->canonical->encode(\%doc), "\n";
    close $lf;
    push @out, "runs executing each line: $o{out}/reach-lines.json";
}

# An lcov tracefile of the series files, for genhtml (and for anyone's lcov tools).
my $info = "$o{out}/series.info";
open(my $i, '>', $info) or die "report.pl: $info: $!\n";
for my $f (@files) {
    print $i "TN:umlbed\nSF:$o{src}/$f\n";
    my @ff = sort { $a->{start} <=> $b->{start} } grep { $_->{file} eq $f } values %fn;
    print $i "FN:$_->{start},$_->{name}\n" for @ff;
    print $i "FNDA:$_->{count},$_->{name}\n" for @ff;
    printf $i "FNF:%d\nFNH:%d\n", scalar @ff, scalar grep { $_->{count} > 0 } @ff;
    my ($bf, $bhh) = (0, 0);
    for my $n (sort { $a <=> $b } keys %{$branch{$f} // {}}) {
        my $bl = $branch{$f}{$n};
        for my $k (0 .. $#$bl) {
            print $i "BRDA:$n,0,$k," . ($line{$f}{$n} ? $bl->[$k] : '-') . "\n";
            $bf++;
            $bhh++ if $bl->[$k] > 0;
        }
    }
    print $i "BRF:$bf\nBRH:$bhh\n";
    my @ln = sort { $a <=> $b } keys %{$line{$f} // {}};
    print $i "DA:$_,$line{$f}{$_}\n" for @ln;
    printf $i "LF:%d\nLH:%d\nend_of_record\n", scalar @ln, scalar grep { $line{$f}{$_} > 0 } @ln;
}
close $i;

# The series' numbers alone, for scripts and tests: one "key value" per line.
open(my $t, '>', "$o{out}/series.totals") or die "report.pl: $o{out}/series.totals: $!\n";
print $t "runs ", scalar @runs, "\nlines_hit $lh\nlines_total $lt\nbranches_hit $bh\nbranches_total $bt\n";
print $t "line_hit $_\n" for map { my $f = $_; map { "$f:$_" } sort { $a <=> $b } grep { $series{$f}{$_} && $line{$f}{$_} > 0 } keys %{$line{$f} // {}} } @files;
close $t;

if (!$o{'no-html'}) {
    system('genhtml', '-q', '--branch-coverage', '--function-coverage', '--legend', '--title', 'umlbed: the series',
        '-o', "$o{out}/html", $info) == 0 or die "report.pl: genhtml failed\n";
    push @out, '', "HTML report: $o{out}/html/index.html";
}
open(my $s, '>', "$o{out}/summary.txt") or die "report.pl: $o{out}/summary.txt: $!\n";
print $s "$_\n" for @out;
close $s;
print "$_\n" for @out;

# The gate: the committed threshold, against the coverage with explained misses set aside.
if ($o{threshold}) {
    open(my $h, '<', $o{threshold}) or die "report.pl: $o{threshold}: $!\n";
    my %th;
    while (<$h>) { $th{$1} = $2 if /^\s*(lines|branches|unexplained)\s+([\d.]+)\s*$/ }
    my $bad = 0;
    for (['lines', $lp], ['branches', $bp]) {
        my ($k, $v) = @$_;
        next unless defined $th{$k};
        if ($v + 1e-9 < $th{$k}) {
            printf "coverage gate: series %s %.1f%% is below the threshold %s%% (%s)\n", $k, $v, $th{$k}, $o{threshold};
            $bad = 1;
        }
    }
    my $unexplained = grep { !/\[explained: / } @missing;
    if (defined $th{unexplained} && $unexplained > $th{unexplained}) {
        printf "coverage gate: %d miss(es) without a reason in %s (at most %s)\n", $unexplained,
            $o{unreachable} // 'tests/coverage/unreachable', $th{unexplained};
        $bad = 1;
    }
    exit 1 if $bad;
    printf "coverage gate: passed (lines >= %s%%, branches >= %s%%, at most %s unexplained miss(es))\n",
        $th{lines} // '-', $th{branches} // '-', $th{unexplained} // '-';
}
