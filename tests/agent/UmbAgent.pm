# SPDX-License-Identifier: MIT
# UmbAgent.pm: drives the guest agent over its protocol, on the host (--stdio) or as PID 1 of a UML instance.
package UmbAgent;

use strict;
use warnings;
use Fcntl qw(F_GETFD F_SETFD FD_CLOEXEC);
use File::Basename qw(dirname);
use File::Copy qw(copy);
use File::Path qw(make_path remove_tree);
use File::Temp qw(tempdir);
use IO::Handle;
use IO::Select;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(time);
use lib dirname(__FILE__) . '/../lib';
use UmlbedStrict qw(strict_mode);

our @LIVE;    # every agent not yet closed, for the END block and signal handlers

# Every timeout below is a hang guard, never a verdict: the seconds a caller gives are for an idle host and are
# multiplied by UMLBED_TIMEOUT_SCALE (default 1, as for the runner) and, for an agent under valgrind, by 4 more.
our $TIMEOUT_SCALE = $ENV{UMLBED_TIMEOUT_SCALE} // 1;
die "UMLBED_TIMEOUT_SCALE wants a positive number (got '$TIMEOUT_SCALE')\n"
    unless $TIMEOUT_SCALE =~ /^(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/ && $TIMEOUT_SCALE > 0;
our $VALGRIND_FACTOR = 4;

# Seconds at scale 1 to seconds on this host.
sub scaled { return $_[0] * $TIMEOUT_SCALE }

# Runs $code under an alarm of $secs seconds (a hang guard); returns false if the alarm cut it short. The handler
# must die: Perl restarts waitpid() and the like after a signal whose handler returns.
sub _guarded {
    my ($secs, $code) = @_;
    my $n = int($secs);
    $n++ if $n < $secs;
    my $done = eval {
        local $SIG{ALRM} = sub { die "UmbAgent: hang guard\n" };
        alarm($n > 0 ? $n : 1);
        $code->();
        alarm(0);
        1;
    };
    alarm(0);
    die $@ if !$done && $@ ne "UmbAgent: hang guard\n";
    return $done;
}

# Orphaned processes of an instance (UML's helpers once their kernel is killed) are reparented to this process,
# so close() can reap every one of them and knows, without polling, that none is left.
# PR_SET_CHILD_SUBREAPER is 36 in <linux/prctl.h>; Perl has no binding for prctl().
{
    require 'sys/syscall.ph';
    syscall(SYS_prctl(), 36, 1, 0, 0, 0) == 0 or warn "prctl(PR_SET_CHILD_SUBREAPER): $!";
}

sub pct {
    my ($s) = @_;
    return '-' if $s eq '';
    return '%2D' if $s eq '-';
    $s =~ s/([^\x21-\x24\x26-\x7e])/sprintf('%%%02X', ord $1)/ge;
    return $s;
}

# Decodes a field as the agent's codec does (tests/data/codec-corpus): undef for one it would refuse, a byte outside
# 0x21..0x7e or a % not followed by two hex digits.
sub unpct {
    my ($s) = @_;
    return '' if $s eq '-';
    return undef if $s =~ /[^\x21-\x7e]/ || $s =~ /%(?![0-9A-Fa-f]{2})/;
    $s =~ s/%([0-9A-Fa-f]{2})/chr hex $1/ge;
    return $s;
}

sub repo_root {
    my $d = __FILE__;
    $d =~ s{/tests/agent/[^/]*$}{};
    $d = '.' if $d eq __FILE__;
    require Cwd;
    return Cwd::abs_path($d);
}

# The kernel to boot: UMLBED_KERNEL, else the patched full build, else Debian's. Under strict mode Debian's does
# not stand in for a patched build that is missing: the test then names the missing one.
sub default_kernel {
    return $ENV{UMLBED_KERNEL} if $ENV{UMLBED_KERNEL};
    my $full = repo_root() . '/build/kernel/full/obj/linux';
    return -x $full || strict_mode() ? $full : '/usr/bin/linux.uml';
}

sub _spawn {
    my ($self, $setup, @cmd) = @_;
    pipe(my $to_r, my $to_w) or die "pipe: $!";
    pipe(my $from_r, my $from_w) or die "pipe: $!";
    my $pid = fork;
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        POSIX::setsid();
        $setup->($to_r, $from_w);
        exec @cmd or POSIX::_exit(127);
    }
    close $to_r;
    close $from_w;
    $to_w->autoflush(1);
    $self->{pid} = $pid;
    $self->{to} = $to_w;
    $self->{from} = $from_r;
    $self->{sel} = IO::Select->new($from_r);
    $self->{buf} = '';
    $self->{next_id} = 1;
    $self->{replies} = {};
    $self->{events} = [];
    $self->{t0} = time;
    $self->{scale} //= $TIMEOUT_SCALE;
    push @LIVE, $self;
}

sub _fd_to {
    my ($fh, $fd) = @_;
    my $src = fileno $fh;
    if ($src != $fd) {
        POSIX::dup2($src, $fd) // die "dup2: $!";
    }
    # dup2 clears close-on-exec, but a descriptor that already had the number keeps Perl's flag.
    open my $h, '+<&=', $fd or die "fdopen $fd: $!";
    my $fl = fcntl($h, F_GETFD, 0);
    fcntl($h, F_SETFD, $fl & ~FD_CLOEXEC);
}

# Host mode: the agent binary with --stdio, optionally under a wrapper (valgrind).
sub host {
    my ($class, %o) = @_;
    my $self = bless {mode => 'host', tmp => tempdir('umlbed-agent-t.XXXXXX', TMPDIR => 1, CLEANUP => 0)}, $class;
    my @wrap = @{$o{wrap} // []};
    $self->{scale} = $TIMEOUT_SCALE * ((grep { m{(?:^|/)valgrind$} } @wrap) ? $VALGRIND_FACTOR : 1);
    $self->_spawn(sub {
        my ($in, $out) = @_;
        POSIX::dup2(fileno $in, 0);
        POSIX::dup2(fileno $out, 1);
    }, @wrap, $o{agent}, '--stdio');
    return $self;
}

# The runner that boots the kernels: BUILD/runner/umlbed ($UMLBED_BUILD or the tree's build/).
sub runner { return ($ENV{UMLBED_BUILD} // repo_root() . '/build') . '/runner/umlbed' }

# UML mode: a fresh hostfs root holding the agent as /umlbed-agent, shared/ and any extra programs under /bin, booted
# by the runner's own recipe (umlbed boot: the hostfs jail, the command line and environment of umlbed run); hold
# names descriptors that umlbed boot's caller holds open too.
sub uml {
    my ($class, %o) = @_;
    my $tmp = tempdir('umlbed-agent-t.XXXXXX', TMPDIR => 1, CLEANUP => 0);
    my $self = bless {mode => 'uml', tmp => $tmp}, $class;
    my $root = "$tmp/root";
    make_path("$root/shared", "$root/bin", "$tmp/vm");
    copy($o{agent}, "$root/umlbed-agent") or die "copy agent: $!";
    chmod 0755, "$root/umlbed-agent";
    for my $p (@{$o{programs} // []}) {
        (my $base = $p) =~ s{.*/}{};
        copy($p, "$root/bin/$base") or die "copy $p: $!";
        chmod 0755, "$root/bin/$base";
    }
    $self->{root} = $root;
    $self->{console} = "$tmp/console.log";
    my $kernel = $o{kernel} // default_kernel();
    my @cmd = (runner(), 'boot', '--kernel', $kernel, '--root', $root, '--dir', "$tmp/vm", '--umid', "agent-t-$$");
    push @cmd, '--mem', $o{mem} if $o{mem};
    push @cmd, '--cmdline', join(' ', @{$o{cmdline}}) if $o{cmdline} && @{$o{cmdline}};
    my $console = $self->{console};
    $self->_spawn(sub {
        my ($in, $out) = @_;
        _fd_to($in, 3);
        _fd_to($out, 4);
        # Descriptors the caller of umlbed boot holds open besides ($o{hold}: numbers from 5 on).
        for my $fd (@{$o{hold} // []}) {
            open my $h, '<', '/dev/null' or die "open /dev/null: $!";
            _fd_to($h, $fd);
        }
        open STDIN, '<', '/dev/null';
        open STDOUT, '>', $console;
        open STDERR, '>&', \*STDOUT;
    }, @cmd);
    return $self;
}

# Reads one line (without "\n") or returns undef at EOF or when the deadline passes.
sub _line {
    my ($self, $deadline) = @_;
    while (index($self->{buf}, "\n") < 0) {
        my $left = $deadline - time;
        return undef if $left <= 0;
        next unless $self->{sel}->can_read($left);
        my $n = sysread $self->{from}, my $chunk, 1 << 20;
        return undef unless $n;
        $self->{buf} .= $chunk;
    }
    my $i = index($self->{buf}, "\n");
    my $l = substr($self->{buf}, 0, $i);
    substr($self->{buf}, 0, $i + 1) = '';
    return $l;
}

sub _parse {
    my ($l) = @_;
    my @f = split / /, $l, -1;
    my $m = {line => $l, id => $f[0], verb => $f[1], status => $f[2] // ''};
    if ($m->{status} eq 'ok') {
        $m->{ok} = 1;
        $m->{fields} = [@f[3 .. $#f]];
    } elsif ($m->{status} eq 'err') {
        $m->{ename} = $f[3];
        $m->{msg} = defined $f[4] ? unpct($f[4]) : undef;
        $m->{nfields} = scalar @f;
    }
    return $m;
}

# Reads messages until pred(message) holds; events and replies are filed on the way. Gives up (undef) after the
# timeout: seconds at scale 1, a hang guard.
sub _pump {
    my ($self, $pred, $timeout) = @_;
    my $deadline = time + ($timeout // 30) * $self->{scale};
    for (;;) {
        my $l = $self->_line($deadline);
        return undef unless defined $l;
        my $m = _parse($l);
        push @{$self->{log}}, $l;
        if (defined $m->{id} && $m->{id} eq '0') {
            push @{$self->{events}}, $m;
        } else {
            $self->{replies}{$m->{id} // ''} = $m;
        }
        return $m if $pred->($m);
    }
}

sub wait_ready {
    my ($self, $timeout) = @_;
    my $m = $self->_pump(sub { $_[0]{id} eq '0' && ($_[0]{verb} // '') eq 'ready' }, $timeout);
    $self->{ready_s} = time - $self->{t0} if $m;
    return $m;
}

# Writes bytes to the agent without ever blocking for good: it keeps reading the agent's output meanwhile (a
# guest blocked on a full reply pipe would otherwise never read ours), and gives up after the timeout (seconds at
# scale 1, a hang guard).
sub send_raw {
    my ($self, $bytes, $timeout) = @_;
    my $deadline = time + ($timeout // 60) * $self->{scale};
    my $ws = IO::Select->new($self->{to});
    local $SIG{PIPE} = 'IGNORE';
    while (length $bytes) {
        my $left = $deadline - time;
        return 0 if $left <= 0;
        my ($r, $w) = IO::Select->select($self->{sel}, $ws, undef, $left);
        if ($r && @$r) {
            my $n = sysread $self->{from}, my $chunk, 1 << 20;
            $self->{buf} .= $chunk if $n;
        }
        if ($w && @$w) {
            my $n = syswrite $self->{to}, $bytes, 1 << 16;
            return 0 unless defined $n;
            substr($bytes, 0, $n) = '';
        }
    }
    return 1;
}

# Sends a request; returns its ID.
sub send {
    my ($self, $pid, $verb, @args) = @_;
    my $id = $self->{next_id}++;
    $self->send_raw(join(' ', $id, $pid, $verb, @args) . "\n");
    return $id;
}

sub reply {
    my ($self, $id, $timeout) = @_;
    return delete $self->{replies}{$id} if $self->{replies}{$id};
    my $m = $self->_pump(sub { ($_[0]{id} // '') eq $id }, $timeout);
    delete $self->{replies}{$id} if $m;
    return $m;
}

# The reply with this ID that also matches PRED, including one filed while waiting for another reply.
sub reply_where {
    my ($self, $id, $pred, $timeout) = @_;
    my $filed = $self->{replies}{$id};
    return delete $self->{replies}{$id} if $filed && $pred->($filed);
    my $m = $self->_pump(sub { ($_[0]{id} // '') eq $id && $pred->($_[0]) }, $timeout);
    delete $self->{replies}{$id} if $m;
    return $m;
}

# Any reply with this ID, including ones filed earlier (ID 0 for protocol errors without an ID).
sub call {
    my ($self, $pid, $verb, @args) = @_;
    return $self->reply($self->send($pid, $verb, @args));
}

sub event {
    my ($self, $verb, $pid, $timeout) = @_;
    my $match = sub { $_[0]{id} eq '0' && ($_[0]{verb} // '') eq $verb
        && (!defined $pid || ($_[0]{fields}[0] // '') eq $pid) };
    for my $i (0 .. $#{$self->{events}}) {
        return splice @{$self->{events}}, $i, 1 if $match->($self->{events}[$i]);
    }
    my $m = $self->_pump($match, $timeout);
    @{$self->{events}} = grep { $_ != $m } @{$self->{events}} if $m;
    return $m;
}

sub console {
    my ($self) = @_;
    open my $fh, '<', $self->{console} or return '';
    local $/;
    return scalar <$fh>;
}

# Waits for the instance to end by itself (after poweroff); returns its wait status, or undef if the hang guard
# (seconds at scale 1) ran out.
sub wait_exit {
    my ($self, $timeout) = @_;
    return $self->{status} if $self->{reaped};
    _guarded(($timeout // 30) * $self->{scale}, sub {
        if (waitpid($self->{pid}, 0) == $self->{pid}) {
            $self->{status} = $?;
            $self->{reaped} = 1;
        }
    });
    return $self->{reaped} ? $self->{status} : undef;
}

# Kills the whole process group (UML and its helpers), reaps every process of it, and removes the temp folder;
# safe to call twice. Afterwards no process of the group exists (not even a zombie), unless the hang guard ran out.
sub close {
    my ($self) = @_;
    return if $self->{closed}++;
    if ($self->{pid}) {
        my $pgid = $self->{pid};
        kill 'KILL', -$pgid;
        # As subreaper this process inherits every orphan of the group before it can reap the orphan's parent,
        # so waiting for the group's members until there is none (ECHILD) waits exactly until all are gone.
        my $reaped = _guarded(30 * $self->{scale}, sub {
            while ((my $r = waitpid(-$pgid, 0)) > 0) {
                @$self{qw(status reaped)} = ($?, 1) if $r == $pgid;
            }
        });
        warn "UmbAgent: processes of group $pgid still there after the hang guard\n" unless $reaped;
    }
    # Only now: closing first could block on a pipe that the dead guest no longer reads.
    close $self->{to} if $self->{to};
    close $self->{from} if $self->{from};
    remove_tree($self->{tmp}) if $self->{tmp} && !$ENV{UMLBED_KEEP};
    @LIVE = grep { $_ != $self } @LIVE;
}

sub cleanup_all { $_->close for @LIVE }

END { cleanup_all() }
for my $sig (qw(INT TERM HUP)) {
    $SIG{$sig} = sub { cleanup_all(); $SIG{$sig} = 'DEFAULT'; kill $sig, $$; };
}

1;
