# SPDX-License-Identifier: MIT
# mutate.pl sample: a sample of a whole run's mutants judged twice, by the schema kernel and by a kbuild of each mutant alone, and the two verdicts compared.
#
# The sample is taken from a whole run's results (--from), every verdict of it represented: up to --per mutants of
# each verdict, spread evenly over the list, then more of the commonest verdicts until there are --size. Both runs
# judge exactly the sample (--only), so Trivial Compiler Equivalence finds the same duplicates on both sides. A
# difference in anything but the run that killed is a difference of the two methods: the exit status is 1.
package Mutate::Sample;
use strict;
use warnings;
use File::Path qw(make_path);
use JSON::PP;
use Mutate::Util;
use Exporter qw(import);
our @EXPORT = qw(cmd_sample choose_sample);

# choose_sample(RESULTS, PER, SIZE): the ids of the sample, in the results' order.
sub choose_sample {
    my ($results, $per, $size) = @_;
    my (%by, %take);
    push @{ $by{$_->{verdict}} }, $_->{id} for @$results;
    my @verdicts = sort { @{ $by{$b} } <=> @{ $by{$a} } || $a cmp $b } keys %by;
    my $spread = sub {
        my ($ids, $n) = @_;
        return @$ids if $n >= @$ids;
        return map { $ids->[int(($_ + 0.5) * @$ids / $n)] } 0 .. $n - 1;
    };
    $take{$_} = 1 for map { $spread->($by{$_}, $per) } @verdicts;
    # Then the commonest verdicts give more, evenly, until the sample has its size.
    for my $v (@verdicts) {
        last if keys %take >= $size;
        my @left = grep { !$take{$_} } @{ $by{$v} };
        $take{$_} = 1 for $spread->(\@left, $size - keys %take);
    }
    return grep { $take{$_} } map { $_->{id} } @$results;
}

sub cmd_sample {
    my ($o) = @_;
    my $from = $o->{from} // "$BUILD/mutate/$o->{gen}/all/results.json";
    my $d = eval { decode_json(slurp($from)) } or fail("$from: not a results file: $@");
    fail("$from: the partial results of a stopped run") if $d->{partial};
    fail("$from: results of generation $d->{generation}, not $o->{gen}") if $d->{generation} ne $o->{gen};
    my $variant = $o->{variant} // $d->{variant} // 'full';
    my @ids = choose_sample($d->{results}, $o->{per} // 10, $o->{size} // 40);
    my $out = $o->{out};
    make_path($out);
    spew("$out/sample.txt", join('', map { "$_\n" } @ids));
    my %of = map { $_->{id} => $_ } @{ $d->{results} };
    my %count;
    $count{ $of{$_}{verdict} }++ for @ids;
    note(scalar(@ids) . " mutants from $from: " . join(', ', map { "$count{$_} $_" } sort keys %count));
    my @base = ($^X, "$top/uml-kernel/mutate.pl", 'run', '--gen', $o->{gen}, '--variant', $variant,
                map { ('--only', $_) } @ids);
    push @base, '--all' if $d->{all};
    push @base, '--reach', $o->{reach} if defined $o->{reach};
    my %r;
    for my $m (qw(schema kbuild)) {
        my @cmd = (@base, $m eq 'kbuild' ? '--kbuild' : (), '--out', "$out/$m");
        note("the sample by the $m method: @cmd[2 .. 5] ... --out $out/$m");
        system(@cmd) == 0 or fail("the sample's $m run failed (exit " . ($? >> 8) . ")");
        $r{$m} = decode_json(slurp("$out/$m/results.json"));
    }
    my %v = map { my $m = $_; $m => { map { $_->{id} => $_ } @{ $r{$m}{results} } } } keys %r;
    my ($n, @diff) = (0);
    print "TAP version 13\n1.." . scalar(@ids) . "\n";
    for my $id (@ids) {
        $n++;
        my ($s, $k) = map { $v{$_}{$id} // { verdict => 'missing' } } qw(schema kbuild);
        my $say = sub { $_[0]{verdict} . ($_[0]{of} ? " of $_[0]{of}" : '') };
        my $same = $say->($s) eq $say->($k);
        push @diff, $id unless $same;
        printf "%s %d - %s: schema %s, kbuild %s (whole run: %s)\n", $same ? 'ok' : 'not ok', $n, $id, $say->($s),
            $say->($k), $of{$id}{verdict};
    }
    my %t = map { $_ => { seconds => $r{$_}{seconds}, build => $r{$_}{build_seconds}, run => $r{$_}{run_seconds},
                          kbuilds => $r{$_}{own_kbuilds} } } keys %r;
    spew("$out/compare.json", JSON::PP->new->canonical->pretty->encode({ generation => $o->{gen}, from => $from,
          sample => \@ids, differences => \@diff, times => \%t }));
    printf "# %d mutants: schema %.0f s (building %.0f, running %.0f), kbuild %.0f s (building %.0f in %d kbuilds, running %.0f)\n",
        scalar @ids, @{ $t{schema} }{qw(seconds build run)}, @{ $t{kbuild} }{qw(seconds build kbuilds run)};
    printf "# %d differences%s; %s\n", scalar @diff, @diff ? ": @diff" : '', "$out/compare.json";
    return @diff ? 1 : 0;
}

1;
