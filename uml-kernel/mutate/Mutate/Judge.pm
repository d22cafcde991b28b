# SPDX-License-Identifier: MIT
# Judging mutants: each on the runs that reach it, the likeliest killers first, until one kills it, a kill confirmed by the same run again alone; the runs of all the mutants share a pool of slots.
#
# Each run is one `umlbed run -j 1 --filter NAME FILE` in a process group of its own, with UMLBED_MUTANT=NUM in its
# environment for a mutant of the schema kernel (the runner adds umlbed_mutant=NUM to the kernel's command line). A
# mutant's first runs, those that killed mutants before (most mutants die there), go one after the other; its other
# runs go at once, as slots are free. A run that ends FAILED or CRASHED, or times out after a kernel report on its
# console (the kernel said what went wrong before it hung), kills the mutant when it does so again alone; one that
# times out without a report is a hang, which kills the same way when it times out again alone (as PIT counts
# TIMED_OUT as detected). Alone: a runner of its own, and for a timeout no other run of the pool going on, so that
# another run's load is not what made it slow. A kill stops the mutant's other runs (SIGINT to their groups).
package Mutate::Judge;
use strict;
use warnings;
use File::Path qw(make_path remove_tree);
use JSON::PP;
use Time::HiRes qw(time);
use Mutate::Util;
use Mutate::Build;
use Exporter qw(import);
our @EXPORT = qw(run_files judge_pool crashed_hang);

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
# when it wrote no report. --shard 1/1: a batch system's shard variables (Slurm's, GitLab's) are the mutation run's,
# not this runner's.
sub run_files {
    my ($kernel, $json, $timeout, $log, @args) = @_;
    unlink $json;
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

# cpus(): the CPUs this process may run on (its Cpus_allowed_list), in order.
sub cpus {
    open(my $fh, '<', '/proc/self/status') or return ();
    my ($list) = map { /^Cpus_allowed_list:\s*(\S+)/ ? $1 : () } <$fh>;
    return () unless defined $list;
    return map { /^(\d+)-(\d+)\z/ ? ($1 .. $2) : /^\d+\z/ ? $_ : () } split /,/, $list;
}

# start(P, M, RUN, CPU): RUN ({ name, file, timeout }) of the mutant M started in a process group of its own, on the
# host CPU CPU (undef: any); its pid. A runner puts each guest on the CPU it has fewest of its own guests on, the
# first one allowed when it has none: runners that each run one guest would all put theirs on the same CPU.
sub start {
    my ($p, $m, $run, $cpu) = @_;
    my $json = "$p->{dir}/run-" . ++$p->{seq} . '.json';
    unlink $json;
    my $pid = fork // fail("fork: $!");
    if (!$pid) {
        setpgrp(0, 0);
        open(STDOUT, '>>', $p->{log}) or exit 127;
        open(STDERR, '>&', \*STDOUT) or exit 127;
        if ($m->{kernel}) { delete $ENV{UMLBED_MUTANT} } else { $ENV{UMLBED_MUTANT} = $m->{num} }
        exec(defined $cpu ? ('taskset', '-c', $cpu) : (), "$BUILD/runner/umlbed", 'run', '--shard', '1/1', '-j', '1', '--timeout', $run->{timeout},
             '--kernel', $m->{kernel} // $p->{kernel}, '--json', $json, '--filter', glob_of($run->{name}), $run->{file})
            or exit 127;
    }
    push @Mutate::Build::workers, $pid;
    return ($pid, $json);
}

# result(JSON, NAME): the run's result from its runner's report: { verdict, report }, or undef when it wrote none.
sub result {
    my ($json, $name) = @_;
    my $r = -s $json ? eval { decode_json(slurp($json)) } : undef;
    unlink $json;
    my @res = @{ $r->{results} // [] };
    drop_kept(map { $_->{kept} } @res);
    my ($x) = grep { $_->{name} eq $name } @res or return undef;
    return { verdict => $x->{verdict}, report => crashed_hang($x) };
}

# verdict(S): a mutant's verdict once every run it has passed or was not confirmed.
sub verdict {
    my ($s) = @_;
    my $r = $s->{r};
    $r->{verdict} = 'survived';
    $r->{runs} = $s->{n};
    $r->{unconfirmed} = $s->{unconfirmed} if @{ $s->{unconfirmed} };
    $r->{errors} = $s->{errors} if @{ $s->{errors} };
    if (@{ $s->{hung} }) {
        my %seen;
        $r->{verdict} = 'timeout';
        $r->{why} = 'a run timed out, and did not time out again alone: ' . join(', ', grep { !$seen{$_}++ } @{ $s->{hung} });
    }
}

# judge_pool(P, MUTANTS, DONE): each of MUTANTS ({ r: its result so far, m: the mutant, runs: a function that gives
# its runs ([{ name, file, timeout }], in order) and how many of them go one after the other, called when the mutant
# starts }) judged, SLOTS runs at a time; DONE(R) is called with each mutant's result as it is known. P: { kernel,
# dir, log, slots }.
sub judge_pool {
    my ($p, $mutants, $done) = @_;
    make_path($p->{dir});
    my (@active, %by_pid, @exclusive, $alone);
    my @queue = @$mutants;
    # Each slot runs on one CPU, the slots dealt over the CPUs in turn from one that the pool's pid chooses, so that
    # pools side by side (shards of a batch system on one node) start on different CPUs. A pool of one slot, and
    # UMLBED_MUTATE_PIN=0, leave the choice to the runner, which takes the CPU the host's scheduler ran it on.
    my @cpus = ($ENV{UMLBED_MUTATE_PIN} // 1) && $p->{slots} > 1 ? cpus() : ();
    @cpus = (@cpus[$$ % @cpus .. $#cpus], @cpus[0 .. $$ % @cpus - 1]) if @cpus;
    my @free = (0 .. $p->{slots} - 1);
    my $busy = sub { scalar keys %by_pid };
    my $finish = sub {
        my ($s) = @_;
        $s->{over} = 1;
        $s->{r}{run_s} = sprintf('%.2f', time - $s->{t0});
        $done->($s->{r});
    };
    # A confirmation carries whether the run it confirms hung: two runs of one mutant may fail at once, each
    # confirmed on its own.
    my $launch = sub {
        my ($s, $run, $kind, $hang) = @_;
        my $slot = shift(@free) // 0;
        my ($pid, $json) = start($p, $s->{m}, $run, @cpus ? $cpus[$slot % @cpus] : undef);
        $by_pid{$pid} = { s => $s, run => $run, json => $json, kind => $kind, hang => $hang, slot => $slot };
        $s->{inflight}{$pid} = 1;
    };
    while (@queue || grep { !$_->{over} } @active) {
        # A timeout's confirmation waits until no other run goes on, then runs alone; one of a mutant killed
        # meanwhile is dropped.
        @exclusive = grep { !$_->[0]{over} } @exclusive;
        if (@exclusive && !$busy->()) {
            my ($s, $run, $hang) = @{ shift @exclusive };
            $launch->($s, $run, 'confirm', $hang);
            $alone = 1;
        }
        while (!@exclusive && !$alone && $busy->() < $p->{slots}) {
            my ($s, $run);
            for my $x (grep { !$_->{over} && !$_->{confirming} && @{ $_->{todo} } } @active) {
                # The first runs one after the other; the rest at once.
                next if $x->{n_started} < $x->{first} && %{ $x->{inflight} };
                ($s, $run) = ($x, shift @{ $x->{todo} });
                $s->{n_started}++;
                last;
            }
            if (!$s) {
                last unless @queue && grep({ !$_->{over} } @active) < 2 * $p->{slots};
                # A mutant's runs are ordered when it starts, by the kills so far.
                my $x = shift @queue;
                my ($runs, $first) = $x->{runs}->();
                push @active, { %$x, todo => $runs, first => $first, inflight => {}, n => 0, n_started => 0,
                                hung => [], unconfirmed => [], errors => [], t0 => time };
                next;
            }
            $launch->($s, $run, 'run');
        }
        # A mutant with nothing left to run, and nothing running, is judged.
        for my $s (grep { !$_->{over} && !$_->{confirming} && !@{ $_->{todo} } && !%{ $_->{inflight} } } @active) {
            verdict($s);
            $finish->($s);
        }
        @active = grep { !$_->{over} } @active;
        next unless $busy->();
        my $pid = waitpid(-1, 0);
        my $w = delete $by_pid{$pid} or next;
        @Mutate::Build::workers = grep { $_ != $pid } @Mutate::Build::workers;
        @free = sort { $a <=> $b } @free, $w->{slot};
        my ($s, $run) = @$w{qw(s run)};
        delete $s->{inflight}{$pid};
        $alone = 0 if $w->{kind} eq 'confirm';
        my $res = result($w->{json}, $run->{name});
        # A run stopped because its mutant was killed meanwhile says nothing.
        next if $s->{over};
        $res or fail("the runner wrote no report of '$run->{name}' (see $p->{log})");
        $s->{n}++;
        if ($w->{kind} eq 'run') {
            next if $res->{verdict} eq 'ok' || $res->{verdict} eq 'SKIP';
            # An ERROR is a broken test, not a kill.
            if ($res->{verdict} !~ /^(?:FAILED|CRASHED|TIMEOUT)$/) { push @{ $s->{errors} }, $run->{name}; next }
            my $hang = $res->{verdict} eq 'TIMEOUT' && !$res->{report};
            push @{ $s->{hung} }, $run->{name} if $res->{verdict} eq 'TIMEOUT';
            $s->{confirming}++;
            if ($res->{verdict} eq 'TIMEOUT') { push @exclusive, [$s, $run, $hang] } else { $launch->($s, $run, 'confirm', $hang) }
            next;
        }
        my $hang = $w->{hang};
        $s->{confirming}--;
        if ($res->{verdict} =~ /^(?:FAILED|CRASHED)$/ || $res->{report} || ($hang && $res->{verdict} eq 'TIMEOUT')) {
            my $r = $s->{r};
            $r->{verdict} = 'killed';
            $r->{runs} = $s->{n};
            $r->{killed_by} = [{ name => $run->{name}, verdict => $res->{verdict}, file => $run->{file} =~ s{^\Q$top/\E}{}r }];
            $r->{detected} = 'hang' if $hang;
            $r->{errors} = $s->{errors} if @{ $s->{errors} };
            kill('INT', -$_) for keys %{ $s->{inflight} };
            $finish->($s);
        } else {
            push @{ $s->{unconfirmed} }, $run->{name};
        }
    }
    # The runs of killed mutants that were stopped.
    while (%by_pid) {
        my $pid = waitpid(-1, 0);
        last if $pid < 0;
        my $w = delete $by_pid{$pid} or next;
        unlink $w->{json};
        @Mutate::Build::workers = grep { $_ != $pid } @Mutate::Build::workers;
    }
}

1;
