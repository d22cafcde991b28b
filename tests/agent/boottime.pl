#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# boottime.pl: boot-to-ready time of the agent (spawn of UML to the "ready" event), median of N boots.
#   perl tests/agent/boottime.pl [N]      (UMLBED_KERNEL picks the kernel, as in agent.t)
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use UmbAgent;

my $n = shift // 10;
my $repo = UmbAgent::repo_root();
my $build = $ENV{BUILD} // "$repo/build";
system('make', '-s', '-C', "$repo/guest", "BUILD=$build") == 0 or die "cannot build the agent\n";
my $kernel = UmbAgent::default_kernel();
my @t;
for (1 .. $n) {
    my $a = UmbAgent->uml(agent => "$build/guest/umlbed-agent", kernel => $kernel);
    $a->wait_ready(60) or die "no ready event:\n" . $a->console;
    push @t, $a->{ready_s};
    $a->call(1, 'poweroff');
    $a->wait_exit(30);
    $a->close;
}
@t = sort { $a <=> $b } @t;
my $median = @t % 2 ? $t[$#t / 2] : ($t[@t / 2 - 1] + $t[@t / 2]) / 2;
printf "kernel %s: boot to ready over %d boots: median %.1f ms, min %.1f ms, max %.1f ms\n",
    $kernel, $n, 1000 * $median, 1000 * $t[0], 1000 * $t[-1];
