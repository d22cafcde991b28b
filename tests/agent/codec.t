#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# codec.t: builds and runs the agent's codec unit test (C, under ASan/UBSan), whose output is TAP.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use UmbAgent;

my $repo = UmbAgent::repo_root();
my $build = $ENV{BUILD} // "$repo/build";
if (system('make', '-s', '-C', "$repo/tests/agent", "BUILD=$build") != 0) {
    print "Bail out! cannot build the codec test\n";
    exit 1;
}
exec "$build/tests/agent/codec_test", "$repo/tests/data/codec-corpus" or do { print "Bail out! cannot run codec_test: $!\n"; exit 1 };
