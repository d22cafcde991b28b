#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# agent.t: the agent as PID 1 of a UML instance: boot, every verb, bad input, exits, the trigger path, poweroff.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin, "$FindBin::Bin/../lib";
use Test::More;
use Time::HiRes qw(time);
use UmbAgent;
use Body;
use UmlbedStrict qw(prereq_skip_all prereq_skip);

*pct = \&UmbAgent::pct;
*unpct = \&UmbAgent::unpct;

my $repo = UmbAgent::repo_root();
my $build = $ENV{BUILD} // "$repo/build";
my $kernel = UmbAgent::default_kernel();
prereq_skip_all("no UML kernel at $kernel (make kernel)") unless -x $kernel;
system('make', '-s', '-C', "$repo/guest", "BUILD=$build") == 0 or BAIL_OUT('cannot build the agent');
system('make', '-s', '-C', "$repo/tests/agent", "BUILD=$build") == 0 or BAIL_OUT('cannot build the test helpers');
my $agent = "$build/guest/umlbed-agent";
my $tp = "$build/tests/agent/testprog";
diag("kernel: $kernel");

sub boot {
    my (@cmdline) = @_;
    my $a = UmbAgent->uml(agent => $agent, kernel => $kernel, programs => [$tp], cmdline => \@cmdline);
    my $ready = $a->wait_ready(60);
    ok($ready, 'ready event') or diag($a->console);
    return ($a, $ready);
}

# Waits until the console log shows a pattern: UML writes it to our file on its own schedule. The deadline is a
# hang guard (scaled like the agent's timeouts); the pattern showing up is what ends the wait.
sub console_like {
    my ($a, $re, $name) = @_;
    my $deadline = time + UmbAgent::scaled(30);
    my $text = $a->console;
    while ($text !~ $re && time < $deadline) {
        select undef, undef, undef, 0.01;
        $text = $a->console;
    }
    like($text, $re, $name);
}

# UML's serial line driver in 6.1 loses its input interrupt once the tty throttles (more than about 4 KiB of
# unread input) and then never reads again. The project's kernels (BUILD/kernel/VARIANT/obj/linux) all carry
# uml-kernel/fixes/*/um-line-throttle.patch: on them the 4 MiB line checks always run, and a stalled probe is a
# failure. Any other kernel (Debian's linux.uml) is probed, and skips them only if the probe gets no reply within
# its (generous, scaled) hang guard.
my $ours = $kernel =~ m{/kernel/[^/]+/obj/linux$};
my $big_lines = do {
    my $p = UmbAgent->uml(agent => $agent, kernel => $kernel);
    my $ok = 0;
    if ($p->wait_ready(60)) {
        # 16 KiB at once certainly throttles the 4 KiB N_TTY buffer; once it is answered the host pipe is empty,
        # so a line without the fix has lost its interrupt and never reads the hello.
        $p->call(1, 'create', '/shared/probe', 0);
        $p->call(1, 'writefile', '/shared/probe', 'a' x 16384);
        $ok = $p->reply($p->send(1, 'hello'), 60) ? 1 : 0;
    }
    ok($ok, 'probe: the serial line keeps reading after a throttle (the line-throttle fix)') if $ours;
    $p->close;
    $ours || $ok;
};
diag('this kernel stalls its serial input after a throttle: large requests cannot be tested') unless $big_lines;
# The 4 MiB lines test the agent's line limit and a long run of the serial line's throttle cycles: generations.t
# sets UMLBED_AGENT_BIG_LINES=0 on the generations after the default one, whose serial line fix the probe above
# has just checked, and whose agent is the same binary (tests/agent/host.t runs the limit without a kernel too).
my $big_why = 'this kernel stalls on large input (see docs/guest.md)';
if ($big_lines && ($ENV{UMLBED_AGENT_BIG_LINES} // '1') eq '0') {
    ($big_lines, $big_why) = (0, 'UMLBED_AGENT_BIG_LINES=0: they ran on the default generation');
}

my ($a, $ready) = boot();
BAIL_OUT('the agent did not get ready') unless $ready;
diag(sprintf 'boot to ready: %.3f s', $a->{ready_s});
like($ready->{line}, qr/^0 ready ok 1 4096 \S+$/, 'ready: version 1, page size, release');
console_like($a, qr/umlbed-agent: protocol 1, page size 4096/, 'banner on the console');

# Boot: mounts and fault_around_bytes.
my $mounts = unpct($a->call(1, 'readfile', '/proc/mounts')->{fields}[0] // '');
like($mounts, qr{^\S+ /proc proc }m, 'proc mounted');
like($mounts, qr{^\S+ /sys sysfs }m, 'sysfs mounted');
like($mounts, qr{^\S+ /dev devtmpfs }m, 'devtmpfs mounted on /dev');
like($mounts, qr{^\S+ /tmp tmpfs }m, 'tmpfs mounted on /tmp');
# Without debugfs (Debian's linux.uml) fault_around_bytes cannot be set, and page states are not exact.
my $debugfs = unpct($a->call(1, 'readfile', '/proc/filesystems')->{fields}[0] // '') =~ /\sdebugfs$/m;
SKIP: {
    skip 'kernel without debugfs: fault_around_bytes stays at its default', 2 unless $debugfs;
    like($mounts, qr{^\S+ /sys/kernel/debug debugfs }m, 'debugfs mounted');
    is(unpct($a->call(1, 'readfile', '/sys/kernel/debug/fault_around_bytes')->{fields}[0] // ''), "4096\n",
        'fault_around_bytes is one page by default');
}
my $stdin = $a->call(1, 'readfile', '/proc/1/fdinfo/0');
ok($stdin && $stdin->{ok}, 'PID 1 has a standard input (the console)');

my $st = Body::run(agent => $a, shared => '/shared', testprog => '/bin/testprog', uml => $debugfs, big_lines => $big_lines, big_why => $big_why, agent_pid => 1);

# The kernel side: log, taint, modules.
like(unpct($a->call(1, 'klog')->{fields}[0] // ''), qr/Linux version/, 'klog returns the kernel log');
like(unpct($a->call(1, 'readfile', '/proc/sys/kernel/tainted')->{fields}[0] // ''), qr/^\d+\n$/, 'tainted is readable');
is($a->call(1, 'insmod', '/nonexistent.ko')->{ename}, 'ENOENT', 'insmod of a missing file: ENOENT');
my $rm = $a->call(1, 'rmmod', 'no_such_module');
is($rm->{ename}, 'ENOENT', 'rmmod of a module not loaded: ENOENT');
is($a->call(1, 'insmod', '/umlbed-agent')->{ename}, 'ENOEXEC', 'insmod of a file that is no module: ENOEXEC');
# The GPL test module built next to the kernel (make modules), with a parameter.
(my $modules = $kernel) =~ s{/obj/linux$}{/modules};
SKIP: {
    # Only the project's kernels have the module next to them; for one of them, a missing module is a missing build.
    skip "no test module for a kernel that is not the project's ($kernel)", 10 unless $kernel =~ m{/obj/linux$};
    prereq_skip("no test module $modules/umlbed_gpl.ko (make modules)", 10) unless -f "$modules/umlbed_gpl.ko";
    require File::Copy;
    File::Copy::copy("$modules/umlbed_gpl.ko", "$a->{root}/shared/umlbed_gpl.ko") or die "copy: $!";
    my $ins = $a->call(1, 'insmod', '/shared/umlbed_gpl.ko', pct('path=/shared/f offset=0 length=4096'));
    ok($ins && $ins->{ok}, 'insmod of the GPL test module with a parameter') or diag($ins->{line});
    like(unpct($a->call(1, 'readfile', '/proc/modules')->{fields}[0] // ''), qr/^umlbed_gpl /m, 'it is loaded');
    # A write whose store() returns a value that is no errno: libc then sets no errno, so the reply must not name
    # the one an earlier failed write left behind (the first write here fails with a real EINVAL). A read whose
    # show() returns such a value, after that EINVAL too, is the same.
    my $ret = '/sys/module/umlbed_gpl/parameters/io_ret';
    is($a->call(1, 'writefile', $ret, pct('0'))->{ename}, 'EINVAL', 'a store() returning -EINVAL: EINVAL');
    my $garbage = $a->call(1, 'writefile', $ret, pct('16843010'));
    is($garbage->{ename}, 'EPROTO', 'a store() returning -16843010: EPROTO, not the earlier errno')
        or diag($garbage->{line});
    like($garbage->{msg} // '', qr/returned -16843010\b/, 'the message names the value returned')
        or diag($garbage->{line});
    is($a->call(1, 'writefile', $ret, pct('0'))->{ename}, 'EINVAL', 'another real EINVAL');
    my $shown = $a->call(1, 'readfile', $ret);
    is($shown->{ename}, 'EPROTO', 'a show() returning -16843010: EPROTO, not the earlier errno')
        or diag($shown->{line});
    like($shown->{msg} // '', qr/^read \Q$ret\E: returned -16843010\b/, 'the message names the file and the value')
        or diag($shown->{line});
    ok($a->call(1, 'rmmod', 'umlbed_gpl')->{ok}, 'rmmod');
    is($a->call(1, 'rmmod', 'umlbed_gpl')->{ename}, 'ENOENT', 'a second rmmod: ENOENT');
}

# The trigger: only on the patched kernel.
my $stats = $a->call(1, 'stats');
SKIP: {
    skip 'kernel without the invalidate_mmap_range trigger (unpatched)', 9 if ($stats->{ename} // '') eq 'ENOENT';
    ok($stats->{ok}, 'stats') or diag($stats->{line});
    ok((grep { /^\w+=\d+$/ } @{$stats->{fields}}) >= 2, 'stats: name=value fields') or diag($stats->{line});
    my $w = $st->{worker};
    my $f = '/shared/t';
    $a->call(1, 'create', $f, 16384);
    my $A = $a->call($w, 'mmap', $f, 0, 16384, 'shared', 'rw')->{fields}[0];
    my @s = @{$a->call($w, 'fork', 3)->{fields}};
    my @all = ($w, @s);
    $a->call($_, 'touch', $A, 8192, 'r') for @all;
    is(join(' ', map { $a->call($_, 'pages', $A, 2)->{fields}[0] } @all), join(' ', ('FF') x 4),
        'pages 0 and 1 present in the worker and its three sharers');
    my $data = "$f 0 4096";
    my $t = $a->call(1, 'trigger', pct($data));
    ok($t->{ok}, 'trigger') or diag($t->{line});
    is($t->{fields}[0], length $data, 'trigger returns the length written');
    is(join(' ', map { $a->call($_, 'pages', $A, 2)->{fields}[0] } @all), join(' ', ('-F') x 4),
        'after the trigger page 0 is gone in every sharer, page 1 is still there');
    is($a->call($s[0], 'trigger', pct('garbage'))->{ename}, 'EINVAL', 'a malformed trigger write: EINVAL');
    is($a->call($s[1], 'trigger', pct('/shared/none 0 4096'))->{ename}, 'ENOENT', 'trigger on a missing path: ENOENT');
    my $after = $a->call(1, 'stats');
    ok($after->{ok} && "@{$after->{fields}}" ne "@{$stats->{fields}}", 'stats changed') or diag($after->{line});
}

# poweroff: the reply, then the instance ends by itself.
my $p = $a->call(1, 'poweroff');
ok($p && $p->{ok}, 'poweroff reply');
ok(defined $a->wait_exit(30), 'the instance ends after poweroff');
$a->close;

# The boot option.
my ($b) = boot('umlbed.fault_around_bytes=65536');
SKIP: {
    skip 'kernel without debugfs', 1 unless $debugfs;
    is(unpct($b->call(1, 'readfile', '/sys/kernel/debug/fault_around_bytes')->{fields}[0] // ''), "65536\n",
        'umlbed.fault_around_bytes= sets fault_around_bytes');
}
my $pgid = $b->{pid};
# The probe of the check after close, shown to see the instance first.
ok(kill(0, -$pgid), 'the instance\'s process group is there before close');
$b->close;
ok(!kill(0, -$pgid), 'no process of the instance is left after close');

# Timeouts under time-travel: guest time stands still while any process can run, so a run's deadline passes only
# once its program has set up and sleeps, on a host of any speed.
my ($tt, $tt_ready) = boot('time-travel=inf-cpu');
SKIP: {
    skip 'no ready event under time-travel', 13 unless $tt_ready;
    my ($tw) = Body::okr($tt, 'spawn under time-travel', 1, 'spawn');
    # The reviewer's case: a child that left the group (setsid) holds the output while the program runs on. The
    # timeout kills the program's group; the escapee does not keep the reply waiting.
    my $rel = '/tmp/escape-release';
    my ($st, $out) = Body::okr($tt, 'run 2000 ms of a program whose child escapes', $tw, 'run', 2000, '-', '-', '-',
        '/bin/testprog', 'escape', $rel, 'hold');
    is($st, 'timeout+escaped', 'the timeout ends the run although an escapee holds the output');
    is(unpct($out // ''), "escapee\nleader\n", 'what the pipe held');
    my $esc = Body::procs($tt, '/bin/testprog', $rel);
    ok(@$esc == 1 && $esc->[0][0] == $esc->[0][1], 'the program is dead, the escapee alive in a group of its own')
        or diag(explain($esc));
    Body::okr($tt, 'release the escapee', 1, 'create', $rel, 0);
    # A program whose child has surely started when the deadline passes: the kill reaches both.
    my $ready = '/tmp/tree-ready';
    ($st, $out) = Body::okr($tt, 'run 1000 ms of a program with a child', $tw, 'run', 1000, '-', '-', '-', '/bin/testprog',
        'tree', $ready);
    is($st, 'timeout', 'its status is timeout');
    ok($tt->call(1, 'readfile', $ready)->{ok}, 'the child had started before the deadline');
    is_deeply(Body::procs($tt, '/bin/testprog', $ready), [], 'neither the program nor its child is left');
}
$tt->close;

done_testing();
