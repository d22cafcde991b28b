#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# Measures boot-to-init time: boot-time.pl [VARIANT [N]] boots N times (default 10) and prints the median.
use strict;
use warnings;

use Cwd qw(abs_path);
use File::Basename qw(dirname);
use lib dirname(abs_path(__FILE__));
use Test::More ();
use UmlbedSmoke qw(kernel_path workdir init_binary make_root boot_args boot);

my ($variant, $n) = (@ARGV, 'full', 10)[0, 1];
my $kernel = kernel_path($variant);
die "no kernel at $kernel\n" unless -x $kernel;
my $work = workdir();
my $init = init_binary($work);
my (@init, @total);
for my $i (1 .. $n) {
	my $dir = "$work/$i";
	make_root($dir, $init, $variant);
	my $r = boot(argv => [ boot_args($kernel, $dir, $variant, "umlbed-boot-$$-$i", 'UMLBED_BOOT_ONLY=1') ],
		     tmpdir => "$dir/tmp", timeout => 30);
	die "boot $i failed:\n$r->{console}\n" if $r->{timed_out} || !defined $r->{first_tap};
	push @init, $r->{first_tap};
	push @total, $r->{seconds};
	printf "boot %2d: init after %.3f s, powered off after %.3f s\n", $i, $r->{first_tap}, $r->{seconds};
}
my $median = sub { my @s = sort { $a <=> $b } @_; @s % 2 ? $s[$#s / 2] : ($s[@s / 2 - 1] + $s[@s / 2]) / 2 };
printf "%s: median of %d boots: init after %.3f s, power-off after %.3f s\n", $variant, $n, $median->(@init),
	$median->(@total);
