# SPDX-License-Identifier: MIT
# mutate.pl pack: one bundle that every shard of a mutation run judges from, on machines without the kernel's source (a batch system's nodes): the prepared run, its kernels, the runner, the agent, the scenarios and this tool.
#
# The bundle is a tree like this checkout's, in the layout of make pack (docs/shards.md):
#   build/runner/umlbed, build/guest/umlbed-agent             the runner and the agent
#   build/mutate/kernel/V/obj/linux, modules/, variant.info, variant.json   the schema kernel; own/*/ the mutants' own kernels
#   mutate/prepared.json                                      every mutant, its number, its verdict if the build
#                                                             gave one (not built, TCE), its runs; the runs of the
#                                                             suite and their unmutated times
#   scenarios/, uml-kernel/, tests/mutate/, patches/, ...     what the scenarios read, and this tool
#   MANIFEST                                                  its id (the hash of every file) and what it holds
# A shard runs BUNDLE/uml-kernel/mutate.pl run --bundle BUNDLE [--shard K/N], or takes K/N from the batch system's
# variables (Slurm's array, GitLab's parallel jobs, a Kubernetes Indexed Job).
package Mutate::Pack;
use strict;
use warnings;
use Cwd qw(abs_path);
use Digest::SHA;
use File::Basename qw(dirname);
use File::Copy qw(copy);
use File::Path qw(make_path remove_tree);
use File::Temp qw(tempdir);
use JSON::PP;
use Mutate::Util;
use Mutate::Prepare;
use Exporter qw(import);
our @EXPORT = qw(cmd_pack load_bundle);

# The files a shard needs from this checkout, besides the build's.
my @TREE = qw(scenarios tests/mutate/equivalent tests/mutate/threshold tests/mutate/scenarios uml-kernel/generation.sh
              uml-kernel/generations uml-kernel/variants uml-kernel/config uml-kernel/fixes uml-kernel/broken
              uml-kernel/mutate.pl uml-kernel/mutate patches bench/patches);

sub put {
    my ($from, $to, $mode) = @_;
    make_path(dirname($to));
    copy($from, $to) or fail("copy $from: $!");
    chmod($mode // (stat $from)[2] & 07777, $to);
}

# kernel_dir(FROM, TO): a kernel's folder in the bundle: obj/linux, variant.info, variant.json, the test modules.
sub kernel_dir {
    my ($from, $to) = @_;
    put("$from/obj/linux", "$to/obj/linux", 0755);
    put("$from/$_", "$to/$_") for qw(variant.info variant.json);
    put($_, "$to/modules/" . ($_ =~ s{.*/}{}r)) for glob("$from/modules/*.ko");
}

sub cmd_pack {
    my ($o) = @_;
    my ($sel, $stree, $all) = selection($o);
    @$sel or fail('no mutant to pack' . (defined $o->{diff} ? " on the lines changed since $o->{diff}" : ''));
    my $file = abs_path(dirname($o->{out})) . '/' . ($o->{out} =~ s{.*/}{}r);
    my $work = "$BUILD/mutate/$o->{gen}/pack";
    make_path($work);
    my $prep = prepare($o, $sel, $stree, $sel, $work, "$work/log.txt");
    my $stage = tempdir('umlbed-mutate-pack.XXXXXX', TMPDIR => 1, CLEANUP => 1);
    my $p = "$stage/umlbed-mutate-pack";
    put("$BUILD/runner/umlbed", "$p/build/runner/umlbed", 0755);
    put("$BUILD/guest/umlbed-agent", "$p/build/guest/umlbed-agent", 0755);
    my %kernels;
    (my $rel = $prep->{kernel}) =~ s{^\Q$BUILD/\E}{} or fail("$prep->{kernel} is not in $BUILD");
    $kernels{$rel} = 1;
    $kernels{ $_->{kernel} =~ s{^\Q$BUILD/\E}{}r } = 1 for grep { $_->{kernel} } @$sel;
    for my $k (sort keys %kernels) {
        (my $dir = $k) =~ s{/obj/linux$}{} or fail("$k is not a kernel's obj/linux");
        kernel_dir("$BUILD/$dir", "$p/build/$dir");
    }
    chdir $top or fail("$top: $!");
    system('cp', '-r', '--parents', @TREE, $p) == 0 or fail('copying the tree into the pack failed');
    my %doc = (format => 1, generation => $o->{gen}, variant => $o->{variant}, all => $o->{all} ? 1 : 0,
               mutants_total => scalar @$all, defined $o->{diff} ? (diff => $o->{diff}) : (),
               kernel => $rel, reach => $prep->{reach}, own_kbuilds => $prep->{own_kbuilds}, times => $prep->{times},
               runs => [map { { %$_, file => $_->{file} =~ s{^\Q$top/\E}{}r } } @{ $prep->{runs} }],
               mutants => [map { my %m = %$_; $m{kernel} =~ s{^\Q$BUILD/\E}{} if $m{kernel}; delete $m{tline}; \%m } @$sel]);
    make_path("$p/mutate");
    spew("$p/mutate/prepared.json", JSON::PP->new->canonical->pretty->encode(\%doc));
    my $d = Digest::SHA->new(256);
    open(my $f, '-|', 'sh', '-c', 'cd "$1" && find . -type f | LC_ALL=C sort', 'find', $p) or fail("find: $!");
    chomp(my @files = <$f>);
    close $f;
    $d->add("$_\0")->addfile("$p/$_") for @files;
    my $id = substr($d->hexdigest, 0, 16);
    spew("$p/MANIFEST", "id $id\nformat 1\ngeneration $o->{gen}\nvariant $o->{variant}\nmutants " . scalar(@$sel)
         . "\nkernels " . scalar(keys %kernels) . "\ncommit " . (`git -C "$top" rev-parse HEAD 2>/dev/null` =~ s/\s+//r || 'unknown') . "\n");
    system('tar', '-C', $stage, '-czf', "$file.tmp", 'umlbed-mutate-pack') == 0 or fail("tar $file: failed");
    rename("$file.tmp", $file) or fail("$file: $!");
    printf "mutate: pack %s (%d mutants, %d kernels, id %s)\n", $file, scalar @$sel, scalar keys %kernels, $id;
    return 0;
}

# load_bundle(DIR): the prepared run of an unpacked bundle, its paths made absolute; BUILD is the bundle's.
sub load_bundle {
    my ($dir) = @_;
    $dir = abs_path($dir) // fail("--bundle: no such folder");
    -f "$dir/mutate/prepared.json" or fail("$dir: not a mutation bundle (no mutate/prepared.json; mutate.pl pack)");
    my $d = decode_json(slurp("$dir/mutate/prepared.json"));
    ($d->{format} // 0) == 1 or fail("$dir: a bundle of another format");
    my ($id) = slurp("$dir/MANIFEST") =~ /^id (\S+)$/m or fail("$dir/MANIFEST: no id");
    $Mutate::Util::BUILD = "$dir/build";
    $d->{kernel} = "$dir/build/$d->{kernel}";
    $_->{file} = "$dir/$_->{file}" for @{ $d->{runs} };
    $_->{kernel} = "$dir/build/$_->{kernel}" for grep { $_->{kernel} } @{ $d->{mutants} };
    $d->{id} = $id;
    return $d;
}

1;
