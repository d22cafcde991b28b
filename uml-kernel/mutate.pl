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
use File::Basename qw(dirname);
use Getopt::Long qw(GetOptionsFromArray);
use lib dirname(abs_path($0)) . '/mutate';
use Mutate::Util;
use Mutate::Series;
use Mutate::Operators qw(file_mutants);
use Mutate::Build;
use Mutate::Run;
use Mutate::Reasons;
use Mutate::Report;

# help: the comment at the top of this file, which is its manual.
sub help {
    my @l = split /\n/, slurp(abs_path($0));
    shift @l;
    for (@l) { last unless /^#/; print s/^# ?//r, "\n" }
    exit 0;
}

# print_mutants(LIST): one mutant a line, ID<TAB>ORIGINAL<TAB>MUTATED, the lines without their indentation.
sub print_mutants {
    for (@_) {
        my ($from, $to) = map { s/^\s+//r =~ s/\t/ /gr } $_->{original}, $_->{mutated};
        print "$_->{id}\t$from\t$to\n";
    }
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
