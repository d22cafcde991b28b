# SPDX-License-Identifier: MIT
# Host side of the kernel smoke tests: finds kernels and modules, builds the init, boots UML with a timeout.
package UmlbedSmoke;

use strict;
use warnings;

use Cwd qw(abs_path);
use Exporter qw(import);
use Fcntl qw(F_GETFD F_SETFD FD_CLOEXEC);
use File::Basename qw(dirname);
use File::Copy qw(copy);
use File::Temp qw(tempdir);
use IO::Select;
use POSIX qw(setpgid _exit WNOHANG WIFEXITED WEXITSTATUS WIFSIGNALED WTERMSIG);
use Test::More;
use Time::HiRes qw(time);

our @EXPORT_OK = qw(variants kernel_path modules_dir workdir init_binary make_root boot_args boot_cmdline boot relay_tap
		    show_console proprietary_expectation);

my $here = dirname(abs_path(__FILE__));
our $REPO = abs_path("$here/../..");
our $BUILD = $ENV{BUILD} // "$REPO/build";

# Scales every timeout, for slow machines or kernels with heavy debugging options.
our $TIMEOUT_SCALE = $ENV{UMLBED_TIMEOUT_SCALE} // 1;

# The process group of the UML instance currently running, so a signal to the test can still kill it.
my $live_pgid;

# Processes started by this test, from /proc: pid => [pgid, state]. gdb puts its inferior (the UML kernel) in a
# process group of its own, so one group kill is not enough under gdb: every group of the tree is killed.
sub _descendants {
	my (%parent, %info);
	for my $stat (glob '/proc/[0-9]*/stat') {
		open(my $fh, '<', $stat) or next;
		my $line = <$fh> // next;
		my ($pid, $state, $ppid, $pgid) = $line =~ /^(\d+) \(.*\) (\S) (\d+) (\d+)/s or next;
		$parent{$pid} = $ppid;
		$info{$pid} = [ $pgid, $state ];
	}
	my %tree;
	for my $pid (keys %parent) {
		my %seen;
		for (my $p = $parent{$pid}; defined $p && !$seen{$p}++; $p = $parent{$p}) {
			if ($p == $$) {
				$tree{$pid} = $info{$pid};
				last;
			}
		}
	}
	return \%tree;
}

sub _kill_tree {
	my ($pgid) = @_;
	my $tree = _descendants();
	my %groups = map { $_->[0] => 1 } values %$tree;
	$groups{$pgid} = 1 if $pgid;
	delete $groups{getpgrp()};
	kill 'KILL', map { -$_ } keys %groups;
	kill 'KILL', keys %$tree;
}

sub _kill_live {
	_kill_tree($live_pgid) if $live_pgid;
	$live_pgid = undef;
}

# An interrupted test must not leave a UML instance or the temp folder behind: exit() runs File::Temp's cleanup.
$SIG{$_} = sub { _kill_live(); exit 128 + 2 } for qw(INT TERM HUP PIPE);
END { _kill_live() }

# Orphaned UML helpers are reparented to this process, so it can reap them and prove none is left.
# PR_SET_CHILD_SUBREAPER is 36 in <linux/prctl.h>; Perl has no binding for prctl().
{
	require 'sys/syscall.ph';
	syscall(SYS_prctl(), 36, 1, 0, 0, 0) == 0 or warn "prctl(PR_SET_CHILD_SUBREAPER): $!";
}

# uml-kernel/generation.sh ARGS: the generations' data (uml-kernel/generations/), or undef where it has none.
sub _generation {
	open(my $fh, '-|', "$REPO/uml-kernel/generation.sh", @_) or return undef;
	my $out = do { local $/; <$fh> };
	close($fh) or return undef;
	chomp $out;
	return $out;
}

# The variants to test: UMLBED_VARIANTS, else the default generation's (make check names every generation's).
sub variants {
	my $list = $ENV{UMLBED_VARIANTS};
	if (!defined $list) {
		my $gen = _generation('default') // BAIL_OUT('uml-kernel/generation.sh names no default generation');
		$list = _generation('get', $gen, 'variants') // BAIL_OUT("uml-kernel/generations/$gen has no variants");
	}
	return split ' ', $list;
}

# Environment names cannot hold '-': gpl-only is overridden by UMLBED_KERNEL_gpl_only.
sub _env_name {
	(my $name = shift) =~ s/[^A-Za-z0-9]/_/g;
	return $name;
}

sub kernel_path {
	my ($variant) = @_;
	return $ENV{'UMLBED_KERNEL_' . _env_name($variant)} // "$BUILD/kernel/$variant/obj/linux";
}

sub modules_dir {
	my ($variant) = @_;
	return $ENV{'UMLBED_MODULES_' . _env_name($variant)} // "$BUILD/kernel/$variant/modules";
}

# Only the gpl-only variants (gpl-only, gpl-only-6.12: the base name gpl-only in any generation) keep
# invalidate_mmap_range() GPL-only, so only there must the proprietary module fail.
sub proprietary_expectation {
	my ($variant) = @_;
	my $base = _generation('base', $variant) // $variant;
	return $base eq 'gpl-only' ? 'refuse' : 'load';
}

# One temp folder per test file; removed at exit, also after a failure or a signal.
sub workdir {
	return tempdir('umlbed-smoke-XXXXXX', TMPDIR => 1, CLEANUP => 1);
}

# Uses UMLBED_SMOKE_INIT if set, else compiles init.c into the work folder with the project's flags.
sub init_binary {
	my ($work) = @_;
	return $ENV{UMLBED_SMOKE_INIT} if $ENV{UMLBED_SMOKE_INIT};
	my $cc = $ENV{CC} // 'cc';
	my @cmd = ($cc, qw(-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -static -o), "$work/init", "$here/init.c");
	system(@cmd) == 0 or BAIL_OUT("cannot build the smoke init: @cmd");
	return "$work/init";
}

# Makes a fresh hostfs root holding the init and the variant's modules. Returns the root's path.
sub make_root {
	my ($dir, $init, $variant) = @_;
	my $root = "$dir/root";
	for my $sub ($dir, "$dir/uml", "$dir/tmp", $root, "$root/dev", "$root/proc", "$root/sys") {
		mkdir $sub or die "mkdir $sub: $!";
	}
	# The runner's recipe boots DIR/root/umlbed-agent as init: here that is the smoke init.
	copy($init, "$root/umlbed-agent") or die "copy $init: $!";
	chmod 0755, "$root/umlbed-agent";
	my $mods = modules_dir($variant);
	for my $ko (qw(umlbed_gpl.ko umlbed_proprietary.ko)) {
		if (-f "$mods/$ko") {
			copy("$mods/$ko", "$root/$ko") or die "copy $mods/$ko: $!";
		} else {
			diag("$mods/$ko is missing (make modules); the module tests will fail");
		}
	}
	return $root;
}

# The runner that boots the kernels (umlbed boot), as umlbed run boots them: BUILD/runner/umlbed.
sub runner { return $ENV{UMLBED_RUNNER} // "$BUILD/runner/umlbed" }

# The kernel's boot, the runner's own (umlbed boot): the hostfs jail DIR/root with the init as /umlbed-agent, the
# console on fd 1, the serial line ssl0 on fds 3 (in) and 4 (out: the init's TAP); the variant and the expectation
# for the proprietary module reach the init as kernel arguments, after @extra.
sub boot_args {
	my ($kernel, $dir, $variant, $umid, @extra) = @_;
	# UMLBED_EXTRA_ARGS adds kernel arguments, e.g. lpj=N to skip the delay-loop calibration (about 55 ms here).
	my @args = (split(' ', $ENV{UMLBED_EXTRA_ARGS} // ''), @extra, "UMLBED_VARIANT=$variant",
		'UMLBED_PROPRIETARY=' . proprietary_expectation($variant));
	return (runner(), 'boot', '--kernel', $kernel, '--root', "$dir/root", '--dir', $dir, '--umid', $umid,
		'--mem', '64M', '--cmdline', join(' ', @args));
}

# The same boot's kernel command line, for a caller that starts the kernel itself (gdb --args): the runner prints it.
sub boot_cmdline {
	my @cmd = (boot_args(@_), '--print');
	open(my $fh, '-|', @cmd) or die "@cmd: $!";
	chomp(my @argv = <$fh>);
	close $fh or die "@cmd: exit $?";
	return @argv;
}

my $instances = 0;

# The CPUs this process may run on (its affinity mask, e.g. under `taskset -c 1`), in order.
sub _allowed_cpus {
	if (open(my $fh, '<', '/proc/self/status')) {
		while (my $line = <$fh>) {
			next unless $line =~ /^Cpus_allowed_list:\s*(\S+)/;
			my @cpus;
			for my $part (split /,/, $1) {
				my ($lo, $hi) = $part =~ /^(\d+)(?:-(\d+))?$/ or next;
				push @cpus, $lo .. ($hi // $lo);
			}
			return @cpus if @cpus;
		}
	}
	return ();
}

# Whole seconds for alarm(), which truncates (and alarm(0) would disarm the guard).
sub _alarm_secs {
	my ($secs) = @_;
	my $n = int($secs);
	$n++ if $n < $secs;
	return $n > 0 ? $n : 1;
}

# Boots argv in its own process group with stdin /dev/null, stdout+stderr and fd 3 on pipes, all temp files in
# $o{tmpdir}, in folder $o{cwd} when given. Waits for both pipes to close or for the timeout, which kills the group.
# Returns a hash with console, tap, status, timed_out, seconds and first_tap (seconds to the first byte on fd 3).
sub boot {
	my (%o) = @_;
	my @argv = @{ $o{argv} };
	my $timeout = ($o{timeout} // 60) * $TIMEOUT_SCALE;

	# Pinning an instance to one CPU makes its page faults several times faster. The CPU comes from this
	# process's affinity mask, so a test run under `taskset -c N` pins its instances inside it.
	my @cpus = _allowed_cpus();
	if (@cpus && system('command -v taskset >/dev/null') == 0) {
		unshift @argv, 'taskset', '-c', $cpus[ $instances++ % @cpus ];
	}

	pipe(my $con_r, my $con_w) or die "pipe: $!";
	pipe(my $tap_r, my $tap_w) or die "pipe: $!";
	# The serial line's input: a pipe this process holds open and never writes to (EOF would hang the line up).
	pipe(my $ser_r, my $ser_w) or die "pipe: $!";
	my $start = time;
	my $pid = fork // die "fork: $!";
	if ($pid == 0) {
		setpgid(0, 0);
		open(STDIN, '<', '/dev/null') or _exit(126);
		POSIX::dup2(fileno($con_w), 1) // _exit(126);
		POSIX::dup2(fileno($con_w), 2) // _exit(126);
		# fd 3 in, fd 4 out: dup'd above both numbers first, so that neither overwrites the other.
		my $in = POSIX::dup(fileno($ser_r)) // _exit(126);
		my $out = POSIX::dup(fileno($tap_w)) // _exit(126);
		POSIX::dup2($in, 3) // _exit(126);
		POSIX::dup2($out, 4) // _exit(126);
		POSIX::close($_) for grep { $_ > 4 } $in, $out;
		$ENV{TMPDIR} = $o{tmpdir};
		if (defined $o{cwd}) { chdir($o{cwd}) or _exit(126); }
		{ no warnings qw(exec); exec { $argv[0] } @argv; }
		_exit(127);
	}
	# Both sides set the group, so it exists before either goes on.
	setpgid($pid, $pid);
	$live_pgid = $pid;
	close $con_w;
	close $tap_w;
	close $ser_r;

	my %r = (console => '', tap => '', timed_out => 0, first_tap => undef);
	my $sel = IO::Select->new($con_r, $tap_r);
	my $deadline = $start + $timeout;
	while ($sel->count) {
		my $left = $deadline - time;
		if ($left <= 0) {
			$r{timed_out} = 1;
			last;
		}
		for my $fh ($sel->can_read($left)) {
			my $n = sysread($fh, my $buf, 65536);
			if (!$n) {
				$sel->remove($fh);
				next;
			}
			if ($fh == $tap_r) {
				$r{first_tap} //= time - $start;
				$r{tap} .= $buf;
			} else {
				$r{console} .= $buf;
			}
		}
	}
	# The leftover probe below must be able to see what it looks for: the child, not yet reaped (alive or a
	# zombie), is in /proc as a descendant of this process now.
	$r{seen} = _descendants()->{$pid} ? 1 : 0;
	# The pipes closed or time ran out: the process must end now, or everything it started is killed.
	{
		local $SIG{ALRM} = sub { $r{timed_out} = 1; _kill_tree($pid) };
		_kill_tree($pid) if $r{timed_out};
		alarm(_alarm_secs($deadline - time + 2));
		waitpid($pid, 0);
		$r{status} = $?;
		alarm(0);
	}
	$r{seconds} = time - $start;
	# As subreaper this process inherits whatever outlived the kernel process (UML helpers, or the kernel itself
	# when gdb ran it): reap the dead, note the living, kill them all and reap until nothing is left.
	1 while waitpid(-1, WNOHANG) > 0;
	$r{outlived} = (grep { $_->[1] ne 'Z' } values %{ _descendants() }) || kill(0, -$pid) ? 1 : 0;
	_kill_tree($pid);
	# A hang guard only: SIGKILLed processes end, and waitpid() returns ECHILD once the last is reaped. The handler
	# dies, because Perl restarts waitpid() after a handler that returns.
	eval {
		local $SIG{ALRM} = sub { die "reap guard\n" };
		alarm(_alarm_secs(30 * $TIMEOUT_SCALE));
		1 while waitpid(-1, 0) > 0;
		alarm(0);
	};
	alarm(0);
	$r{leftover} = (%{ _descendants() } || kill(0, -$pid)) ? 1 : 0;
	$live_pgid = undef;
	close $con_r;
	close $tap_r;
	close $ser_w;
	return \%r;
}

sub _status_text {
	my ($status) = @_;
	return 'no status' unless defined $status;
	return 'exit ' . WEXITSTATUS($status) if WIFEXITED($status);
	return 'signal ' . WTERMSIG($status) if WIFSIGNALED($status);
	return "status $status";
}

sub show_console {
	my ($r, $label) = @_;
	diag("---- console of $label (" . _status_text($r->{status}) . ") ----");
	diag($_) for split /\n/, $r->{console};
	diag("---- TAP channel of $label ----");
	diag($_) for split /\n/, $r->{tap};
	diag("---- end of $label ----");
	# A log may be cut to its last lines (a CI summary), so the failed checks are named again after the console.
	my @failed = map { $_->{name} } grep { !$_->{ok} } Test::More->builder->details;
	diag("failed above: $_") for @failed;
}

# Kernel warnings that are known, understood and not caused by the code under test. Each still shows up as a
# failing TODO test, so it stays visible until it is fixed; any other warning fails the test. Empty since every
# 6.1 variant carries uml-kernel/fixes/6.1/um-force_flush_all-mmap_lock.patch (UML's own "suspicious RCU usage" at
# fork; 6.12's fork walks no VMAs).
our @KNOWN_SPLATS = ();

# Splits the kernel log into splats (WARN, BUG, oops, panic, lockdep reports) and checks each against the known list.
our $TODO;

sub _check_splats {
	my ($console, $label) = @_;
	# printk may prefix a timestamp.
	my $start = qr/^(?:\[\s*\d+\.\d+\]\s*)?(?:WARNING:|BUG:|Kernel panic|Oops|general protection|.*\bcut here\b)/;
	my @lines = split /\n/, $console;
	my (@unknown, %known);
	for (my $i = 0; $i < @lines; $i++) {
		next unless $lines[$i] =~ $start;
		my $end = $i + 1;
		$end++ while $end < @lines && $end < $i + 60 && $lines[$end] !~ $start;
		my $block = join("\n", @lines[$i .. $end - 1]);
		my ($k) = grep { $block =~ $_->{what} && $block =~ $_->{where} } @KNOWN_SPLATS;
		if ($k) {
			$known{ $k->{why} }++;
		} else {
			push @unknown, $lines[$i];
		}
		$i = $end - 1;
	}
	if (!ok(!@unknown, "$label: no WARN, BUG, oops or panic in the kernel log")) {
		diag("  $_") for @unknown;
	}
	for my $why (sort keys %known) {
		TODO: {
			local $TODO = 'known kernel issue outside the code under test';
			ok(0, "$label: known splat ($known{$why}x): $why");
		}
	}
	return;
}

# Relays the guest's TAP as tests of the current (sub)test, then checks what only the host can see: a complete plan,
# a clean power-off, no timeout, nothing left running, and no WARN/BUG/oops/panic in the kernel log.
sub relay_tap {
	my ($r, $label) = @_;
	my ($plan, $count, $order_ok, $junk, $last_failed) = (undef, 0, 1, 0, 0);
	for my $line (split /\r?\n/, $r->{tap}) {
		if ($line =~ /^(not )?ok (\d+)(?: - (.*))?$/) {
			$count++;
			$order_ok = 0 if $2 != $count;
			$last_failed = !ok(!$1, "$label: " . ($3 // "guest test $2"));
		} elsif ($line =~ /^1\.\.(\d+)$/) {
			$plan = $1;
		} elsif ($line =~ /^# ?(.*)$/) {
			# Guest diagnostics follow the test they explain: show those of failed tests.
			if ($last_failed) {
				diag("  $1");
			} else {
				note("  $1");
			}
		} elsif ($line ne '') {
			$junk++;
			diag("unexpected line on the TAP channel: $line");
		}
	}
	ok(!$r->{timed_out}, "$label: finished within the timeout") or diag("killed after $r->{seconds} s");
	ok(defined $plan, "$label: the guest printed its plan");
	ok(defined $plan && $plan == $count && $order_ok, "$label: the guest ran all its planned tests in order")
		or diag("plan " . ($plan // 'missing') . ", $count test lines");
	ok(!$junk, "$label: nothing but TAP on the TAP channel");
	ok(defined $r->{status} && WIFEXITED($r->{status}) && WEXITSTATUS($r->{status}) == 0,
	   "$label: UML powered off cleanly") or diag(_status_text($r->{status}));
	note("$label: some UML helper outlived the kernel process and was killed") if $r->{outlived};
	ok($r->{seen}, "$label: the leftover probe (/proc) saw the instance before it was reaped");
	ok(!$r->{leftover}, "$label: no process of the instance left after cleanup");
	_check_splats($r->{console}, $label);
	return;
}

1;
