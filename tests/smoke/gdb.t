#!/usr/bin/perl
# gdb test: runs the smoke test's kernel under gdb in batch mode and checks that a breakpoint on
# invalidate_mmap_range() sees exactly the calls the guest made, with the guest's arguments.
use strict;
use warnings;

use Cwd qw(abs_path);
use File::Basename qw(dirname);
use lib dirname(abs_path(__FILE__)), dirname(abs_path(__FILE__)) . '/../lib';
use Test::More;
use UmlbedSmoke qw(variants kernel_path workdir init_binary make_root boot_cmdline boot show_console);
use UmlbedStrict qw(prereq_skip_all);

my $here = dirname(abs_path(__FILE__));
my $gdb = $ENV{GDB} // 'gdb';
prereq_skip_all("no $gdb (Debian package gdb)") if system("command -v $gdb >/dev/null") != 0;

my $work = workdir();
my $init = init_binary($work);
my @variants = $ENV{UMLBED_GDB_VARIANTS} ? split(' ', $ENV{UMLBED_GDB_VARIANTS}) : variants();

for my $variant (@variants) {
	subtest "gdb breaks on invalidate_mmap_range in the $variant kernel" => sub {
		my $kernel = kernel_path($variant);
		if (!ok(-x $kernel, "$variant: kernel $kernel exists")) {
			diag("build it with make kernel, or point UMLBED_KERNEL_<variant> at a UML kernel");
			return;
		}
		my $dir = "$work/$variant";
		make_root($dir, $init, $variant);
		my @argv = ($gdb, '-nx', '-batch', '-x', "$here/uml.gdb", '-x', "$here/break-invalidate.gdb", '--args',
			    boot_cmdline($kernel, $dir, $variant, "umlbed-gdb-$$-$variant"));
		note("@argv");
		my $r = boot(argv => \@argv, tmpdir => "$dir/tmp", timeout => $ENV{UMLBED_GDB_TIMEOUT} // 120);

		ok(!$r->{timed_out}, "$variant: gdb and UML finished within the timeout");
		ok($r->{seen}, "$variant: the leftover probe (/proc) saw gdb before it was reaped");
		ok(!$r->{leftover}, "$variant: no process of gdb or UML left after cleanup");
		ok($r->{console} =~ qr/^Breakpoint 1 at 0x[0-9a-f]+: (?:file \S+, line \d+|invalidate_mmap_range\. \(\d+ locations\))/m,
		     "$variant: gdb set the breakpoint on invalidate_mmap_range");
		ok($r->{console} =~ qr/^Breakpoint 2 at 0x[0-9a-f]+: (?:file \S+, line \d+|__invalidate_mmap_range\. \(\d+ locations\))/m,
		     "$variant: gdb set the breakpoint on __invalidate_mmap_range");
		ok($r->{console} =~ qr/^\[Inferior 1 \(process \d+\) exited normally\]/m,
		     "$variant: the kernel ran to its power-off under gdb");
		like($r->{tap}, qr/^1\.\.\d+$/m, "$variant: the guest finished its run (plan printed)");

		# The guest announces each call it makes; a module calls the exported function, which calls the body, and the
		# trigger calls the body directly. gdb prints each call it saw, in order.
		my @want;
		for my $call ($r->{tap} =~ /^# umlbed-call (\w+ \d+ \d+)$/mg) {
			my ($via, $args) = split / /, $call, 2;
			push @want, "invalidate_mmap_range $args" if $via eq 'module';
			push @want, "__invalidate_mmap_range $args";
		}
		my @seen;
		while ($r->{console} =~ /^umlbed-hit (\w+) holebegin=(\d+) holelen=(\d+)$/mg) {
			push @seen, "$1 $2 $3";
		}
		ok(scalar(grep { /^invalidate_mmap_range / } @want), "$variant: the guest called the exported function");
		is_deeply(\@seen, \@want, "$variant: the breakpoints saw every call with holebegin and holelen as written")
			or diag("gdb saw:\n  " . join("\n  ", @seen) . "\nguest made:\n  " . join("\n  ", @want));
		show_console($r, "$variant under gdb") unless Test::More->builder->is_passing;
	};
}

done_testing();
