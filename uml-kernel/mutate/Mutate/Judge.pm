# SPDX-License-Identifier: MIT
# Judging a mutant: the runs that reach it, the runner stopped at the first failure, each kill confirmed alone.
package Mutate::Judge;
use strict;
use warnings;
use File::Path qw(remove_tree);
use JSON::PP;
use Mutate::Util;
use Mutate::Build;
use Exporter qw(import);
our @EXPORT = qw(reach run_files judge);

# The reach of each function: the scenario files of the runs that reached it (make coverage's reach.txt).
sub reach {
    my ($g) = @_;
    my $f = "$BUILD/coverage/" . gen_get($g, 'coverage') . '/report/reach.txt';
    return undef unless -f $f;
    my %names;
    open(my $l, '-|', "$BUILD/runner/umlbed", 'list', "$top/scenarios") or fail("umlbed list: $!");
    while (<$l>) {
        chomp;
        my ($file, $name) = split /\t/, $_, 2;
        $names{$name} = $file if defined $name;
    }
    close $l;
    my (%r, $cur);
    for (split /\n/, slurp($f)) {
        if (/^(\S+) \(/) { $cur = $1; $r{$cur} //= {} }
        elsif (/^  (.+)$/ && defined $cur) { $r{$cur}{$names{$1}} = 1 if $names{$1} }
    }
    note("run selection from $f");
    return \%r;
}

# drop_kept(PATH...): the run folders a runner kept for runs that were not ok. A mutant's failing runs are the
# point, not a fault to look into, and their diagnostics are in the log already: a whole run would otherwise leave
# a thousand of them in TMPDIR.
sub drop_kept {
    for my $d (@_) {
        remove_tree($d) if defined $d && $d =~ m{/umlbed-\d+-[A-Za-z0-9]+\z} && -d $d;
    }
}

# run_files(KERNEL, JSON, TIMEOUT, FILES): one runner over FILES; the verdicts by run name, and the file of each.
sub run_files {
    my ($kernel, $json, $timeout, $log, @files) = @_;
    unlink $json;
    sh($log, "$BUILD/runner/umlbed", 'run', '-j', $ENV{JOBS} // 'auto', '--timeout', $timeout,
       '--kernel', $kernel, '--json', $json, @files);
    return undef unless -s $json;
    my $r = decode_json(slurp($json));
    drop_kept(map { $_->{kept} } @{ $r->{results} // [] });
    return $r->{results} // [];
}

# run_stream(KERNEL, JSON, TIMEOUT, LOG, NAMES, FILES): one runner over FILES that is stopped (SIGINT, which it
# cleans up after, and still writes its report) as soon as a run ends not ok: a mutant that breaks the kernel costs
# one run's time, not every run's. Its TAP is read for that moment only, a result line that starts with "not ok";
# what each run was comes from its JSON report. The runs that ended, as { name, verdict, file, report }, and whether
# the runner was stopped.
sub run_stream {
    my ($kernel, $json, $timeout, $log, $names, @files) = @_;
    unlink $json;
    pipe(my $r, my $w) or fail("pipe: $!");
    my $pid = fork // fail("fork: $!");
    if (!$pid) {
        setpgrp(0, 0);
        close $r;
        open(STDOUT, '>&', $w) or exit 127;
        open(STDERR, '>>', $log) or exit 127;
        exec("$BUILD/runner/umlbed", 'run', '-j', $ENV{JOBS} // 'auto', '--timeout', $timeout, '--kernel', $kernel,
             '--json', $json, @files) or exit 127;
    }
    close $w;
    $child = $pid;
    open(my $lh, '>>', $log) or fail("$log: $!");
    my $stopped;
    while (my $l = <$r>) {
        print $lh $l;
        next if $stopped || $l !~ /^\s*not ok\b/;
        kill('INT', $pid);
        $stopped = 1;
    }
    waitpid($pid, 0);
    undef $child;
    close $lh;
    my $rep = -s $json ? eval { decode_json(slurp($json)) } : undef;
    my @res = @{ $rep->{results} // [] };
    drop_kept(map { $_->{kept} } @res);
    # The runs that had not started, and those the stop ended (ERROR, interrupted), did not end on their own.
    my @runs = map { { name => $_->{name}, verdict => $_->{verdict}, file => $_->{file} // $names->{$_->{name}} // '',
                       report => crashed_hang($_) } }
        grep { $_->{verdict} ne 'NOT RUN' && !($stopped && $_->{verdict} eq 'ERROR') } @res;
    return (\@runs, $stopped);
}

# crashed_hang(RUN): a run of the JSON report that timed out after a kernel report (1 or 0: a match in list context
# would give the empty list, and shift the keys of the hash the caller builds).
sub crashed_hang {
    my ($run) = @_;
    return ($run->{verdict} eq 'TIMEOUT'
        && ($run->{diag} // '') =~ /console at the timeout \((kernel \w+|lockdep report)/) ? 1 : 0;
}


# judge(R, FILES, KILLS, ...): runs FILES on the mutant's kernel until one kills it. The files that killed earlier
# mutants run first, one at a time (most mutants die there); the rest run together in one runner, stopped at its
# first failure. A FAILED or CRASHED run kills only when its file, run again alone at -j 1, fails again. A run that
# timed out is a hang, and a hang confirmed the same way (its file alone times out again) kills too, as PIT counts
# TIMED_OUT as detected; an unconfirmed one is noted and the judging goes on. When a stage stopped early at a
# failure that was not confirmed, the stage runs again whole and every failure of that run is confirmed in turn.
# A mutant no run killed is "timeout" when a run of it timed out, else "survived".
sub judge {
    my ($r, $files, $kills, $kernel, $timeout, $out, $log, $names) = @_;
    my @first = grep { $kills->{$_} } @$files;
    splice(@first, 3) if @first > 3;
    my %in_first = map { $_ => 1 } @first;
    my @rest = grep { !$in_first{$_} } @$files;
    my @stages = ((map { [$_] } @first), @rest ? (\@rest) : ());
    $r->{verdict} = 'survived';
    $r->{runs} = 0;
    my (@hung, @unconfirmed);
    # confirmed(RUNS): the first of RUNS whose file, run again alone, fails or hangs again; records the kill.
    my $confirmed = sub {
        my ($runs) = @_;
        for my $k (@$runs) {
            my $sf = $k->{file} or next;
            local $ENV{JOBS} = 1;
            my $again = run_files($kernel, "$out/confirm.json", $timeout, $log, $sf) // [];
            my $hang = $k->{verdict} eq 'TIMEOUT' && !$k->{report};
            my @c = grep {
                $_->{name} eq $k->{name}
                    && ($_->{verdict} =~ /^(FAILED|CRASHED)$/ || crashed_hang($_) || ($hang && $_->{verdict} eq 'TIMEOUT'))
            } @$again;
            if (!@c) {
                push @unconfirmed, $k->{name};
                next;
            }
            $r->{verdict} = 'killed';
            $r->{killed_by} = [map { { name => $_->{name}, verdict => $_->{verdict},
                                       file => ($sf =~ s{^\Q$top/\E}{}r) } } @c];
            $r->{detected} = 'hang' if $hang;
            $kills->{$sf}++;
            return 1;
        }
        return 0;
    };
    for my $stage (@stages) {
        my ($res, $stopped) = run_stream($kernel, "$out/stream.json", $timeout, $log, $names, @$stage);
        $r->{runs} += @$res;
        # A run that hung after a kernel report (a WARNING, lockdep, BUG, KASAN) is a crash: the kernel said what
        # went wrong before it stopped answering.
        my @k = grep { $_->{verdict} =~ /^(FAILED|CRASHED|TIMEOUT)$/ || $_->{report} } @$res;
        push @hung, map { $_->{name} } grep { $_->{verdict} eq 'TIMEOUT' } @$res;
        return if $confirmed->(\@k);
        next unless $stopped;
        # The stream stopped at a failure that did not fail again alone (or at a run that was not a failure, an
        # ERROR): the stage again, whole, and every failure of that run read and confirmed.
        my $all = run_files($kernel, "$out/mutant.json", $timeout, $log, @$stage) // [];
        $r->{runs} += @$all;
        my @again = map { { name => $_->{name}, verdict => $_->{verdict}, file => $names->{$_->{name}} // '',
                            report => crashed_hang($_) } }
            grep { $_->{verdict} =~ /^(FAILED|CRASHED|TIMEOUT)$/ } @$all;
        push @hung, map { $_->{name} } grep { $_->{verdict} eq 'TIMEOUT' } @again;
        return if $confirmed->(\@again);
    }
    $r->{unconfirmed} = [@unconfirmed] if @unconfirmed;
    if (@hung) {
        my %seen;
        $r->{verdict} = 'timeout';
        $r->{why} = 'a run timed out, and did not time out again alone: ' . join(', ', grep { !$seen{$_}++ } @hung);
    }
}

1;
