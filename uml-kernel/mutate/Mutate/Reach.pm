# SPDX-License-Identifier: MIT
# Which runs of the suite reach a mutant's line, from the coverage kernel's gcov data (make coverage), so that a mutant runs only those.
#
# The line reach is BUILD/coverage/COVERAGE-VARIANT/report/reach-lines.json (its format is in docs/coverage.md): the
# runs whose gcov data was read, and for each line of the series' files that has code, the runs that executed it. A
# mutant's line is found in that tree through diff (the coverage kernel's stack is not the judge's); a line gcov
# reports nothing for (no code of its own, or one the edit since changed) takes the runs that reach any line of its
# function, and a line of no known function every run. A run the data does not hold (one that did not pass on the
# coverage kernel, say fault injection's, which that kernel has not; or one of a scenario file newer than the data)
# is taken for every mutant: nothing says what it reaches. Without the line reach, the function reach of reach.txt
# (runs per function) stands in; without either, every run is taken for every mutant.
package Mutate::Reach;
use strict;
use warnings;
use JSON::PP;
use Mutate::Util;
use Mutate::Series qw(line_map);
use Mutate::Operators qw(functions);
use Exporter qw(import);
our @EXPORT = qw(reach_of);

# reach_of(GEN, STREE, MUTANTS, RUNS, FILE): for each mutant (by id) the names of the runs that reach it, of RUNS (the
# chosen runs: { name, file }) by FILE (a line reach if it ends in .json, else a function reach; default: make
# coverage's); and what the selection came from. A mutant absent from the map takes every run.
sub reach_of {
    my ($g, $stree, $mutants, $runs, $file) = @_;
    my $rdir = "$BUILD/coverage/" . gen_get($g, 'coverage') . '/report';
    my ($lines, $funcs) = ("$rdir/reach-lines.json", "$rdir/reach.txt");
    return ({}, 'no line reach (--reach none): every mutant runs every run') if ($file // '') eq 'none';
    if (defined $file) {
        -f $file or fail("--reach $file: no such file");
        ($lines, $funcs) = $file =~ /\.json$/ ? ($file, '') : ('', $file);
    }
    my %sel;
    if (-f $lines) {
        my $d = eval { decode_json(slurp($lines)) };
        $d && ($d->{format} // '') eq '1' && ref $d->{runs} eq 'ARRAY' && ref $d->{files} eq 'HASH'
            or fail("$lines: not a line reach of format 1 (docs/coverage.md)");
        my $age = -M $lines;
        # The runs measured: those the data holds that passed on the coverage kernel (its run's report, suite.json
        # beside the report folder, says; one that was skipped there, as fault injection's, ran nothing of its own).
        my %verdict;
        (my $suite = $lines) =~ s{/report/[^/]+$}{/suite.json};
        if (-f $suite) {
            my $r = eval { decode_json(slurp($suite)) } // {};
            $verdict{$_->{name}} = $_->{verdict} for @{ $r->{results} // [] };
        }
        my %measured = map { $_->{name} => 1 } grep { !%verdict || ($verdict{$_->{name}} // '') eq 'ok' } @{ $d->{runs} };
        # Runs nothing is known of: those not measured, and those of a file changed since the data was written.
        my @unknown = map { $_->{name} } grep { !$measured{$_->{name}} || -M $_->{file} < $age } @$runs;
        my %chosen = map { $_->{name} => 1 } @$runs;
        my (%map, %fn);
        for my $m (@$mutants) {
            my $f = $m->{file};
            my $tree = "$d->{src}/$f";
            next unless $d->{files}{$f} && -f $tree;
            my $cov = { map { $_->{line} => $_->{runs} } @{ $d->{files}{$f} } };
            $map{$f} //= line_map("$stree/$f", $tree);
            $fn{$f} //= functions(split /\n/, slurp($tree));
            my $tl = $map{$f}{$m->{line}};
            my @at;
            if (defined $tl && $cov->{$tl}) {
                @at = ($tl);
            } elsif (defined $tl && $fn{$f}[$tl]) {
                # No code of its own: the function's lines.
                my $name = $fn{$f}[$tl];
                @at = grep { ($fn{$f}[$_] // '') eq $name } keys %$cov;
            }
            next unless @at;
            my %r = map { $d->{runs}[$_]{name} => 1 } map { @{ $cov->{$_} } } @at;
            delete $r{$_} for grep { !$measured{$_} } keys %r;
            $sel{$m->{id}} = [sort grep { $chosen{$_} } keys %{ { %r, map { $_ => 1 } @unknown } }];
        }
        return (\%sel, "line reach from $lines (" . scalar(keys %measured) . ' runs measured, ' . scalar(@unknown)
                        . ' taken for every mutant)');
    }
    return ({}, 'no coverage reach (make coverage): every mutant runs every run') unless -f $funcs;
    # The function reach: "FUNCTION (FILE): N runs" and the names of those runs below it, indented.
    my (%r, $cur);
    for (split /\n/, slurp($funcs)) {
        if (/^(\S+) \(/) { $cur = $1; $r{$cur} //= {} }
        elsif (/^  (.+)$/ && defined $cur) { $r{$cur}{$1} = 1 }
    }
    my %known = map { %$_ } values %r;
    my $age = -M $funcs;
    my @unknown = map { $_->{name} } grep { !$known{$_->{name}} || -M $_->{file} < $age } @$runs;
    my %chosen = map { $_->{name} => 1 } @$runs;
    for my $m (@$mutants) {
        my $fr = $r{$m->{function} // ''} or next;
        $sel{$m->{id}} = [sort grep { $chosen{$_} } keys %{ { %$fr, map { $_ => 1 } @unknown } }];
    }
    return (\%sel, "function reach from $funcs");
}

1;
