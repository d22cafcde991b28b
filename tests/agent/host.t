#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# host.t: the agent's protocol on the host (--stdio): under ASan/UBSan, and under valgrind when it is installed.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin, "$FindBin::Bin/../lib";
use File::Path qw(make_path);
use File::Temp qw(tempdir);
use Test::More;
use UmbAgent;
use Body;
use UmlbedStrict qw(prereq_skip);

my $repo = UmbAgent::repo_root();
my $build = $ENV{BUILD} // "$repo/build";
system('make', '-s', '-C', "$repo/guest", "BUILD=$build", 'host') == 0 or BAIL_OUT('cannot build the host agent');
system('make', '-s', '-C', "$repo/tests/agent", "BUILD=$build") == 0 or BAIL_OUT('cannot build the test helpers');
my $tp = "$build/tests/agent/testprog";

my @variants = (['asan', "$build/guest/umlbed-agent-asan", []]);
# UMLBED_NO_VALGRIND=1 leaves valgrind out on purpose; a valgrind that is not there is a missing prerequisite.
if ($ENV{UMLBED_NO_VALGRIND}) {
    note('UMLBED_NO_VALGRIND is set: no valgrind run');
} elsif (system('valgrind --version >/dev/null 2>&1') == 0) {
    push @variants, ['valgrind', "$build/guest/umlbed-agent-host", 'valgrind'];
} else {
    SKIP: { prereq_skip('valgrind: not installed (Debian package valgrind)', 1) }
}

for my $v (@variants) {
    my ($name, $agent, $wrap) = @$v;
    subtest $name => sub {
        my $work = tempdir('umlbed-agent-host.XXXXXX', TMPDIR => 1, CLEANUP => 1);
        my $sh = "$work/shared";
        make_path($sh);
        chmod 0755, $work, $sh;
        my @w;
        if ($wrap eq 'valgrind') {
            @w = ('valgrind', '-q', '--trace-children=yes', '--trace-children-skip=*testprog*',
                '--leak-check=full', '--errors-for-leak-kinds=definite', '--error-exitcode=99', '--vgdb=no',
                "--suppressions=$FindBin::Bin/valgrind.supp",
                "--log-file=$work/vg.%p");
        }
        local $ENV{ASAN_OPTIONS} = 'detect_leaks=1:abort_on_error=0:exitcode=98';
        my $a = UmbAgent->host(agent => $agent, wrap => \@w);
        my $ready = $a->wait_ready(60);
        ok($ready, 'ready event') or return;
        like($ready->{line}, qr/^0 ready ok 1 \d+ \S+$/, 'ready: version, page size, release');
        Body::run(agent => $a, shared => $sh, testprog => $tp, uml => 0, big_lines => 1, agent_pid => $a->{pid});
        # End of input: the agent answers what it read, ends its workers and exits cleanly.
        close $a->{to};
        $a->{to} = undef;
        my $st = $a->wait_exit(60);
        is($st, 0, 'the agent exits 0 at the end of its input');
        if ($wrap eq 'valgrind') {
            my @bad;
            for my $log (glob "$work/vg.*") {
                open my $fh, '<', $log or next;
                local $/;
                my $text = <$fh>;
                push @bad, "$log:\n$text" if $text =~ /\S/;
            }
            ok(!@bad, 'valgrind: no errors, no definite leaks in any agent process') or diag(join "\n", @bad);
        }
        $a->close;
    };
}
done_testing();
