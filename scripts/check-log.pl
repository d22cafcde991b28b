#!/usr/bin/env perl
# SPDX-License-Identifier: MIT
# check-log.pl: keeps each test file's whole output under make check (prove --exec), and prints what failed, with its diagnostics.
#
# usage: scripts/check-log.pl FILE                 (as prove --exec: runs FILE as prove would, with perl)
#        scripts/check-log.pl --summary DIR        the failed files' failing lines, from DIR's logs; exit 1 if any
#
# Run by prove with UMLBED_CHECK_LOGS=DIR, it runs the test FILE as prove itself would (perl FILE, which hands a
# file whose #! names another interpreter to that one), passes its output on unchanged (standard output to prove,
# standard error to the terminal) and writes both, line by line in the order they came, to DIR/FILE.tap (two
# pipes: lines the test writes to both within the same instant may come in either order). At the
# end it adds a line "# check-log: ..." with the file's result as prove judges it (planned, ran, failed, exit
# status), the wall clock of its start and end and the load average then. When the file failed, it also writes
# DIR/FILE.fail.log: each failing result line with the lines that followed it up to the next result (the
# diagnostics, whichever stream they came on), and for a file that died, planned wrongly or exited non-zero, its
# last lines. Without UMLBED_CHECK_LOGS it only runs FILE.
#
# --summary prints each failed file's .fail.log under a header naming its log and the files that ran at the same
# time (from the end lines' clocks): a failure that only happens beside another file says so there.
use strict;
use warnings;
use Config;
use File::Basename qw(dirname);
use File::Find qw(find);
use File::Path qw(make_path);
use IO::Select;
use IPC::Open3 qw(open3);
use POSIX qw(strftime :sys_wait_h);
use Symbol qw(gensym);
use TAP::Parser;
use Time::HiRes qw(time);

my $DIAG_MAX = 40;    # lines kept after one failing result: its first quarter and its last three
my $TAIL_MAX = 30;    # last lines kept of a file that died or planned wrongly

sub usage { print STDERR "usage: check-log.pl FILE | check-log.pl --summary DIR\n"; exit 2 }

sub load { open my $h, '<', '/proc/loadavg' or return '?'; my @f = split ' ', scalar <$h>; return "@f[0 .. 2]" }

# The result line of a test, as TAP::Parser reads it: [ok, number, is TODO].
sub result_of {
    my ($line) = @_;
    return unless $line =~ /^(not )?ok\b\s*(\d*)/;
    my ($not, $num) = ($1, $2);
    return [!$not, $num, $line =~ /#\s*TODO\b/i ? 1 : 0];
}

# The lines to show for a failed file: each failing result and what followed it, then its end when it ended badly.
sub failures {
    my ($lines, $p, $status) = @_;
    my @show;
    for (my $i = 0; $i < @$lines; $i++) {
        my ($stream, $text) = @{ $lines->[$i] };
        next unless $stream eq 'out';
        my $r = result_of($text) or next;
        next if $r->[0] || $r->[2];
        push @show, $text;
        my @after;
        for (my $j = $i + 1; $j < @$lines; $j++) {
            last if $lines->[$j][0] eq 'out' && result_of($lines->[$j][1]);
            push @after, "  $lines->[$j][1]";
        }
        # A long diagnostic keeps its start and its end, where a tool's verdict usually is.
        if (@after > $DIAG_MAX) {
            my $cut = @after - $DIAG_MAX;
            splice @after, $DIAG_MAX / 4, $cut, "  ... ($cut lines cut: the whole output has them)";
        }
        push @show, @after;
    }
    # A non-zero exit that failed results explain (Test::More exits with their count) needs no tail.
    my $planned = $p->tests_planned;
    my $ended_badly = !defined $planned || $planned != $p->tests_run || $p->parse_errors || $status > 128
        || ($status != 0 && !$p->failed);
    if ($ended_badly) {
        push @show, map { "parse error: $_" } $p->parse_errors;
        my $from = @$lines > $TAIL_MAX ? @$lines - $TAIL_MAX : 0;
        push @show, "its last lines:", map { "  $lines->[$_][1]" } $from .. $#$lines;
    }
    return @show;
}

sub run_file {
    my ($file) = @_;
    my $dir = $ENV{UMLBED_CHECK_LOGS};
    unless (defined $dir && $dir ne '') { exec($^X, $file) or die "check-log: cannot run $^X $file: $!\n" }
    my $log = "$dir/$file.tap";
    make_path(dirname($log));
    open my $lh, '>', $log or die "check-log: $log: $!\n";
    $lh->autoflush(1);
    my ($t0, $load0) = (time, load());
    my $err = gensym;
    my $pid = open3('<&STDIN', my $out, $err, $^X, $file);
    # Set after the fork, so that the test starts with every signal at its default (an ignored one would stay
    # ignored in it). A signal sent to this process alone reaches the test; the terminal's Ctrl-C reaches the
    # whole group, the test with it, and this process waits for the test to end.
    for my $sig (qw(TERM HUP)) { $SIG{$sig} = sub { kill $sig, $pid } }
    $SIG{INT} = 'IGNORE';
    my %to = ($out => [\*STDOUT, 'out'], $err => [\*STDERR, 'err']);
    my %part = (out => '', err => '');
    my @lines;
    my $sel = IO::Select->new($out, $err);
    STDOUT->autoflush(1);
    STDERR->autoflush(1);
    while ($sel->count) {
        for my $fh ($sel->can_read) {
            my $n = sysread $fh, my $buf, 65536;
            next if !defined $n && $!{EINTR};
            my ($dest, $stream) = @{ $to{$fh} };
            if (!$n) {
                $sel->remove($fh);
                if ($part{$stream} ne '') { push @lines, [$stream, $part{$stream}]; print $lh "$part{$stream}\n" }
                $part{$stream} = '';
                next;
            }
            syswrite $dest, $buf;
            $part{$stream} .= $buf;
            while ($part{$stream} =~ s/\A([^\n]*)\n//) { push @lines, [$stream, $1]; print $lh "$1\n" }
        }
    }
    waitpid $pid, 0;
    my $wstat = $?;
    my $status = WIFEXITED($wstat) ? WEXITSTATUS($wstat) : 128 + WTERMSIG($wstat);
    my $t1 = time;
    # The result as prove judges it: from the standard output alone, with the exit status.
    my $p = TAP::Parser->new({ tap => join('', map { "$_->[1]\n" } grep { $_->[0] eq 'out' } @lines) });
    $p->run;
    my @failed = $p->failed;
    my $planned = $p->tests_planned // 'none';
    my $ok = !@failed && !$p->parse_errors && $status == 0 && $planned ne 'none' && $planned == $p->tests_run;
    printf $lh "# check-log: %s %s: planned %s, ran %d, failed %s, exit %d; from %s to %s (%.1f s), load %s then %s\n",
        $file, $ok ? 'PASS' : 'FAIL', $planned, $p->tests_run, @failed ? join(',', @failed) : 'none', $status,
        strftime('%H:%M:%S', localtime $t0), strftime('%H:%M:%S', localtime $t1), $t1 - $t0, $load0, load();
    printf $lh "# check-log-times: %.3f %.3f\n", $t0, $t1;
    close $lh;
    unlink "$dir/$file.fail.log";
    unless ($ok) {
        open my $fh, '>', "$dir/$file.fail.log" or die "check-log: $dir/$file.fail.log: $!\n";
        print $fh "$_\n" for failures(\@lines, $p, $status);
        close $fh;
    }
    # A test killed by a signal: this process ends by the same signal, so prove sees what it would have seen.
    if (WIFSIGNALED($wstat)) {
        my $name = (split ' ', $Config{sig_name})[WTERMSIG($wstat)];
        $SIG{$name} = 'DEFAULT';
        kill $name, $$;
    }
    exit $status;
}

sub summary {
    my ($dir) = @_;
    my (%end, %times);
    find({ no_chdir => 1, wanted => sub { $end{$File::Find::name} = 1 if /\.t\.tap$/ } }, $dir) if -d $dir;
    for my $log (sort keys %end) {
        open my $h, '<', $log or next;
        my ($line, $t);
        while (<$h>) { $line = $1 if /^# check-log: (.*)/; $t = [$1, $2] if /^# check-log-times: (\S+) (\S+)/ }
        (my $file = substr($log, length($dir) + 1)) =~ s/\.tap$//;
        $end{$log} = [$file, $line // "no end line: it was still running or its wrapper was killed", $t];
    }
    my @failed = grep { $end{$_}[1] !~ /^\S+ PASS:/ } sort keys %end;
    for my $log (@failed) {
        my ($file, $line, $t) = @{ $end{$log} };
        my @beside = map { $end{$_}[0] } grep {
            my $o = $end{$_}[2];
            $_ ne $log && $t && $o && $o->[0] < $t->[1] && $o->[1] > $t->[0]
        } sort keys %end;
        print "\n==== $file failed: its whole output is $log\n";
        print "     $line\n";
        print "     beside it ran: ", (@beside ? join(', ', @beside) : 'nothing'), "\n";
        (my $fail = $log) =~ s/\.tap$/.fail.log/;
        if (open my $h, '<', $fail) { print "     $_" while <$h> }
        else { print "     (no $fail: see the whole output)\n" }
    }
    printf "\ncheck-log: %d of %d test files failed%s\n", scalar @failed, scalar keys %end,
        @failed ? ' (above, each with its failing lines and their diagnostics)' : '' if %end;
    return @failed ? 1 : 0;
}

usage() unless @ARGV;
if ($ARGV[0] eq '--summary') { @ARGV == 2 or usage(); exit summary($ARGV[1]) }
usage() if @ARGV != 1 || $ARGV[0] =~ /^-/;
run_file($ARGV[0]);
