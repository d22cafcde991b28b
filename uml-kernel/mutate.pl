#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# Mutation testing of the series: mutate.pl list|run|report [options]; each mutant is one changed line of the series' C code, all of a run's mutants built into one schema kernel and each run against the runs of the suite that reach it.
#
#   mutate.pl list   [--gen GEN] [--all] [--diff REV] [--shard K/N]   the mutants, one a line: ID<TAB>ORIGINAL<TAB>MUTATED
#                                                                (the lines without their indentation)
#   mutate.pl run    [--gen GEN] [--all] [--diff REV] [--shard K/N] [--only ID]... [--scenario FILE]... [--out DIR]
#                    [--timeout S] [--resume] [--variant BASE] [--reach FILE]
#                    builds the schema kernel and judges each mutant, writes DIR/results.json (default
#                    BUILD/mutate/GEN/shard-K-of-N) after each one; --resume keeps the results DIR holds of the same
#                    mutants (same id and change); --scenario judges with those scenario files only (default: every
#                    file of scenarios/), for the edit loop and for the tool's own test; --reach the line reach to
#                    select runs by (default: make coverage's; none: every run); a command line that starts with an
#                    option is run's; --kbuild builds a kernel of its own for each mutant instead of the schema (the
#                    method the schema replaced, for the sample check)
#   mutate.pl sample [--gen GEN] [--from RESULTS.json] [--per N] [--size N] [--variant BASE] [--out DIR]
#                    a sample of a whole run's mutants (default BUILD/mutate/GEN/all/results.json; up to N of each
#                    verdict, 10, and at least SIZE in all, 40) judged by the schema and by --kbuild, the verdicts
#                    compared as TAP (DIR/compare.json; default BUILD/mutate/GEN/sample): exit 1 on a difference
#   mutate.pl file   [--all] FILE...                             the mutants of every line of each C file (the
#                                                                operators' own test)
#   mutate.pl schema [--all] [--only ID]... FILE OUT             the schema of the C file's mutants written to OUT, and
#                                                                NUM<TAB>ID<TAB>switch (or own<TAB>WHY) for each
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
# --all keeps every one. A mutant's number is its place in list's output: umlbed_mutant=NUMBER chooses it.
#
# run builds the generation's full variant (--variant BASE: BASE, judge say, with the generation's suffix) in a tree
# of its own (BUILD/mutate/kernel/VARIANT, uml-kernel/build.sh with BUILD= there and the pristine tree as KSRC).
# Each mutant's own object is compiled without a link (kbuild's command, ccache): one that does not compile is "not
# built", one whose code is the original's "equivalent", one whose code is an earlier mutant's a "duplicate" (Trivial
# Compiler Equivalence). The others are written into one copy of the series' files, each behind a switch on the global
# umlbed_mutant (set at boot from the kernel's command line), and one kernel holds them all; a mutant that cannot be a
# switch (a line outside a function, a declarator, a case label) gets a kbuild of its own. A run of the unmutated
# kernel must pass first. Each mutant runs the runs of the suite that execute its line (make coverage's line reach;
# without it every run), those that killed most mutants first, one at a time, UMLBED_MUTANT=NUMBER telling the runner
# to choose it, until one kills it: FAILED, CRASHED, or a timeout (after a kernel report, or a hang), confirmed by the
# same run again alone. A mutant that no run reaches is "not reached". UMLBED_MUTATE_WORKERS runs at once (one a CPU,
# each slot on its own CPU); docs/mutate.md has the rest.
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use Getopt::Long qw(GetOptionsFromArray);
use lib dirname(abs_path($0)) . '/mutate';
use Mutate::Util;
use Mutate::Series;
use Mutate::Operators qw(file_mutants);
use Mutate::Build qw(tce_code);
use Mutate::Run;
use Mutate::Pack qw(cmd_pack);
use Mutate::Sample qw(cmd_sample);
use Mutate::Reasons;
use Mutate::Report;
use Mutate::Schema qw(schema_file);

# help: the comment at the top of this file, which is its manual.
sub help {
    my @l = split /\n/, slurp(abs_path($0));
    shift @l;
    for (@l) { next if /SPDX-License-Identifier/; last unless /^#/; print s/^# ?//r, "\n" }
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
         times => "$top/tests/mutate/times");
GetOptionsFromArray(\@ARGV, \%o, 'gen=s', 'all', 'shard=s', 'only=s@', 'scenario=s@', 'out=s', 'timeout=i', 'threshold=s', 'equivalent=s',
    'resume', 'diff=s', 'variant=s', 'reach=s', 'bundle=s', 'times=s', 'kbuild', 'from=s', 'per=i', 'size=i',
    'help|h' => \&help)
    or usage();
# sample judges with the variant of the run it samples, unless told; every other command with full.
$o{variant} //= 'full' unless $cmd eq 'sample';
fail('--kbuild builds a kernel for each mutant on this machine: not with --bundle') if $o{kbuild} && defined $o{bundle};
fail('--kbuild builds real kernels: not with UMLBED_MUTATE_KBUILD') if $o{kbuild} && $ENV{UMLBED_MUTATE_KBUILD};
$o{gen} //= do { my $d = `"$gen_sh" default`; chomp $d; $d };
# Without --shard, a batch system's own variables choose it, as umlbed run's --shard does: Slurm's job array,
# GitLab's parallel jobs, a Kubernetes Indexed Job (with UMLBED_SHARD_TOTAL, which Kubernetes does not say).
if (!defined $o{shard} && ($cmd eq 'run' || $cmd eq 'list')) {
    my %e = %ENV;
    if (defined $e{SLURM_ARRAY_TASK_ID} && defined $e{SLURM_ARRAY_TASK_COUNT}) {
        $o{shard} = ($e{SLURM_ARRAY_TASK_ID} - ($e{SLURM_ARRAY_TASK_MIN} // 1) + 1) . "/$e{SLURM_ARRAY_TASK_COUNT}";
    } elsif (defined $e{CI_NODE_INDEX} && defined $e{CI_NODE_TOTAL}) {
        $o{shard} = "$e{CI_NODE_INDEX}/$e{CI_NODE_TOTAL}";
    } elsif (defined $e{JOB_COMPLETION_INDEX} && defined $e{UMLBED_SHARD_TOTAL}) {
        $o{shard} = ($e{JOB_COMPLETION_INDEX} + 1) . "/$e{UMLBED_SHARD_TOTAL}";
    }
    note("shard $o{shard}, from the batch system's variables") if defined $o{shard};
}
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
} elsif ($cmd eq 'schema') {
    # schema [--all] [--only ID]... FILE OUT: the schema of every mutant of the C file (as file lists them), written
    # to OUT, and for each mutant a line NUM<TAB>ID<TAB>switch, or own<TAB>why when it is no switch.
    @ARGV == 2 or usage();
    my ($f, $out) = @ARGV;
    my @l = split /\n/, slurp($f), -1;
    pop @l if @l && $l[-1] eq '';
    my @m = file_mutants($f, $f, { map { $_ => 1 } 1 .. @l }, $o{all});
    $m[$_]{num} = $_ + 1 for 0 .. $#m;
    my %want = map { $_ => 1 } @{ $o{only} };
    @m = grep { $want{$_->{id}} } @m if %want;
    my ($text, $own) = schema_file(\@l, \@m, 0);
    spew($out, $text);
    print "$_->{num}\t$_->{id}\t" . ($own->{$_->{num}} ? "own\t$own->{$_->{num}}" : 'switch') . "\n" for @m;
    exit 0;
} elsif ($cmd eq 'run') {
    @ARGV and usage();
    my $tag = $o{shard} ? 'shard-' . ($o{shard} =~ s{/}{-of-}r) : 'all';
    $o{out} //= "$BUILD/mutate/$o{gen}/" . (defined $o{diff} ? 'diff-' : '') . $tag;
    exit cmd_run(\%o);
} elsif ($cmd eq 'sample') {
    @ARGV and usage();
    $o{out} //= "$BUILD/mutate/$o{gen}/sample";
    exit cmd_sample(\%o);
} elsif ($cmd eq 'pack') {
    @ARGV and usage();
    $o{out} //= "$BUILD/umlbed-mutate-pack-$o{gen}.tar.gz";
    exit cmd_pack(\%o);
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
