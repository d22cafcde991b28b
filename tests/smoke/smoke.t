#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# Kernel smoke test: boots each UML variant with the smoke init on a fresh hostfs root and relays the guest's TAP.
use strict;
use warnings;

use Cwd qw(abs_path);
use File::Basename qw(dirname);
use lib dirname(abs_path(__FILE__));
use Test::More;
use UmlbedSmoke qw(variants kernel_path workdir init_binary make_root boot_args boot relay_tap show_console
		   proprietary_expectation);

my $work = workdir();
my $init = init_binary($work);

for my $variant (variants()) {
	subtest "smoke test of the $variant kernel" => sub {
		my $kernel = kernel_path($variant);
		if (!ok(-x $kernel, "$variant: kernel $kernel exists")) {
			diag("build it with make kernel, or point UMLBED_KERNEL_<variant> at a UML kernel");
			return;
		}
		my $dir = "$work/$variant";
		make_root($dir, $init, $variant);
		my $r = boot(argv => [ boot_args($kernel, $dir, $variant, "umlbed-smoke-$$-$variant") ],
			     tmpdir => "$dir/tmp", timeout => $ENV{UMLBED_SMOKE_TIMEOUT} // 60);
		note(sprintf('%s: first TAP byte after %.3f s, power-off after %.3f s', $variant,
			     $r->{first_tap} // -1, $r->{seconds}));
		relay_tap($r, $variant);

		# The modules print what they did on the console; this is the kernel's own account of the same calls.
		ok($r->{console} =~ qr/umlbed_gpl: invalidate_mmap_range\(\/smoke-data, 20480, 4096\) done/,
		     "$variant: the GPL module logged its call");
		if (proprietary_expectation($variant) eq 'load') {
			ok($r->{console} =~ qr/umlbed_proprietary: invalidate_mmap_range\(\/smoke-data, 28672, 1\) done/,
			     "$variant: the proprietary module logged its call");
		} else {
			ok($r->{console} =~ qr/umlbed_proprietary: Unknown symbol invalidate_mmap_range/,
			     "$variant: the kernel logged why it refused the proprietary module");
		}
		show_console($r, $variant) unless Test::More->builder->is_passing;
	};
}

done_testing();
