#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# gdb test: runs the smoke test's kernel under gdb in batch mode and checks that a breakpoint on
# invalidate_mmap_range() sees exactly the calls the guest made, with the guest's arguments, and that the kernel's
# own gdb helpers (lx-version, lx-cmdline, lx-dmesg, lx-ps, lx-lsmod, lx-symbols) read the stopped guest correctly.
use strict;
use warnings;

use Cwd qw(abs_path);
use File::Basename qw(dirname);
use lib dirname(abs_path(__FILE__)), dirname(abs_path(__FILE__)) . '/../lib';
use Test::More;
use UmlbedSmoke qw(variants kernel_path modules_dir workdir init_binary make_root boot_cmdline boot show_console);
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
	subtest "the kernel's lx- gdb helpers read the stopped $variant kernel" => sub {
		my $kernel = kernel_path($variant);
		my $obj = dirname($kernel);
		# lx-symbols reloads the kernel's symbols from the objfile whose name ends in "vmlinux", so gdb must run
		# the kernel under that name (the same file as linux); vmlinux-gdb.py is then auto-loaded beside it.
		my $vmlinux = "$obj/vmlinux";
		if (!ok(-x $vmlinux && -f "$obj/vmlinux-gdb.py", "$variant: $vmlinux and vmlinux-gdb.py exist")) {
			diag("build the kernel with CONFIG_GDB_SCRIPTS=y (make kernel)");
			return;
		}
		my $dir = "$work/$variant-lx";
		make_root($dir, $init, $variant);
		my $umid = "umlbed-lx-$$-$variant";
		my @kargs = boot_cmdline($kernel, $dir, $variant, $umid);
		$kargs[0] = $vmlinux;
		my @argv = ($gdb, '-nx', '-batch', '-iex', "add-auto-load-safe-path $obj", '-x', "$here/uml.gdb",
			    '-x', "$here/lx-helpers.gdb", '--args', @kargs);
		note("@argv");
		local $ENV{UMLBED_LX_MODDIR} = modules_dir($variant);
		# lx-symbols also scans gdb's current folder for .ko files: in the module folder it finds no other
		# variant's umlbed_gpl.ko and walks no kernel tree.
		my $r = boot(argv => \@argv, tmpdir => "$dir/tmp", cwd => modules_dir($variant),
			     timeout => $ENV{UMLBED_GDB_TIMEOUT} // 120);
		my $con = $r->{console};
		my %out;
		$out{$1} = $2 while $con =~ /^umlbed-lx-begin (\w+)\n(.*?)^umlbed-lx-end$/msg;

		ok(!$r->{timed_out}, "$variant: gdb and UML finished within the timeout");
		ok($r->{seen}, "$variant: the leftover probe (/proc) saw gdb before it was reaped");
		ok(!$r->{leftover}, "$variant: no process of gdb or UML left after cleanup");
		ok($con =~ /^\[Inferior 1 \(process \d+\) exited normally\]/m,
		   "$variant: the kernel ran on to its power-off after the helpers and lx-symbols");
		# gdb names the thread that hit it when the inferior has more than one.
		my ($holebegin) = $con =~ /^(?:Thread \d+ "[^"]*" hit )?Breakpoint 1, invalidate_mmap_range \(.*holebegin=(\d+)/m;
		ok(defined $holebegin, "$variant: gdb stopped in the module's call of invalidate_mmap_range");

		# The kernel prints its banner and its command line itself; the helpers must read the same from memory.
		my ($banner) = $con =~ /^\[\s*\d+\.\d+\] (Linux version .*)$/m;
		is(($out{version} // '') =~ s/\s+\z//r, $banner // 'no banner on the console',
		   "$variant: lx-version prints the banner the kernel printed");
		like($out{cmdline} // '', qr/(?:^| )hostfs=\Q$dir\E\/root(?: |$)/m, "$variant: lx-cmdline shows this boot's hostfs=");
		like($out{dmesg} // '', qr/^\[\s*\d+\.\d+\] Run \/umlbed-agent as init process$/m,
		     "$variant: lx-dmesg shows a line the kernel printed at boot");
		like($out{ps} // '', qr/^\s*0x[0-9a-f]+\s+1\s+umlbed-agent$/m, "$variant: lx-ps lists the agent as PID 1");
		my ($lsmod) = ($out{lsmod} // '') =~ /^(0x[0-9a-f]+) umlbed_gpl\s/m;
		ok(defined $lsmod, "$variant: lx-lsmod lists umlbed_gpl") or diag($out{lsmod} // 'no lx-lsmod output');
		my ($loaded) = ($out{symbols} // '') =~ /^loading \@(0x[0-9a-f]+): \S+\/umlbed_gpl\.ko$/m;
		ok(defined $loaded && defined $lsmod && hex($loaded) == hex($lsmod),
		   "$variant: lx-symbols loads umlbed_gpl.ko at the address lx-lsmod shows")
			or diag($out{symbols} // 'no lx-symbols output');
		# The module parameter lives in the module's .bss: it reads as the call's holebegin only if lx-symbols
		# placed the module's sections where the guest loaded them (on 6.12 only since the module's .data is
		# linked at 0: uml-kernel/fixes/6.12/module-lds-data-address.patch).
		like($out{offset} // '', qr/^\$\d+ = \Q@{[$holebegin \/\/ 'none']}\E$/m,
		     "$variant: the module's variable offset reads as holebegin through lx-symbols' symbols");
		# umlbed_leak is the module's one function outside its init and exit sections: lx-symbols must place it
		# in the module's text, which starts at the address lx-lsmod shows, so a breakpoint there would hit.
		my ($leak_at) = ($out{text} // '') =~ /starts at address (0x[0-9a-f]+) <umlbed_leak/;
		my ($lsize) = ($out{lsmod} // '') =~ /^0x[0-9a-f]+ umlbed_gpl\s+(\d+)/m;
		ok(defined $leak_at && defined $lsmod && defined $lsize && hex($leak_at) >= hex($lsmod) &&
		   hex($leak_at) < hex($lsmod) + $lsize, "$variant: a function of the module's text resolves inside it")
			or diag($out{text} // 'no info line output');
		# gdb names the whole line range by the function, not by another one placed on top of it.
		like($out{text} // '', qr/starts at address 0x[0-9a-f]+ <umlbed_leak> and ends at 0x[0-9a-f]+ <umlbed_leak\+\d+>/,
		     "$variant: gdb names that function's code umlbed_leak to the end of its line");
		# The init code is mapped only since lx-symbols passes every section (scripts-gdb-symbols-every-section.patch).
		my ($line_at) = ($out{init} // '') =~ /starts at address (0x[0-9a-f]+)/;
		my ($init_at) = ($out{init} // '') =~ /^\$\d+ = (0x[0-9a-f]+)$/m;
		ok(defined $line_at && defined $init_at && hex($line_at) >= hex($init_at) &&
		   hex($line_at) < hex($init_at) + 4096, "$variant: umlbed_init resolves inside the module's init code")
			or diag($out{init} // 'no info line output');
		show_console($r, "$variant under gdb with the lx- helpers") unless Test::More->builder->is_passing;
	};
}

done_testing();
