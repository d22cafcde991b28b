# SPDX-License-Identifier: MIT
# Judging a mutant: the runs that reach it, one at a time, the likeliest killers first, until one kills it; a kill confirmed by the same run again alone.
#
# Each run is one `umlbed run -j 1 --filter NAME FILE`, with UMLBED_MUTANT=NUM in its environment for a mutant of
# the schema kernel (the runner adds umlbed_mutant=NUM to the kernel's command line). A run that ends FAILED or
# CRASHED, or times out after a kernel report on its console (the kernel said what went wrong before it hung), kills
# the mutant when it does so again alone; one that times out without a report is a hang, which kills the same way when
# it times out again alone (as PIT counts TIMED_OUT as detected). Alone means with no run of any other worker going:
# the runs hold a shared lock, a timeout's confirmation an exclusive one, and a gate keeps new runs out while it
# waits; a failure's confirmation, like every run, has a runner of its own (-j 1).
package Mutate::Judge;
use strict;
use warnings;
use Fcntl qw(:flock);
use File::Path qw(remove_tree);
use JSON::PP;
use Mutate::Util;
use Mutate::Build;
use Exporter qw(import);
our @EXPORT = qw(run_files judge crashed_hang);

# drop_kept(PATH...): the run folders a runner kept for runs that were not ok. A mutant's failing runs are the
# point, not a fault to look into, and their diagnostics are in the log already: a whole run would otherwise leave
# a thousand of them in TMPDIR.
sub drop_kept {
    for my $d (@_) {
        # The runner's reaper may be removing it too: what is gone already is no error.
        remove_tree($d, { error => \my $err }) if defined $d && $d =~ m{/umlbed-\d+-[A-Za-z0-9]+\z} && -d $d;
    }
}

# run_files(KERNEL, JSON, TIMEOUT, LOG, ARGS...): one runner over ARGS (files, options); its runs' results, or undef
# when it wrote no report.
sub run_files {
    my ($kernel, $json, $timeout, $log, @args) = @_;
    unlink $json;
    # --shard 1/1: a batch system's shard variables (Slurm's, GitLab's) are the mutation run's, not this runner's.
    sh($log, "$BUILD/runner/umlbed", 'run', '--shard', '1/1', '-j', $ENV{JOBS} // 'auto', '--timeout', $timeout,
       '--kernel', $kernel, '--json', $json, @args);
    return undef unless -s $json;
    my $r = eval { decode_json(slurp($json)) } or return undef;
    drop_kept(map { $_->{kept} } @{ $r->{results} // [] });
    return $r->{results} // [];
}

# crashed_hang(RUN): a run of the JSON report that timed out after a kernel report (1 or 0: a match in list context
# would give the empty list, and shift the keys of the hash the caller builds).
sub crashed_hang {
    my ($run) = @_;
    return ($run->{verdict} eq 'TIMEOUT'
        && ($run->{diag} // '') =~ /console at the timeout \((kernel \w+|lockdep report)/) ? 1 : 0;
}

# A run's name as a --filter glob that matches it alone.
sub glob_of { my ($n) = @_; $n =~ s/([*?\[\]\\])/\\$1/g; return $n }

# one_run(J, RUN, EXCLUSIVE): RUN ({ name, file, timeout }) on the mutant's kernel, holding the run lock shared, or
# exclusive for a confirmation; its result ({ name, verdict, report, seconds }), or undef when the runner wrote none.
sub one_run {
    my ($j, $run, $excl) = @_;
    open(my $gate, '>>', "$j->{locks}.gate") or fail("$j->{locks}.gate: $!");
    open(my $lock, '>>', $j->{locks}) or fail("$j->{locks}: $!");
    flock($gate, $excl ? LOCK_EX : LOCK_SH) or fail("flock: $!");
    flock($lock, $excl ? LOCK_EX : LOCK_SH) or fail("flock: $!");
    close $gate;
    local $ENV{JOBS} = 1;
    local $ENV{UMLBED_MUTANT};
    if ($j->{num}) { $ENV{UMLBED_MUTANT} = $j->{num} } else { delete $ENV{UMLBED_MUTANT} }
    my $res = run_files($j->{kernel}, "$j->{dir}/run.json", $run->{timeout}, $j->{log}, '--filter', glob_of($run->{name}),
                        $run->{file});
    close $lock;
    my ($r) = grep { $_->{name} eq $run->{name} } @{ $res // [] };
    return undef unless $r;
    return { name => $r->{name}, verdict => $r->{verdict}, report => crashed_hang($r), seconds => $r->{seconds} // 0 };
}

# judge(R, J, RUNS): runs RUNS (in order) on the mutant's kernel until one kills it, and sets R's verdict: killed
# (killed_by, and detected "hang" for a hang), timeout (a run timed out and did not again alone; no run killed it) or
# survived. J: { kernel, num (0: the kernel is the mutant's own), dir, log, locks }.
sub judge {
    my ($r, $j, $runs) = @_;
    my (@hung, @unconfirmed);
    $r->{verdict} = 'survived';
    $r->{runs} = 0;
    for my $run (@$runs) {
        my $res = one_run($j, $run, 0) or fail("the runner wrote no report of '$run->{name}' (see $j->{log})");
        $r->{runs}++;
        next if $res->{verdict} eq 'ok' || $res->{verdict} eq 'SKIP';
        if ($res->{verdict} !~ /^(?:FAILED|CRASHED|TIMEOUT)$/) {
            # An ERROR is a broken test, not a kill.
            push @{ $r->{errors} }, $run->{name};
            next;
        }
        my $hang = $res->{verdict} eq 'TIMEOUT' && !$res->{report};
        push @hung, $run->{name} if $res->{verdict} eq 'TIMEOUT';
        # A timeout is confirmed alone on the machine: a run of another worker must not be what made it slow. A
        # failure is confirmed as it was found, by the same run again in a runner of its own.
        my $again = one_run($j, $run, $res->{verdict} eq 'TIMEOUT');
        $r->{runs}++;
        my $kills = $again && ($again->{verdict} =~ /^(?:FAILED|CRASHED)$/ || $again->{report}
                               || ($hang && $again->{verdict} eq 'TIMEOUT'));
        if (!$kills) {
            push @unconfirmed, $run->{name};
            next;
        }
        $r->{verdict} = 'killed';
        $r->{killed_by} = [{ name => $run->{name}, verdict => $again->{verdict}, file => $run->{file} =~ s{^\Q$top/\E}{}r }];
        $r->{detected} = 'hang' if $hang;
        return;
    }
    $r->{unconfirmed} = [@unconfirmed] if @unconfirmed;
    if (@hung) {
        my %seen;
        $r->{verdict} = 'timeout';
        $r->{why} = 'a run timed out, and did not time out again alone: ' . join(', ', grep { !$seen{$_}++ } @hung);
    }
}

1;
