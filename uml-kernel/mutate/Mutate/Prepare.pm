# SPDX-License-Identifier: MIT
# What a mutation run needs before its first mutant runs: the mutate tree, every mutant's own object (built? TCE?), the schema kernel, the kernels of the mutants that are no switch, the unmutated kernel's run of the suite, and the runs that reach each mutant.
#
# Its result (prepare's hash, written as prepared.json) is all a judge needs: a shard on another machine judges from
# it and the kernels it names, without the kernel's source (mutate.pl pack).
package Mutate::Prepare;
use strict;
use warnings;
use Cwd qw(abs_path);
use Digest::SHA;
use File::Path qw(make_path);
use JSON::PP;
use Time::HiRes qw(time);
use Mutate::Util;
use Mutate::Series;
use Mutate::Build;
use Mutate::Tce;
use Mutate::Kernels;
use Mutate::Judge qw(run_files);
use Mutate::Reach;
use Exporter qw(import);
our @EXPORT = qw(selection prepare workers);

sub cpus { return (`nproc` + 0) || 1 }
# The runs at once: one a CPU by default, each slot's runs on its own CPU (Judge.pm). A UML kernel and its guest's
# processes take turns on one CPU; eight mutants of 6.1 measured pinned took 89 s of judging at one run a CPU, 106 s
# at two, and 186 s at two unpinned (every runner then put its guest on the first CPU).
sub workers { return $ENV{UMLBED_MUTATE_WORKERS} || cpus() }

# selection(O): the generation's mutants as O chooses them (--all, --diff, --only), each with its number (its place
# in the generation's list, from 1: what umlbed_mutant= names), and the series tree and the whole list.
sub selection {
    my ($o) = @_;
    my ($all, $stree) = mutants($o->{gen}, $o->{all}, $o->{diff});
    $all->[$_]{num} = $_ + 1 for 0 .. $#$all;
    my @sel = @$all;
    if (@{ $o->{only} }) {
        my %want = map { $_ => 1 } @{ $o->{only} };
        my %known = map { $_->{id} => 1 } @$all;
        $known{$_} or fail("no mutant named $_") for @{ $o->{only} };
        @sel = grep { $want{$_->{id}} } @sel;
    }
    return (\@sel, $stree, $all);
}

# The key of a run of the suite: the kernel, its modules, the agent, the runner, the scenario files, the bed's Lua
# library, the environment that changes how runs behave. The same key is the same baseline.
sub baseline_key {
    my ($kernel, @files) = @_;
    my $d = Digest::SHA->new(256);
    my $kdir = $kernel =~ s{/obj/linux$}{}r;
    for my $f ($kernel, glob("$kdir/modules/*.ko"), "$BUILD/guest/umlbed-agent", "$BUILD/runner/umlbed", sort(@files),
               sort(glob("$top/runner/lua/lua/umlbed/*.lua"))) {
        $d->add("$f\0");
        $d->addfile($f) if -f $f;
    }
    $d->add(join("\0", map { "$_=$ENV{$_}" } sort grep { /^UMLBED_/ && !/^UMLBED_(?:BUILD|MUTANT)$/ } keys %ENV), $ENV{CI} // '');
    return $d->hexdigest;
}

# baseline(KERNEL, DIR, LOG, FILES): the unmutated kernel's run of the scenario files, which must pass; its runs
# ({ name, file, seconds }). Kept under DIR by its key: the same kernel and inputs need no second run.
sub baseline {
    my ($kernel, $dir, $log, @files) = @_;
    make_path($dir);
    my $key = baseline_key($kernel, @files);
    my $kept = "$dir/" . substr($key, 0, 24) . '.json';
    return (decode_json(slurp($kept)), 1) if -f $kept;
    local $ENV{UMLBED_MUTANT};
    delete $ENV{UMLBED_MUTANT};
    my $base = run_files($kernel, "$dir/run.json", 60, $log, @files) // fail("the baseline run wrote no report (see $log)");
    my @bad = grep { $_->{verdict} ne 'ok' && $_->{verdict} ne 'SKIP' } @$base;
    fail('the unmutated kernel does not pass: ' . join(', ', map { "$_->{name}: $_->{verdict}" } @bad)) if @bad;
    my @runs = map { { name => $_->{name}, file => $_->{file}, seconds => $_->{seconds} // 0, verdict => $_->{verdict} } } @$base;
    spew($kept, encode_json(\@runs));
    return (\@runs, 0);
}

# tce_verdicts(SEL, RES): each mutant's verdict from its object: not built, equivalent (the original's code) or
# duplicate (an earlier mutant's code, in list order, of a mutant that is neither).
sub tce_verdicts {
    my ($sel, $res) = @_;
    my %seen;
    for my $m (@$sel) {
        next if $m->{verdict};
        my $t = $res->{$m->{num}} or next;
        if (!$t->{built}) { @$m{qw(verdict why)} = ('not built', $t->{why}) }
        elsif (!defined $t->{code}) { }
        elsif ($t->{code} eq $t->{base}) { @$m{qw(verdict why)} = ('equivalent', "TCE: its object code is the unmutated one's") }
        elsif (my $of = $seen{$m->{file}}{$t->{code}}) { @$m{qw(verdict of why)} = ('duplicate', $of, "TCE: its object code is $of\'s") }
        else { $seen{$m->{file}}{$t->{code}} = $m->{id} }
    }
}

# phase(T, NAME, CODE): CODE's seconds into T's NAME, the time it waited for the kernel-build lock left out.
sub phase {
    my ($t, $name, $code) = @_;
    my ($t0, $w0) = (time, $Mutate::Build::lock_wait);
    my @r = $code->();
    $t->{$name} = time - $t0 - ($Mutate::Build::lock_wait - $w0);
    $t->{lock_wait} += $Mutate::Build::lock_wait - $w0;
    return wantarray ? @r : $r[0];
}

# own_kernels(VDIR, KMAKE, LIST, OWN, TEXT, KEY, KERNEL, LOG, STAND_IN): the kernel of each mutant of LIST that is
# no switch (OWN: why), or its verdict not built; their count.
sub own_kernels {
    my ($vdir, $kmake, $list, $own, $text, $key, $kernel, $log, $stand_in) = @_;
    my ($built, $n) = (0, 0);
    for my $m (grep { $own->{$_->{num}} } @$list) {
        $m->{own} = $own->{$m->{num}};
        $n++;
        my $had = -x own_dir($vdir, $key, $m) . '/obj/linux';
        my $k = own_kernel($vdir, $kmake, { %$m, line => $m->{tline} }, $text->{$m->{file}}, $key, $log, $stand_in);
        $built ||= !$had;
        if (!defined $k) { @$m{qw(verdict why)} = ('not built', 'does not build'); next }
        $m->{kernel} = $stand_in ? $kernel : $k;
    }
    # The tree back to the schema kernel, if a mutant's own build left its object in it.
    sh($log, @$kmake) == 0 || fail("the schema kernel does not build again (see $log)") if $built;
    return $n;
}

# prepare(O, SEL, STREE, LIST, OUT, LOG): SEL the mutants chosen, LIST those of them this run judges (a shard).
sub prepare {
    my ($o, $sel, $stree, $list, $out, $log) = @_;
    my $g = $o->{gen};
    my %t = (lock_wait => 0);
    my $variant = $o->{variant} . gen_get($g, 'suffix');
    my $stand_in = $ENV{UMLBED_MUTATE_KBUILD};
    # The builds hold the machine's kernel-build lock together (UMLBED_KBUILD_LOCK): one wait, not four.
    my ($vdir, $kernel, $n_own);
    locked(sub {
        my ($kmake, $orig);
        ($vdir, $kmake, $orig) = phase(\%t, 'tree', sub {
            my ($vdir, $kmake) = prepare_tree($g, $variant, $log, $stand_in);
            my %files = map { $_->{file} => 1 } @$sel;
            my $orig = originals($vdir, sort keys %files);
            # Each mutant's line in the tree's file, through the map from the series-applied one.
            my %maps;
            for my $m (@$sel) {
                my $f = $m->{file};
                $maps{$f} //= line_map("$stree/$f", "$vdir/orig/$f");
                my $tl = $maps{$f}{$m->{line}};
                my @l = split /\n/, $orig->{$f}, -1;
                if (!defined $tl || $l[$tl - 1] ne $m->{original}) { @$m{qw(verdict why)} = ('not built', 'the line is not in the mutate tree') }
                else { $m->{tline} = $tl }
            }
            return ($vdir, $kmake, $orig);
        });
        if ($o->{kbuild}) {
            # --kbuild: a kernel of its own for each mutant, the method the schema replaced (the sample check).
            $t{$_} = 0 for qw(tce schema);
            ($kernel, $n_own) = phase(\%t, 'own', sub { kbuild_each($vdir, $kmake, $list, $orig, $log) });
            return;
        }
        my @compile = map { { num => $_->{num}, file => $_->{file}, line => $_->{tline}, mutated => $_->{mutated} } }
            grep { !$_->{verdict} } @$sel;
        phase(\%t, 'tce', sub { tce_verdicts($sel, tce_all($vdir, \@compile, $orig, cpus(), $stand_in)) });
        my %mine = map { $_->{id} => 1 } @$list;
        my %sites;
        push @{ $sites{$_->{file}} }, { num => $_->{num}, line => $_->{tline}, original => $_->{original}, mutated => $_->{mutated} }
            for grep { !$_->{verdict} && $mine{$_->{id}} } @$sel;
        my ($own, $text, $key) = phase(\%t, 'schema', sub { schema_kernel($vdir, $kmake, \%sites, $orig, $log, $stand_in) });
        $kernel = $stand_in ? "$BUILD/kernel/$variant/obj/linux" : "$vdir/obj/linux";
        -x $kernel or fail("no kernel $kernel (make kernel VARIANT=$variant)");
        $n_own = phase(\%t, 'own', sub { own_kernels($vdir, $kmake, $list, $own, $text, $key, $kernel, $log, $stand_in) });
        return;
    });
    $t{lock_wait} = $Mutate::Build::lock_wait;
    my @scen = @{ $o->{scenario} } ? map { abs_path($_) // fail("no scenario $_") } @{ $o->{scenario} }
             : glob("$top/scenarios/*.lua");
    my ($runs, $reused) = ([], 0);
    phase(\%t, 'baseline', sub {
        return unless grep { !$_->{verdict} } @$list;
        ($runs, $reused) = baseline($kernel, "$vdir/baseline", $log, @scen);
        note($reused ? 'the unmutated kernel passed these scenarios before (the same kernel and inputs)'
                     : 'the unmutated kernel passes ' . scalar(@$runs) . ' runs');
    });
    my ($reach, $from) = reach_of($g, $stree, $list, $runs, $o->{reach});
    note($from);
    for my $m (@$list) {
        next if $m->{verdict} || !$reach->{$m->{id}};
        $m->{runs} = $reach->{$m->{id}};
        @$m{qw(verdict why)} = ('not reached', 'no run of the suite executes its line (coverage)') unless @{ $m->{runs} };
    }
    return { generation => $g, variant => $o->{variant}, kernel => $kernel, runs => $runs, reach => $from,
             own_kbuilds => $n_own, times => \%t, stand_in => $stand_in ? 1 : 0 };
}

1;
