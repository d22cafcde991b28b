# SPDX-License-Identifier: MIT
# Body.pm: the protocol checks shared by the host-mode and UML-mode agent tests (every verb, bad input, exits).
package Body;

use strict;
use warnings;
use Test::More;
use UmbAgent;
no warnings 'portable';

*pct = \&UmbAgent::pct;
*unpct = \&UmbAgent::unpct;

my $PS = 4096;

# A reply that must be ok; returns its fields.
sub okr {
    my ($a, $name, $pid, $verb, @args) = @_;
    my $r = $a->call($pid, $verb, @args);
    ok($r && $r->{ok}, $name) or diag(explain($r ? $r->{line} : 'no reply (timeout or EOF)'));
    return $r && $r->{ok} ? @{$r->{fields}} : ();
}

# A reply that must be an error with this errno name.
sub errr {
    my ($a, $ename, $name, $pid, $verb, @args) = @_;
    my $r = $a->call($pid, $verb, @args);
    my $good = $r && !$r->{ok} && ($r->{ename} // '') eq $ename && $r->{nfields} == 5;
    ok($good, "$name: $ename") or diag($r ? substr($r->{line}, 0, 300) : 'no reply');
    return $r;
}

# A raw line answered (under ID 0 unless it had one) with this errno name.
sub raw_err {
    my ($a, $line, $id, $ename, $name) = @_;
    $a->send_raw($line);
    my $r = $a->reply($id);
    ok($r && !$r->{ok} && ($r->{ename} // '') eq $ename, "$name: $ename")
        or diag($r ? substr($r->{line}, 0, 300) : 'no reply');
}

# The checks; $o: agent, shared (a folder the guest writes), testprog (its path in the guest), uml (true inside UML).
sub run {
    my (%o) = @_;
    my ($a, $sh, $tp, $uml) = @o{qw(agent shared testprog uml)};

    # hello and spawn.
    my @h = okr($a, 'hello to PID 1', 1, 'hello');
    is_deeply([@h[0, 1]], [1, $PS], 'hello: version 1, page size');
    my ($w) = okr($a, 'spawn', 1, 'spawn');
    like($w // '', qr/^\d+$/, 'spawn returns a pid');
    okr($a, 'hello to a worker', $w, 'hello');

    # Files.
    my $f = "$sh/f";
    okr($a, 'create', 1, 'create', pct($f), 4 * $PS);
    is((okr($a, 'pwrite', $w, 'pwrite', pct($f), 0, 'hello'))[0], 5, 'pwrite returns the count');
    is(unpct((okr($a, 'pread', 1, 'pread', pct($f), 0, 8))[0] // ''), "hello\0\0\0", 'pread sees the data');
    is(unpct((okr($a, 'pread past EOF', 1, 'pread', pct($f), 4 * $PS - 2, 8))[0] // ''), "\0\0",
        'pread short at EOF');
    okr($a, 'fsync', $w, 'fsync', pct($f));
    okr($a, 'create g', $w, 'create', pct("$sh/g h"), 0);
    is((okr($a, 'writefile', $w, 'writefile', pct("$sh/g h"), pct("x y\n")))[0], 4, 'writefile returns the count');
    is(unpct((okr($a, 'readfile', 1, 'readfile', pct("$sh/g h")))[0] // ''), "x y\n", 'readfile (a path with a space)');
    is(unpct((okr($a, 'readfile MAX', 1, 'readfile', pct("$sh/g h"), 2))[0] // ''), "x ", 'readfile MAX');
    okr($a, 'unlink', $w, 'unlink', pct("$sh/g h"));
    errr($a, 'ENOENT', 'readfile after unlink', 1, 'readfile', pct("$sh/g h"));
    errr($a, 'ENOENT', 'writefile does not create', 1, 'writefile', pct("$sh/nope"), 'x');
    # failwrite: a kernel with fault injection has /proc/thread-self/fail-nth; one without refuses the verb before
    # it writes anything.
    okr($a, 'create for failwrite', $w, 'create', pct("$sh/fw"), 0);
    my $nth = $a->call($w, 'readfile', pct('/proc/thread-self/fail-nth'));
    if ($nth && !$nth->{ok}) {
        is($nth->{ename}, 'ENOENT', 'no fail-nth: this kernel has no fault injection');
        my $r = errr($a, 'ENOENT', 'failwrite without fail-nth', $w, 'failwrite', 1, pct("$sh/fw"), 'abc');
        like($r && $r->{msg} // '', qr{^open /proc/thread-self/fail-nth}, 'failwrite: the error names fail-nth');
        is((okr($a, 'readfile after a refused failwrite', 1, 'readfile', pct("$sh/fw")))[0], '-',
            'a refused failwrite wrote nothing');
    } else {
        is_deeply([okr($a, 'failwrite with a fault it does not reach', $w, 'failwrite', 4000000000, pct("$sh/fw"), 'abc')],
            [3, 0], 'failwrite: the count, and 0 for a fault not injected');
        is(unpct((okr($a, 'fail-nth after failwrite', $w, 'readfile', pct('/proc/thread-self/fail-nth')))[0] // ''),
            "0\n", 'failwrite disarms the fault it did not reach');
    }
    errr($a, 'ENOENT', 'failwrite to a missing file', $w, 'failwrite', 1, pct("$sh/nope"), 'x');
    okr($a, 'create empty', 1, 'create', pct("$sh/empty"), 0);
    is((okr($a, 'readfile of an empty file', 1, 'readfile', pct("$sh/empty")))[0], '-', 'empty data is -');
    okr($a, 'writefile a lone dash', 1, 'writefile', pct("$sh/empty"), '%2D');
    is((okr($a, 'readfile of "-"', 1, 'readfile', pct("$sh/empty")))[0], '%2D', 'a lone - reads back as %2D');

    # Shared mapping: page states, faults, peek/poke.
    my ($A) = okr($a, 'mmap shared rw', $w, 'mmap', pct($f), 0, 4 * $PS, 'shared', 'rw');
    like($A // '', qr/^0x[0-9a-f]+$/, 'mmap returns a hex address');
    $A = hex($A // 0);
    my $h = sub { sprintf '0x%x', $_[0] };
    is((okr($a, 'pages (untouched)', $w, 'pages', $h->($A), 4))[0], '----', 'untouched mapping: no page present');
    okr($a, 'touch r', $w, 'touch', $h->($A), $PS, 'r');
    # The host kernel maps cached neighbours too (fault_around_bytes): only the states in UML are exact.
    like((okr($a, 'pages', $w, 'pages', $h->($A), 4))[0] // '', $uml ? qr/^F---$/ : qr/^F/, 'touched page is present and file-backed');
    my @fl = okr($a, 'faults', $w, 'faults', $h->($A + $PS), $PS, 'r');
    is_deeply([@fl[0, 1]], [1, 0], 'faults: one minor fault for one new page') if $uml;
    like($fl[2] // '', qr/^\d+$/, 'faults: the access time in ns');
    is((okr($a, 'faults again', $w, 'faults', $h->($A + $PS), $PS, 'r'))[0], 0, 'faults: none on a present page');
    is((okr($a, 'pages', $w, 'pages', $h->($A), 4))[0], 'FF--', 'two pages present') if $uml;
    okr($a, 'poke', $w, 'poke', $h->($A + 1), 'EL%00');
    is(unpct((okr($a, 'peek', $w, 'peek', $h->($A), 5))[0] // ''), "hEL\0o", 'peek sees the poke');
    is(unpct((okr($a, 'pread after poke', 1, 'pread', pct($f), 0, 3))[0] // ''), "hEL",
        'a shared mapping writes the file');
    my @pm = okr($a, 'pagemap', $w, 'pagemap', $h->($A), 3);
    is(scalar @pm, 3, 'pagemap: one field per page');
    ok(@pm == 3 && hex($pm[0]) >> 63, 'pagemap: bit 63 set on a present page');
    ok(!(hex($pm[2] // 0) >> 63), 'pagemap: bit 63 clear on an absent page') if $uml;
    # Readahead may bring in more pages than were touched, so the two views are compared with each other.
    my ($mc) = okr($a, 'mincore', $w, 'mincore', $h->($A), 4 * $PS);
    like($mc // '', qr/^11[01]{2}$/, 'mincore: touched pages are resident');
    my ($fmc) = okr($a, 'fmincore', 1, 'fmincore', pct($f), 0, 4 * $PS);
    is($fmc, $mc, 'fmincore: the same pages are in the page cache');
    is((okr($a, 'fmincore unaligned', 1, 'fmincore', pct($f), $PS + 5, 10))[0], '1',
        'fmincore of an unaligned range inside one page');
    is((okr($a, 'loop', $w, 'loop', $h->($A), 2 * $PS, 'w', 10))[0], 10, 'loop returns its iterations');
    okr($a, 'msync', $w, 'msync', $h->($A), 4 * $PS);

    # Private mapping: a written page becomes anonymous.
    my ($P) = okr($a, 'mmap private rw', $w, 'mmap', pct($f), 0, 2 * $PS, 'private', 'rw');
    $P = hex($P // 0);
    okr($a, 'touch w private', $w, 'touch', $h->($P), 1, 'w');
    like((okr($a, 'pages private', $w, 'pages', $h->($P), 2))[0] // '', $uml ? qr/^A-$/ : qr/^A/,
        'a written private page is anonymous');
    is(unpct((okr($a, 'peek private', $w, 'peek', $h->($P), 3))[0] // ''), 'hEL', 'the COW copy holds the file data');

    # A fixed address.
    my ($free) = okr($a, 'mmap to find a free address', $w, 'mmap', pct($f), 0, $PS, 'shared', 'r');
    okr($a, 'munmap it', $w, 'munmap', $free // 0, $PS);
    my $fixed = hex($free // 0);
    my ($X) = okr($a, 'mmap fixed', $w, 'mmap', pct($f), $PS, $PS, 'shared', 'r', $h->($fixed));
    is($X, $h->($fixed), 'mmap at a fixed address');
    errr($a, 'EEXIST', 'mmap over a taken address', $w, 'mmap', pct($f), 0, $PS, 'shared', 'r', $h->($fixed));
    okr($a, 'munmap fixed', $w, 'munmap', $h->($fixed), $PS);

    # Faults become EFAULT and the worker lives on.
    my ($R) = okr($a, 'mmap read-only', $w, 'mmap', pct($f), 0, $PS, 'private', 'r');
    my $r = errr($a, 'EFAULT', 'write to a read-only mapping', $w, 'touch', $R // 0, 1, 'w');
    like($r->{msg} // '', qr/SIGSEGV/, 'EFAULT names SIGSEGV');
    my ($B) = okr($a, 'mmap beyond EOF', $w, 'mmap', pct($f), 0, 8 * $PS, 'shared', 'r');
    $r = errr($a, 'EFAULT', 'touch beyond EOF', $w, 'touch', $h->(hex($B // 0) + 5 * $PS), 1, 'r');
    like($r->{msg} // '', qr/SIGBUS/, 'EFAULT names SIGBUS');
    errr($a, 'EFAULT', 'peek at 0x10', $w, 'peek', '0x10', 1);
    errr($a, 'EFAULT', 'poke at 0x10', $w, 'poke', '0x10', 'x');
    errr($a, 'EFAULT', 'faults on unmapped memory', $w, 'faults', '0x10', 1, 'r');
    $r = errr($a, 'EFAULT', 'loop on unmapped memory', $w, 'loop', '0x10', 1, 'r', 5);
    like($r->{msg} // '', qr/iteration 0/, 'loop names the iteration');
    okr($a, 'the worker survives its faults', $w, 'hello');

    # Forked sharers inherit the mappings.
    my @c = okr($a, 'fork 3', $w, 'fork', 3);
    is(scalar @c, 3, 'fork 3 returns three pids');
    for my $c (@c) {
        okr($a, "sharer $c hello", $c, 'hello');
        is(unpct((okr($a, "sharer $c peek", $c, 'peek', $h->($A), 3))[0] // ''), 'hEL', "sharer $c sees the mapping");
        is((okr($a, "sharer $c private", $c, 'pages', $h->($P), 1))[0], 'A', "sharer $c inherits the COW page");
        okr($a, "sharer $c touch", $c, 'touch', $h->($A), 2 * $PS, 'r');
        is((okr($a, "sharer $c pages", $c, 'pages', $h->($A), 2))[0], 'FF', "sharer $c: both pages present");
    }

    loop_controls($a, $uml ? '/tmp' : $sh, $w, $c[0], $h->($A));

    # exec.
    my @e = okr($a, 'exec echo', $w, 'exec', pct($tp), 'echo', 'a%20b', 'c');
    is($e[0], 'exit:0', 'exec: exit status');
    is(unpct($e[1] // ''), "a b c\nstderr\n", 'exec: stdout and stderr, arguments decoded');
    is((okr($a, 'exec exit 3', 1, 'exec', pct($tp), 'exit', 3))[0], 'exit:3', 'exec: exit code');
    is((okr($a, 'exec segv', $w, 'exec', pct($tp), 'segv'))[0], 'signal:11', 'exec: killed by a signal');
    @e = okr($a, 'exec big', $w, 'exec', pct($tp), 'big', 1100000);
    is(length(unpct($e[1] // '')), 1 << 20, 'exec: output capped at 1 MiB');
    my $miss = errr($a, 'ENOENT', 'exec of a missing program', $w, 'exec', pct("$sh/none"));
    like($miss->{msg} // '', qr{^execve \Q$sh\E/none: }, 'exec: the message names execve and the path');
    exec_groups($a, $w, $uml ? '/tmp' : $sh, $tp);

    # Concurrency: a request that waits for a file does not hold up another worker, nor PID 1.
    my $go = "$sh/go";
    my $id1 = $a->send($c[0], 'exec', pct($tp), 'waitfile', pct($go));
    my $id0 = $a->send(1, 'exec', pct($tp), 'waitfile', pct($go));
    my $id2 = $a->send($c[1], 'create', pct($go), 0);
    my $rc = $a->reply($id2);
    # The waiters can only finish after this reply's file exists, so a serialising agent would hang here.
    ok($rc && $rc->{ok}, 'a second worker answers while the first waits');
    my ($r1, $r0) = ($a->reply($id1), $a->reply($id0));
    is($r1 && $r1->{fields}[0], 'exit:0', 'the waiting worker then finishes');
    is($r0 && $r0->{fields}[0], 'exit:0', 'PID 1 was waiting concurrently too');

    # Requests to one worker run in order; replies match IDs.
    my @ids = map { $a->send($c[1], 'hello') } 1 .. 20;
    my @got = map { my $x = $a->reply($_); $x && $x->{ok} ? 1 : 0 } @ids;
    is(scalar(grep { $_ } @got), 20, 'twenty pipelined requests to one worker');

    # Roles.
    errr($a, 'EPERM', 'PID 1 refuses mmap', 1, 'mmap', pct($f), 0, $PS, 'shared', 'r');
    errr($a, 'EPERM', 'PID 1 refuses touch', 1, 'touch', '0x1000', 1, 'r');
    errr($a, 'EPERM', 'PID 1 refuses pages', 1, 'pages', '0x1000', 1);
    errr($a, 'EPERM', 'PID 1 refuses exit', 1, 'exit');
    errr($a, 'EPERM', 'PID 1 refuses setuid', 1, 'setuid', 1);
    errr($a, 'EPERM', 'PID 1 refuses capdrop', 1, 'capdrop');
    errr($a, 'EPERM', 'a worker refuses spawn', $w, 'spawn');
    errr($a, 'EPERM', 'a worker refuses insmod', $w, 'insmod', '/x');
    errr($a, 'EPERM', 'a worker refuses rmmod', $w, 'rmmod', 'x');
    errr($a, 'EPERM', 'a worker refuses poweroff', $w, 'poweroff');
    my @two = okr($a, 'fork 2 to PID 1 makes two workers', 1, 'fork', 2);
    is(scalar @two, 2, 'two pids');
    okr($a, "new worker $_ answers", $_, 'hello') for @two;
    okr($a, "new worker $_ exits", $_, 'exit') for @two;
    ok($a->event('exited', $_), "exited event for $_") for @two;

    # setuid drops root in one worker only.
    okr($a, 'setuid 65534', $c[2], 'setuid', 65534);
    errr($a, 'EACCES', 'an unprivileged worker cannot create in a root folder', $c[2], 'create', pct("$sh/u"), 0);
    okr($a, 'its parent still can', $w, 'create', pct("$sh/u"), 0);

    # exit and exited.
    okr($a, 'exit 7', $c[2], 'exit', 7);
    my $ev = $a->event('exited', $c[2]);
    is($ev && $ev->{fields}[1], 'exit:7', 'exited event with the exit code');
    errr($a, 'ESRCH', 'a request to an exited worker', $c[2], 'hello');

    # A worker killed with requests outstanding: they get ECHILD, then the exited event. Its loop runs until
    # stopped, and PID 1's loopwait returns once it is running: the kill surely meets a running request.
    my $kctl = ($uml ? '/tmp' : $sh) . '/ctl-kill';
    okr($a, 'create the busy worker\'s loop control', 1, 'create', pct($kctl), $PS);
    my $lid = $a->send($c[0], 'loop', $h->($A), $PS, 'r', 0, pct($kctl));
    my $hid = $a->send($c[0], 'hello');
    is(join(' ', okr($a, 'loopwait for the busy worker', 1, 'loopwait', pct($kctl), 1)), '1 0',
        'the busy worker is in its loop');
    my @k = okr($a, 'kill a busy worker', $w, 'exec', pct($tp), 'kill', $c[0], 9);
    is($k[0], 'exit:0', 'kill ran');
    my ($rl, $rh) = ($a->reply($lid), $a->reply($hid));
    is($rl && $rl->{ename}, 'ECHILD', 'the running request gets ECHILD');
    is($rh && $rh->{ename}, 'ECHILD', 'the queued request gets ECHILD');
    is($rl && $rl->{verb}, 'loop', 'ECHILD names the verb');
    $ev = $a->event('exited', $c[0]);
    is($ev && $ev->{fields}[1], 'signal:9', 'exited event with the signal');

    # No descriptor leaks in PID 1 (the router) over worker lives and deaths.
    my $nfd = sub { my @x = okr($a, 'count PID 1 descriptors', $w, 'exec', pct($tp), 'nfd', $o{agent_pid}); unpct($x[1] // '') };
    my $before = $nfd->();
    for (1 .. 3) {
        my @f = okr($a, 'fork 4', $w, 'fork', 4);
        okr($a, "exit $_", $_, 'exit') for @f;
        $a->event('exited', $_) for @f;
    }
    is($nfd->(), $before, 'PID 1 has as many descriptors as before twelve workers came and went');

    bad_input($a, $w, $c[1], $sh, $tp, $h->($A), $o{big_lines}, $o{big_why});
    fuzz($a, $o{fuzz} // 200);
    okr($a, 'PID 1 still answers after all the bad input', 1, 'hello');
    okr($a, 'the worker still answers after all the bad input', $w, 'hello');
    return {worker => $w, sharers => [$c[1]], A => $A, P => $P, file => $f};
}

# The live processes whose command line holds $s, as [PID, PGRP] pairs, seen from inside (the guest's /proc).
sub procs {
    my ($a, $tp, $s) = @_;
    my @x = okr($a, "probe for $s", 1, 'exec', pct($tp), 'procs', pct($s));
    return [map { [split / /] } split /\n/, unpct($x[1] // '')];
}

# When exec and run end (docs/protocol.md, "exec and run"): a process that leaves the program's group and keeps its
# output open does not hold up the reply, and a timeout leaves no process of the group alive. $d: a folder for the
# marker files; $w: a worker.
sub exec_groups {
    my ($a, $w, $d, $tp) = @_;
    my $run = sub { my ($name, $verb, @a) = @_; my ($st, $out) = okr($a, $name, $w, $verb, @a); return ($st // '', unpct($out // '')) };

    # The probe sees a program and its child alive in one group; both are then killed.
    my $ready = "$d/tree-ready";
    my $id = $a->send($w, 'exec', pct($tp), 'tree', pct($ready));
    okr($a, 'the program\'s child has started', 1, 'exec', pct($tp), 'waitfile', pct($ready));
    my $seen = procs($a, $tp, $ready);
    is(scalar @$seen, 2, 'the probe sees the program and its child alive');
    ok(@$seen == 2 && $seen->[0][1] == $seen->[1][1], 'both in one process group');
    okr($a, 'kill their group', 1, 'exec', pct($tp), 'kill', -($seen->[0][1] // 0), 9) if @$seen;
    my $r = $a->reply($id);
    is($r && $r->{fields}[0], 'signal:9', 'the program was killed');

    # A 1 ms timeout: whether the kill comes before the program has made its group or after its child exists, the
    # group dies, and the reply comes once no process of it is alive.
    my $ready1 = "$d/tree-ready-1ms";
    is_deeply([$run->('run with a 1 ms timeout', 'run', 1, '-', '-', '-', pct($tp), 'tree', pct($ready1))], ['timeout', ''],
        'run: TIMEOUT_MS 1 ends in a timeout');
    is_deeply(procs($a, $tp, $ready1), [], 'no process of the program\'s group is left');

    # No timeout: the program ends while a process that left its group (setsid) holds the output open. The reply
    # comes with what the pipe held, and says so; the escapee is still alive (it waits for the release file).
    for my $verb ('run', 'exec') {
        my $rel = "$d/escape-release-$verb";
        my @args = $verb eq 'run' ? (0, '-', '-', '-') : ();
        is_deeply([$run->("$verb of a program whose child escapes its group", $verb, @args, pct($tp), 'escape', pct($rel))],
            ['exit:0+escaped', "escapee\nleader\n"], "$verb: the program's status and output, marked +escaped");
        my $esc = procs($a, $tp, $rel);
        is(scalar @$esc, 1, "$verb: the escapee was not waited for: it is still alive");
        ok(@$esc == 1 && $esc->[0][0] == $esc->[0][1], "$verb: it leads a group of its own");
        okr($a, "$verb: release the escapee", 1, 'create', pct($rel), 0);
    }
}

# loop with a control file, loopwait and loopstop (docs/protocol.md, "Loop controls"). $d: a folder for the control
# files (tmpfs /tmp in UML); $w, $v: two workers that map $A.
sub loop_controls {
    my ($a, $d, $w, $v, $A) = @_;
    my $ctl = pct("$d/ctl-run");
    okr($a, 'create a loop control', 1, 'create', $ctl, $PS);
    # Two loops without a count; PID 1 waits for both to start, then stops them.
    my @lids = map { $a->send($_, 'loop', $A, 2 * $PS, 'r', 0, $ctl) } $w, $v;
    is(join(' ', okr($a, 'loopwait CTL 2', 1, 'loopwait', $ctl, 2)), '2 0', 'loopwait: STARTED 2, UNSTARTED 0');
    is(join(' ', okr($a, 'loopwait for fewer than have started', 1, 'loopwait', $ctl, 1)), '2 0',
        'loopwait returns at once when enough loops are counted');
    is(join(' ', okr($a, 'loopstop', 1, 'loopstop', $ctl)), '2 0', 'loopstop: STARTED UNSTARTED');
    for my $i (0, 1) {
        my $r = $a->reply($lids[$i]);
        ok($r && $r->{ok} && ($r->{fields}[0] // '') =~ /^\d+$/ && $r->{fields}[0] >= 1,
            "stopped loop $i returns its iterations, at least its first pass") or diag($r ? $r->{line} : 'no reply');
    }
    my $cc = pct("$d/ctl-count");
    okr($a, 'create a loop control for a counted loop', 1, 'create', $cc, $PS);
    is((okr($a, 'loop COUNT 3 with CTL', $w, 'loop', $A, $PS, 'r', 3, $cc))[0], 3, 'with CTL, COUNT still ends the loop');
    is(join(' ', okr($a, 'loopwait after a counted loop', 1, 'loopwait', $cc, 1)), '1 0', 'the counted loop started');

    # A stop set before a loop begins: it makes no pass and counts as unstarted.
    my $pre = pct("$d/ctl-pre");
    okr($a, 'create a second loop control', 1, 'create', $pre, $PS);
    is(join(' ', okr($a, 'loopstop before any loop', 1, 'loopstop', $pre)), '0 0', 'loopstop: nothing counted yet');
    is((okr($a, 'loop after the stop', $w, 'loop', $A, $PS, 'r', 0, $pre))[0], 0, 'a loop stopped before it began: 0');
    is(join(' ', okr($a, 'loopwait counts it', 1, 'loopwait', $pre, 1)), '0 1', 'it counts as unstarted');

    # A loop that faults before its first pass is unstarted too, so a waiter is not left waiting for it.
    my $bad = pct("$d/ctl-fault");
    okr($a, 'create a third loop control', 1, 'create', $bad, $PS);
    errr($a, 'EFAULT', 'loop with CTL on unmapped memory', $w, 'loop', '0x10', 1, 'r', 0, $bad);
    is(join(' ', okr($a, 'loopwait after the fault', 1, 'loopwait', $bad, 1)), '0 1', 'the faulted loop is unstarted');

    # A CTL shorter than a page, or none at all.
    my $short = pct("$d/ctl-short");
    okr($a, 'create a short control file', 1, 'create', $short, $PS - 1);
    errr($a, 'EINVAL', 'loop with a CTL shorter than a page', $w, 'loop', $A, $PS, 'r', 0, $short);
    errr($a, 'EINVAL', 'loopwait on a CTL shorter than a page', 1, 'loopwait', $short, 1);
    errr($a, 'EINVAL', 'loopstop on a CTL shorter than a page', 1, 'loopstop', $short);
    my $none = pct("$d/ctl-none");
    errr($a, 'ENOENT', 'loop with a missing CTL', $w, 'loop', $A, $PS, 'r', 0, $none);
    errr($a, 'ENOENT', 'loopwait on a missing CTL', 1, 'loopwait', $none, 1);
    errr($a, 'ENOENT', 'loopstop on a missing CTL', 1, 'loopstop', $none);
    errr($a, 'EINVAL', 'loop with CTL and a count above 2^32', $w, 'loop', $A, $PS, 'r', 4294967297, $ctl);
    okr($a, 'the worker answers after its loops', $w, 'hello');
}

# Sends lines in batches of at most 3000 bytes, waiting for each batch's replies: stock UML serial lines stall
# once more than about 4 KiB are in flight. $is_reply(message) says which messages answer the lines.
sub batched {
    my ($a, $lines, $is_reply) = @_;
    my ($seen, @batch, $size) = (0);
    my $flush = sub {
        return unless @batch;
        my $want = $seen + @batch;
        $a->send_raw(join '', @batch);
        $a->_pump(sub { $seen++ if $is_reply->($_[0]); $seen >= $want }, 60);
        @batch = ();
        $size = 0;
    };
    for my $l (@$lines) {
        $flush->() if ($size // 0) + length($l) > 3000;
        push @batch, $l;
        $size += length $l;
    }
    $flush->();
    return $seen;
}

# Random bytes, then well-formed requests with random arguments: every line gets exactly one reply.
sub fuzz {
    my ($a, $n) = @_;
    srand(42);
    my @alphabet = (map({ chr } 0 .. 9, 11 .. 255), ('1', ' ', '0x', '%', '-', 'hello', 'fork', 'mmap'));
    my @lines;
    for (1 .. $n) {
        my $len = int(rand(60));
        # A leading letter keeps a line from naming a live worker by chance.
        push @lines, 'z' . join('', map { $alphabet[rand @alphabet] } 1 .. $len) . "\n";
    }
    is(batched($a, \@lines, sub { $_[0]{id} eq '0' && ($_[0]{status} // '') eq 'err' }), $n,
        "$n lines of random bytes get $n replies");
    $a->{replies} = {};

    # To PID 1 and to a worker made for it (which may well ruin itself: then its requests get ECHILD).
    my ($v) = map { $_ && $_->{ok} ? $_->{fields}[0] : () } $a->call(1, 'spawn');
    my @verbs = qw(hello pread fsync mmap munmap msync touch peek poke faults pages pagemap mincore fmincore
        readfile stats setuid exec klog trigger insmod rmmod nosuch);
    my @args = ('0', '1', '4096', '0x10', '0x1000', '18446744073709551615', '0xffffffffffff', '123456789',
        '-', '%2D', '%00', '%', 'r', 'w', 'rw', 'shared', 'private', '/nonexistent', '/proc/self/maps',
        "\x01", 'x' x 300);
    my %want;
    @lines = ();
    for my $i (1 .. $n) {
        my $id = 50000 + $i;
        my $pid = rand() < 0.5 ? 1 : $v // 1;
        push @lines, join(' ', $id, $pid, $verbs[rand @verbs], map { $args[rand @args] } 1 .. int(rand(7))) . "\n";
        $want{$id} = 1;
    }
    my %got;
    batched($a, \@lines, sub { exists $want{$_[0]{id}} && ++$got{$_[0]{id}} });
    is(scalar(keys %got), $n, "$n requests with random arguments get a reply each");
    ok(!grep({ $_ != 1 } values %got), 'and exactly one');
    $a->{replies} = {};
}

sub bad_input {
    my ($a, $w, $c1, $sh, $tp, $A, $big_lines, $big_why) = @_;
    raw_err($a, "garbage\n", 0, 'EINVAL', 'a line of garbage');
    raw_err($a, "\n", 0, 'EINVAL', 'an empty line');
    raw_err($a, "\x00\xff\x01 \x80\n", 0, 'EINVAL', 'binary garbage');
    raw_err($a, "9001\n", 9001, 'EINVAL', 'an ID alone');
    raw_err($a, "9002 1\n", 9002, 'EINVAL', 'no verb');
    raw_err($a, "x 1 hello\n", 0, 'EINVAL', 'a non-numeric ID');
    raw_err($a, "0 1 hello\n", 0, 'EINVAL', 'ID 0');
    raw_err($a, "9223372036854775808 1 hello\n", 0, 'EINVAL', 'ID 2^63');
    raw_err($a, "9003  1 hello\n", 9003, 'EINVAL', 'an empty field');
    raw_err($a, "9004 1 hello \n", 9004, 'EINVAL', 'a trailing space');
    raw_err($a, "9005 1 hello\r\n", 9005, 'ENOSYS', 'a CR ending the verb');
    raw_err($a, "9006 1 nosuchverb\n", 9006, 'ENOSYS', 'an unknown verb');
    raw_err($a, "9007 99999 hello\n", 9007, 'ESRCH', 'an unknown pid');
    raw_err($a, "9008 -1 hello\n", 9008, 'EINVAL', 'a negative pid');
    raw_err($a, "9009 0 hello\n", 9009, 'EINVAL', 'pid 0');
    raw_err($a, "9010 1 hello extra\n", 9010, 'EINVAL', 'an extra argument');
    raw_err($a, "9011 $w touch\n", 9011, 'EINVAL', 'missing arguments');
    raw_err($a, "9012 $w touch zz 1 r\n", 9012, 'EINVAL', 'a bad address');
    raw_err($a, "9013 $w touch $A 99999999999999999999999 r\n", 9013, 'EINVAL', 'a number that overflows');
    raw_err($a, "9014 $w touch 0xffffffffffffffff 2 r\n", 9014, 'EINVAL', 'a range that wraps');
    raw_err($a, "9015 $w touch $A 1 x\n", 9015, 'EINVAL', 'a bad access mode');
    raw_err($a, "9016 $w fork 0\n", 9016, 'EINVAL', 'fork 0');
    raw_err($a, "9017 $w fork 257\n", 9017, 'EINVAL', 'fork 257');
    raw_err($a, "9018 $w fork 100000000000000\n", 9018, 'EINVAL', 'fork a huge count');
    raw_err($a, "9019 $w pages $A 0\n", 9019, 'EINVAL', 'pages 0');
    raw_err($a, "9020 $w pages $A 1099511627776\n", 9020, 'EINVAL', 'pages a huge count');
    raw_err($a, "9021 $w pagemap $A 1000000\n", 9021, 'EINVAL', 'pagemap a huge count');
    raw_err($a, "9022 $w peek $A 1048577\n", 9022, 'EINVAL', 'peek more than 1 MiB');
    raw_err($a, "9023 $w loop $A 1 r 18446744073709551615\n", 9023, 'EINVAL', 'loop a huge count');
    raw_err($a, "9024 $w readfile %ZZ\n", 9024, 'EINVAL', 'a bad escape');
    raw_err($a, "9025 $w readfile a%0\n", 9025, 'EINVAL', 'a truncated escape');
    raw_err($a, "9026 $w readfile a\x01b\n", 9026, 'EINVAL', 'a raw control byte in a field');
    raw_err($a, "9027 $w readfile a%00b\n", 9027, 'EINVAL', 'a NUL in a path');
    raw_err($a, "9028 $w readfile / 2000000\n", 9028, 'EINVAL', 'readfile MAX above 1 MiB');
    raw_err($a, "9029 $w exit 256\n", 9029, 'EINVAL', 'exit 256');
    raw_err($a, "9030 $w mmap /x 0 4096 both rw\n", 9030, 'EINVAL', 'a bad mmap mode');
    raw_err($a, "9031 $w mmap /x 0 4096 shared rwx\n", 9031, 'EINVAL', 'a bad mmap prot');
    raw_err($a, "9032 $w mmap /x 0 0 shared r\n", 9032, 'EINVAL', 'mmap of length 0');
    raw_err($a, "9033 $w pread /x 0 2000000\n", 9033, 'EINVAL', 'pread more than 1 MiB');
    raw_err($a, "9034 $w setuid 4294967295\n", 9034, 'EINVAL', 'setuid -1');
    raw_err($a, "9035 $w create /x 9223372036854775808\n", 9035, 'EINVAL', 'create a size above 2^63-1');
    raw_err($a, "9036 $w exec" . (' a' x 1100) . "\n", 9036, 'E2BIG', 'exec with too many arguments');
    raw_err($a, "9037 $w mincore 0x1001 4096\n", 9037, 'EINVAL', 'mincore of an unaligned address');
    raw_err($a, "9038 $w munmap 0x1001 4096\n", 9038, 'EINVAL', 'munmap of an unaligned address');

    # run: exec with a working directory, environment entries, a user and a timeout.
    my $run = sub { my ($name, @a) = @_; my ($st, $out) = okr($a, $name, $w, 'run', @a); return ($st // '', unpct($out // '')) };
    is_deeply([$run->('run with no options', 0, '-', '-', '-', pct($tp), 'echo', 'hi')], ['exit:0', "hi\nstderr\n"],
        'run without options is exec');
    is_deeply([$run->('run in a folder', 0, '-', pct($sh), '-', pct($tp), 'pwd')], ['exit:0', "$sh\n"], 'run: CWD');
    is_deeply([$run->('run with ENV', 0, '-', '-', pct("FOO=bar\nHOME=/h"), pct($tp), 'getenv', 'FOO')],
        ['exit:0', "bar\n"], 'run: ENV sets a variable');
    is_deeply([$run->('run with ENV, PATH kept', 0, '-', '-', pct("FOO=bar"), pct($tp), 'getenv', 'PATH')],
        ['exit:0', "/bin:/sbin:/usr/bin:/usr/sbin\n"], 'run: ENV keeps the default PATH');
    is_deeply([$run->('run with ENV, HOME replaced', 0, '-', '-', pct("HOME=/h"), pct($tp), 'getenv', 'HOME')],
        ['exit:0', "/h\n"], 'run: an ENV entry replaces a default one');
    is_deeply([$run->('run as a user', 0, 65534, '-', '-', pct($tp), 'ids')], ['exit:0', "65534 65534\n"],
        'run: UID sets the user and group');
    is_deeply([$run->('run that times out', 300, '-', '-', '-', pct($tp), 'waitfile', pct("$sh/never"))], ['timeout', ''],
        'run: a program still running at TIMEOUT_MS is killed, status timeout');
    my $nodir = errr($a, 'ENOENT', 'run in a missing folder', $w, 'run', 0, '-', pct("$sh/nonexistent"), '-', pct($tp), 'pwd');
    like($nodir->{msg} // '', qr{^chdir \Q$sh\E/nonexistent: }, 'run: a bad CWD is reported as chdir CWD');
    # Root without capabilities cannot drop its groups: the first step of a user change fails, and is named.
    my ($nocap) = okr($a, 'spawn a worker to drop capabilities', 1, 'spawn');
    okr($a, 'capdrop', $nocap, 'capdrop');
    my $uidf = errr($a, 'EPERM', 'run as a user from a worker without capabilities', $nocap, 'run', 0, 65534, '-', '-',
        pct($tp), 'ids');
    like($uidf->{msg} // '', qr{^setgroups: }, 'run: a failed user change names its step (setgroups)');
    okr($a, 'the worker without capabilities exits', $nocap, 'exit');
    $a->event('exited', $nocap);
    # TIMEOUT_MS: 0 .. 2^31-1; larger values (2^63 and 2^64-1 once wrapped to a deadline in the past) are refused.
    for my $t ('2147483648', '9223372036854775808', '18446744073709551615') {
        my $big = errr($a, 'EINVAL', "run with TIMEOUT_MS $t", $w, 'run', $t, '-', '-', '-', pct($tp), 'echo', 'x');
        like($big->{msg} // '', qr/TIMEOUT_MS/, "TIMEOUT_MS $t: the message names the field");
    }
    is_deeply([$run->('run with the largest TIMEOUT_MS', 2147483647, '-', '-', '-', pct($tp), 'exit', 0)], ['exit:0', ''],
        'run: TIMEOUT_MS 2^31-1 is accepted');
    raw_err($a, "9050 $w run x - - - /x\n", 9050, 'EINVAL', 'run with a bad TIMEOUT_MS');
    raw_err($a, "9051 $w run 0 4294967295 - - /x\n", 9051, 'EINVAL', 'run with UID -1');
    raw_err($a, "9052 $w run 0 - - noequals /x\n", 9052, 'EINVAL', 'run with an ENV entry without =');
    raw_err($a, "9053 $w run 0 - - -\n", 9053, 'EINVAL', 'run without PATH');
    raw_err($a, "9060 $w failwrite 0 /x y\n", 9060, 'EINVAL', 'failwrite N 0 (no fault)');
    raw_err($a, "9061 $w failwrite 4294967296 /x y\n", 9061, 'EINVAL', 'failwrite N above 2^32-1');
    raw_err($a, "9062 $w failwrite 1 /x %ZZ\n", 9062, 'EINVAL', 'failwrite with bad DATA');
    raw_err($a, "9063 $w failwrite 1 /x\n", 9063, 'EINVAL', 'failwrite without DATA');

    # A duplicate of an outstanding ID is refused; the original is still answered.
    my $go = "$sh/go3";
    $a->send_raw("9100 $c1 exec " . pct($tp) . " waitfile " . pct($go) . "\n");
    $a->send_raw("9100 $w hello\n");
    my $dup = $a->_pump(sub { $_[0]{id} eq '9100' && $_[0]{verb} eq 'hello' }, 30);
    ok($dup && ($dup->{ename} // '') eq 'EBUSY', 'a duplicate outstanding ID: EBUSY') or diag($dup ? $dup->{line} : 'none');
    okr($a, 'release the waiter', $w, 'create', pct($go), 0);
    # The exec's reply races the create's, so it may have been filed while okr waited.
    my $orig = $a->reply_where(9100, sub { ($_[0]{verb} // '') eq 'exec' }, 30);
    ok($orig && $orig->{ok}, 'the original request is answered') or diag($orig ? $orig->{line} : 'none');

    # Lines at and beyond the 4 MiB limit.
    if (!$big_lines) {
        diag('skipping the 4 MiB line checks: ' . ($big_why // 'this kernel stalls on large input (see docs/guest.md)'));
        return;
    }
    my $max = 4 << 20;
    okr($a, 'create big', $w, 'create', pct("$sh/big"), 0);
    my $head = "9200 $w writefile " . pct("$sh/big") . " ";
    my $line = $head . ('a' x ($max - length($head) - 1)) . "\n";
    is(length $line, $max, 'a line of exactly 4 MiB');
    $a->send_raw($line);
    my $r = $a->reply(9200, 60);
    # A guest short of memory kills the worker (ECHILD): the console's OOM report says so.
    ok($r && $r->{ok} && $r->{fields}[0] == $max - length($head) - 1, 'a line of exactly 4 MiB is served')
        or diag(($r ? $r->{line} : 'no reply') . "\n" . join("\n", grep { /oom|Out of memory|Killed process/ }
            split /\n/, $a->console));
    $line = "9201 $w hello " . ('b' x $max) . "\n";
    $a->send_raw($line);
    # A line that lost bytes on the way would come back under its own ID instead.
    $r = $a->_pump(sub { $_[0]{id} eq '0' || $_[0]{id} eq '9201' }, 60);
    ok($r && ($r->{ename} // '') eq 'E2BIG', 'a longer line is answered E2BIG') or diag($r ? $r->{line} : 'none');
    okr($a, 'the next line is served', $w, 'hello');
    my $big = $a->call($w, 'readfile', pct("$sh/big"));
    is(length(unpct($big->{fields}[0] // '')), 1 << 20, 'readfile returns at most 1 MiB by default');
}

1;
