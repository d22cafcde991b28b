# SPDX-License-Identifier: MIT
# mutate.pl run: the mutate tree built once, then each mutant written, built, judged and put back; results.json.
package Mutate::Run;
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Path qw(make_path);
use JSON::PP;
use List::Util qw(max);
use POSIX qw(ceil);
use Time::HiRes qw(time);
use Mutate::Util;
use Mutate::Series;
use Mutate::Build;
use Mutate::Judge;
use Exporter qw(import);
our @EXPORT = qw(cmd_run);


sub cmd_run {
    my ($o) = @_;
    my $g = $o->{gen};
    my ($all, $stree) = mutants($g, $o->{all}, $o->{diff});
    my @list = shard_of($all, $o->{shard});
    if (@{ $o->{only} }) {
        my %want = map { $_ => 1 } @{ $o->{only} };
        my %known = map { $_->{id} => 1 } @$all;
        $known{$_} or fail("no mutant named $_") for @{ $o->{only} };
        @list = grep { $want{$_->{id}} } @list;
    }
    my $out = $o->{out};
    make_path($out);
    my %doc = (generation => $g, shard => $o->{shard} // '1/1', all => $o->{all} ? JSON::PP::true : JSON::PP::false,
               mutants_total => scalar @$all, variant => $o->{variant}, defined $o->{diff} ? (diff => $o->{diff}) : ());
    if (!@list) {
        # A shard that holds none of the mutants asked for: an empty result, which joins the others.
        spew("$out/results.json", JSON::PP->new->canonical->pretty->encode({ %doc, seconds => 0, build_seconds => 0,
              run_seconds => 0, reach => JSON::PP::false, results => [] }));
        print "mutate: no mutant in this shard" . (defined $o->{diff} ? " on the lines changed since $o->{diff}" : '')
            . "; $out/results.json\n";
        return 0;
    }
    my $variant = $o->{variant} . gen_get($g, 'suffix');
    my $mbuild = "$BUILD/mutate";
    my $vdir = "$mbuild/kernel/$variant";
    my $log = "$out/log.txt";
    unlink $log;
    my $pristine = pristine_tree($g);
    (my $kvar = "KSRC_$g") =~ s/\./_/g;
    # A run killed while a mutant was in place left the original beside it.
    for my $f (sort keys %{ { map { $_->{file} => 1 } @$all } }) {
        next unless -e "$vdir/src/$f.umlbed-orig";
        put_back("$vdir/src/$f");
        note("put back $f, which a killed run had left mutated");
    }
    # With UMLBED_MUTATE_KBUILD (below) no mutant is built: the tree is only patched and configured, for the lines
    # to map into, and the runs take the build's own kernel of the variant.
    my $stand_in = $ENV{UMLBED_MUTATE_KBUILD};
    note("building $variant in $vdir (log: $log)");
    {
        local $ENV{BUILD} = $mbuild;
        local $ENV{$kvar} = $pristine;
        local $ENV{KBUILD_TARGETS} = $stand_in ? 'olddefconfig' : $ENV{KBUILD_TARGETS};
        sh($log, "$top/uml-kernel/build.sh", $variant) == 0 or fail("the unmutated $variant does not build (see $log)");
    }
    # The test modules: those the build folder has for the variant (same configuration and version), else built here
    # against the unmutated tree, since another variant's (full's for judge) have another configuration.
    my $mods = "$BUILD/kernel/$variant/modules";
    if (-d $mods && !-e "$vdir/modules") { symlink($mods, "$vdir/modules") or fail("symlink $vdir/modules: $!") }
    elsif (!-e "$vdir/modules" && !$stand_in) {
        sh($log, 'make', '-s', '-C', "$top/uml-kernel/modules", "BUILD=$mbuild", "VARIANT=$variant") == 0
            or fail("the test modules of $variant do not build (see $log)");
    }
    my $kernel = $stand_in ? "$BUILD/kernel/$variant/obj/linux" : "$vdir/obj/linux";
    -x $kernel or fail("no kernel $kernel (make kernel VARIANT=$variant)");
    my @kmake = ('make', '-C', "$vdir/src", "O=$vdir/obj", 'ARCH=um', '-j' . ($ENV{JOBS_BUILD} // `nproc` + 0), '-s');
    push @kmake, 'CC=ccache gcc' if system('command -v ccache >/dev/null') == 0;
    # UMLBED_MUTATE_KBUILD: a shell command that stands for each mutant's kbuild, given O=OBJ as $1. The driver's own
    # test uses it to check the driver (shards, verdicts, a SIGTERM mid-build) without linking a kernel; with it,
    # every mutant runs the variant's unmutated kernel from the build folder.
    @kmake = ('sh', '-c', $stand_in, 'kbuild', "O=$vdir/obj") if $stand_in;
    local $ENV{CCACHE_BASEDIR} = $mbuild;
    local $ENV{CCACHE_NOHASHDIR} = 1;

    my $reach = reach($g);
    my @scen = @{ $o->{scenario} } ? map { abs_path($_) // fail("no scenario $_") } @{ $o->{scenario} }
             : glob("$top/scenarios/*.lua");
    my %chosen = map { $_ => 1 } @scen;
    note('no coverage reach data (make coverage): every mutant runs the whole suite') unless $reach;
    # The baseline: the unmutated kernel must pass every scenario, and gives each file's duration.
    my $base = run_files($kernel, "$out/baseline.json", 60, $log, @scen)
        // fail("the baseline run wrote no report (see $log)");
    my @bad = grep { $_->{verdict} ne 'ok' } @$base;
    fail('the unmutated kernel does not pass: ' . join(', ', map { "$_->{name}: $_->{verdict}" } @bad)) if @bad;
    my %dur;
    $dur{$_->{file}} += $_->{seconds} // 0 for @$base;
    my %names = map { $_->{name} => $_->{file} } @$base;
    # A mutant's run is bounded by ten times the slowest unmutated run (at least 10 s), unless --timeout says:
    # a mutant that hangs the kernel is "timeout" within that bound instead of holding the run list.
    my ($slowest) = sort { $b <=> $a } map { $_->{seconds} // 0 } @$base;
    my $timeout = $o->{timeout} // max(10, POSIX::ceil(10 * ($slowest // 1)));
    note("each run of a mutant is bounded by $timeout s");
    # --resume: a mutant that an earlier run in DIR judged keeps its result, if it is the same mutant (same id,
    # same line, same change): a stopped run goes on, and after a generator or series change only what changed runs.
    my (%done, %prev);
    if ($o->{resume} && -f "$out/results.json") {
        my $old = eval { decode_json(slurp("$out/results.json")) } // {};
        my %now = map { $_->{id} => $_ } @$all;
        for my $r (@{ $old->{results} // [] }) {
            my $m = $now{$r->{id}} or next;
            $done{$r->{id}} = $r if $m->{original} eq $r->{original} && $m->{mutated} eq $r->{mutated};
        }
        note(scalar(keys %done) . " mutants judged already ($out/results.json)");
        # Their time counts: the figures stay those of judging the whole set.
        $prev{$_} = $old->{$_} // 0 for qw(seconds build_seconds run_seconds);
    }

    # Trivial Compiler Equivalence, where kbuild builds each mutant (not with a stand-in): the code of each mutated
    # file's object as the unmutated build left it, and of each mutant built so far. A mutant with the original's
    # code is equivalent, one with an earlier mutant's code a duplicate of it, without a run.
    my (%orig_code, %code_of);
    my $object = sub { "$vdir/obj/" . ($_[0] =~ s/\.c$/.o/r) };
    if (!$stand_in) {
        $orig_code{$_->{file}} //= tce_code($object->($_->{file})) for @list;
    }

    # Each mutant's line is found in the mutate tree through the map from the series-applied file.
    my %maps;
    my %kills;    # kills per scenario file: the likeliest killers run first
    my @res;
    my $t0 = time;
    my ($tb, $tr) = (0, 0);
    for my $i (0 .. $#list) {
        my $mu = $list[$i];
        if ($done{$mu->{id}}) { push @res, $done{$mu->{id}}; next }
        my $f = "$vdir/src/$mu->{file}";
        $maps{$mu->{file}} //= line_map("$stree/$mu->{file}", $f);
        my $tl = $maps{$mu->{file}}{$mu->{line}};
        my @l = split /\n/, slurp($f), -1;
        my %r = (id => $mu->{id}, file => $mu->{file}, line => $mu->{line}, op => $mu->{op},
                 function => $mu->{function}, original => $mu->{original}, mutated => $mu->{mutated});
        if (!defined $tl || $l[$tl - 1] ne $mu->{original}) {
            $r{verdict} = 'not built';
            $r{why} = 'the line is not in the mutate tree';
            push @res, \%r;
            next;
        }
        my $orig = slurp($f);
        # The original is kept beside the file while the mutant is in place: a run that is killed there leaves it
        # for the next run to put back, and a signal puts it back at once.
        spew("$f.umlbed-orig", $orig);
        $mutated = $f;
        $l[$tl - 1] = $mu->{mutated};
        spew($f, join("\n", @l));
        my $b0 = time;
        my $built = sh($log, @kmake) == 0;
        $r{build_s} = sprintf('%.2f', time - $b0);
        $tb += time - $b0;
        my $code = $built && !$stand_in ? tce_code($object->($mu->{file})) : undef;
        restore();
        if (!$built) {
            $r{verdict} = 'not built';
            $r{why} = 'does not compile';
        } elsif (defined $code && defined $orig_code{$mu->{file}} && $code eq $orig_code{$mu->{file}}) {
            $r{verdict} = 'equivalent';
            $r{why} = 'TCE: its object code is the unmutated one\'s';
        } elsif (defined $code && $code_of{$mu->{file}}{$code}) {
            $r{verdict} = 'duplicate';
            $r{of} = $code_of{$mu->{file}}{$code};
            $r{why} = "TCE: its object code is $r{of}'s";
        } else {
            $code_of{$mu->{file}}{$code} = $mu->{id} if defined $code;
            my $r0 = time;
            my @files = @scen;
            if ($reach && $mu->{function} && $reach->{$mu->{function}}) {
                # A scenario file that the coverage run did not know (newer than reach.txt) has no reach yet: it
                # runs for every mutant rather than be left out.
                my %known = map { %$_ } values %$reach;
                my %sel = map { $_ => 1 } keys %{ $reach->{$mu->{function}} }, grep { !$known{$_} } @scen;
                @files = sort grep { $chosen{$_} } keys %sel;
            }
            @files = sort { ($kills{$b} // 0) <=> ($kills{$a} // 0) || ($dur{$a} // 0) <=> ($dur{$b} // 0) } @files;
            judge(\%r, \@files, \%kills, $kernel, $timeout, $out, $log, \%names);
            $r{run_s} = sprintf('%.2f', time - $r0);
            $tr += time - $r0;
        }
        push @res, \%r;
        # The results so far, so that a stopped run can be resumed (--resume).
        spew("$out/results.json", JSON::PP->new->canonical->pretty->encode({ %doc, partial => JSON::PP::true,
              seconds => sprintf('%.1f', time - $t0 + ($prev{seconds} // 0)),
              build_seconds => sprintf('%.1f', $tb + ($prev{build_seconds} // 0)),
              run_seconds => sprintf('%.1f', $tr + ($prev{run_seconds} // 0)), results => \@res }));
        my $done = $i + 1;
        my %c;
        $c{$_->{verdict}}++ for @res;
        my $left = (time - $t0) / $done * (@list - $done);
        printf STDERR "\rmutate: %d/%d done, %d killed, %d survived, %d timeout, %d not built; about %d s left ",
            $done, scalar @list, $c{killed} // 0, $c{survived} // 0, $c{timeout} // 0, $c{'not built'} // 0, $left
            if -t STDERR;
        printf "%s %s%s\n", $r{verdict}, $r{id}, $r{killed_by} ? " by $r{killed_by}[0]{name}" : '';
    }
    print STDERR "\n" if -t STDERR;
    # The tree back as it was: the last mutant's file is restored, so rebuild the unmutated kernel.
    sh($log, @kmake);
    my $wall = time - $t0;
    $wall += $prev{seconds} // 0;
    $tb += $prev{build_seconds} // 0;
    $tr += $prev{run_seconds} // 0;
    my $doc = { %doc, seconds => sprintf('%.1f', $wall), build_seconds => sprintf('%.1f', $tb),
                run_seconds => sprintf('%.1f', $tr), reach => $reach ? JSON::PP::true : JSON::PP::false, results => \@res };
    spew("$out/results.json", JSON::PP->new->canonical->pretty->encode($doc));
    printf "mutate: %d mutants in %.0f s (%.0f per hour): building %.0f s, running %.0f s; %s\n",
        scalar @list, $wall, $wall > 0 ? @list * 3600 / $wall : 0, $tb, $tr, "$out/results.json";
    return 0;
}

1;
