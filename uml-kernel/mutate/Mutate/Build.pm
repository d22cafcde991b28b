# SPDX-License-Identifier: MIT
# Building for the mutation driver: commands in process groups of their own that a signal ends first, the mutated
# file put back, and the object code that Trivial Compiler Equivalence compares.
package Mutate::Build;
use strict;
use warnings;
use Digest::SHA;
use Time::HiRes qw(time);
use Mutate::Util;
use Exporter qw(import);
our @EXPORT = qw(sh put_back restore tce_code stop_group locked $child $mutated @workers);

# The command running now, in a process group of its own: a signal to this script ends it first, so no build is
# left writing an object after the mutant's source has been put back.
our $child;
sub sh {
    my ($log, @cmd) = @_;
    my $pid = fork // fail("fork: $!");
    if (!$pid) {
        setpgrp(0, 0);
        open(STDOUT, '>>', $log) or exit 127;
        open(STDERR, '>&', \*STDOUT) or exit 127;
        exec @cmd or exit 127;
    }
    $child = $pid;
    waitpid($pid, 0);
    my $st = $?;
    undef $child;
    return $st;
}


# tce_code(OBJECT): the hash of an object file's code, its debug sections left out (Trivial Compiler Equivalence:
# two mutants whose objects have the same code behave the same). Without them, because gcc's line table holds
# columns: a mutant that only moves tokens on its line changes the debug info, not the code. undef when there is no
# object or objcopy cannot read it.
sub tce_code {
    my ($obj) = @_;
    return undef unless -f $obj;
    my $tmp = "$obj.tce-stripped";
    my $ok = system('objcopy', '--strip-debug', $obj, $tmp) == 0;
    my $h = $ok ? Digest::SHA->new(256)->addfile($tmp)->hexdigest : undef;
    unlink $tmp;
    return $h;
}

# The file that holds a mutant now, if any; restore() puts its original back.
our $mutated;
# The original gets the time of now, newer than the mutant's object, so the next build compiles it again.
sub put_back {
    my ($f) = @_;
    rename("$f.umlbed-orig", $f) or die "mutate: cannot put back $f: $!\n";
    utime(undef, undef, $f) or die "mutate: cannot touch $f: $!\n";
}
sub restore {
    return unless defined $mutated;
    put_back($mutated);
    undef $mutated;
}
# group_alive(PGID): whether a process of the group runs still (a zombie does not: it writes nothing, and whoever
# inherited it reaps it when it will).
sub group_alive {
    my ($pg) = @_;
    opendir(my $d, '/proc') or return 0;
    for my $p (grep { /^\d+$/ } readdir $d) {
        open(my $f, '<', "/proc/$p/stat") or next;
        my $st = <$f> // next;
        # "PID (COMM) STATE PPID PGRP ...": COMM may hold anything, so the fields start after its last ')'.
        my ($state, $pgrp) = $st =~ /\)\s+(\S)\s+\d+\s+(\d+)[^)]*$/ or next;
        return 1 if $pgrp == $pg && $state !~ /^[ZX]$/;
    }
    return 0;
}

# stop_group(PGID): TERM to a child's process group, the child reaped, and then every other member of the group
# ended (KILL to those left after 10 s): a compiler of the group that wrote its object after the original was back
# would leave an object newer than the source, and the mutant's code in every later build.
sub stop_group {
    my ($pg) = @_;
    kill('TERM', -$pg);
    waitpid($pg, 0);
    my $deadline = time + 10;
    while (group_alive($pg)) {
        kill('KILL', -$pg) if time > $deadline;
        select(undef, undef, undef, 0.01);
    }
}
# locked(CODE): CODE run holding the machine's kernel-build lock when UMLBED_KBUILD_LOCK names one (a machine that
# several people build kernels on takes turns: flock(1) on that file); the seconds spent waiting for it add up in
# $lock_wait, so that a run's times leave them out.
our $lock_wait = 0;
sub locked {
    my ($code) = @_;
    my $f = $ENV{UMLBED_KBUILD_LOCK};
    return $code->() unless $f;
    open(my $h, '>>', $f) or fail("$f: $!");
    my $t0 = time;
    flock($h, 2) or fail("flock $f: $!");
    $lock_wait += time - $t0;
    my @r = $code->();
    close $h;
    return wantarray ? @r : $r[0];
}

# The workers of the moment (compiles, judges): forked from this process, each stops its own command on TERM.
our @workers;
for my $sig (qw(INT TERM HUP)) {
    $SIG{$sig} = sub {
        kill('TERM', @workers) if @workers;
        waitpid($_, 0) for @workers;
        stop_group($child) if defined $child;
        restore();
        print STDERR "\nmutate: stopped by SIG$sig; the tree is back as it was\n";
        exit($sig eq 'INT' ? 130 : $sig eq 'TERM' ? 143 : 129);
    };
}

1;
