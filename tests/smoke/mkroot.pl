#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# Prepares a smoke-test root for a manual boot (e.g. under gdb): mkroot.pl VARIANT DIR prints the kernel arguments.
use strict;
use warnings;

use Cwd qw(abs_path);
use File::Basename qw(dirname);
use lib dirname(abs_path(__FILE__));
use UmlbedSmoke qw(init_binary kernel_path make_root boot_cmdline);

my ($variant, $dir) = @ARGV;
die "usage: $0 VARIANT DIR (DIR must not exist yet; remove it when done)\n" unless $variant && $dir && !-e $dir;
mkdir $dir or die "mkdir $dir: $!\n";
$dir = abs_path($dir);
# The init is built into DIR itself, so nothing outlives DIR.
my $init = init_binary($dir);
make_root("$dir/boot", $init, $variant);
# The kernel's arguments as the runner would boot it (umlbed boot --print, without the kernel's path).
my @argv = boot_cmdline(kernel_path($variant), "$dir/boot", $variant, "umlbed-manual-$$");
print join(' ', @argv[1 .. $#argv]), "\n";
