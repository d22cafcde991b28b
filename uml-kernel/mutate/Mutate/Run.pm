# SPDX-License-Identifier: MIT
# mutate.pl run: the run prepared (one schema kernel for every mutant), then the mutants judged by a pool of workers, each on the runs that reach it; results.json after each mutant.
package Mutate::Run;
use strict;
use warnings;
use File::Path qw(make_path);
use JSON::PP;
use List::Util qw(max);
use POSIX qw(ceil);
use Time::HiRes qw(time);
use Mutate::Util;
use Mutate::Series;
use Mutate::Build;
use Mutate::Judge;
use Mutate::Prepare;
use Mutate::Reasons qw(read_reasons);
use Mutate::Pack qw(load_bundle);
use Exporter qw(import);
our @EXPORT = qw(cmd_run judge_all);

my @FIELDS = qw(id file line op function original mutated num);

# order(NAMES, LINE, FUNC, KILLS, DUR): a mutant's runs, those that killed most mutants of its own line first, then
# of its function, then of any line, then the quickest. A line's mutants break the same code, so the run that
# killed one is the likeliest to kill the next (PIT orders its tests by such history too).
sub order {
    my ($names, $line, $func, $kills, $dur) = @_;
    my %key = map { $_ => [$line->{$_} // 0, $func->{$_} // 0, $kills->{$_} // 0, $dur->{$_} // 0] } @$names;
    return sort {
        my ($x, $y) = @key{$a, $b};
        $y->[0] <=> $x->[0] || $y->[1] <=> $x->[1] || $y->[2] <=> $x->[2] || $x->[3] <=> $y->[3] || $a cmp $b
    } @$names;
}

# judge_all(O, PREP, LIST, OUT, DOC, DONE, PREV): each mutant of LIST judged (those with a verdict from the
# preparation keep it); results.json written after each. Returns the results in list order.
sub judge_all {
    my ($o, $prep, $list, $out, $doc, $done, $prev) = @_;
    my %dur = map { $_->{name} => $_->{seconds} } @{ $prep->{runs} };
    my %file = map { $_->{name} => $_->{file} } @{ $prep->{runs} };
    my @all_runs = map { $_->{name} } @{ $prep->{runs} };
    my $eq = read_reasons($o->{equivalent});
    # The kills of each run: of every mutant, and of the mutants of each line and of each function.
    my (%kills, %kills_line, %kills_func, %res);
    my $t0 = time;
    my $write = sub {
        my ($partial) = @_;
        my @r = map { $res{$_->{id}} // () } @$list;
        spew("$out/results.json", JSON::PP->new->canonical->pretty->encode({ %$doc, $partial ? (partial => JSON::PP::true) : (),
              seconds => sprintf('%.1f', time - $t0 + $prev->{seconds}),
              run_seconds => sprintf('%.1f', time - $t0 + $prev->{run_seconds}), results => \@r }));
        return @r;
    };
    my $report = sub {
        my ($r) = @_;
        $res{$r->{id}} = $r;
        if ($r->{killed_by}) {
            my $by = $r->{killed_by}[0]{name};
            $kills{$by}++;
            $kills_line{"$r->{file}:$r->{line}"}{$by}++;
            $kills_func{"$r->{file}:" . ($r->{function} // '')}{$by}++;
        }
        $write->(1);
        printf "%s %s%s\n", $r->{verdict}, $r->{id}, $r->{killed_by} ? " by $r->{killed_by}[0]{name}" : '';
        return unless -t STDERR;
        my %c;
        $c{$_->{verdict}}++ for values %res;
        my $n = keys %res;
        printf STDERR "\rmutate: %d/%d done, %d killed, %d survived, %d timeout, %d not built; about %d s left ",
            $n, scalar @$list, $c{killed} // 0, $c{survived} // 0, $c{timeout} // 0, $c{'not built'} // 0,
            (time - $t0) / $n * (@$list - $n);
    };
    # The mutants with a reason (equivalents, accepted survivors) are the likeliest to run every run that reaches
    # them: they start first, so that no long one is left alone at the end.
    my @todo;
    for my $m (sort { (!$eq->{$a->{id}}) <=> (!$eq->{$b->{id}}) } @$list) {
        if ($done->{$m->{id}}) { $res{$m->{id}} = $done->{$m->{id}}; next }
        my %r = map { $_ => $m->{$_} } grep { defined $m->{$_} } @FIELDS, qw(verdict why of own);
        if ($m->{verdict}) { $report->(\%r); next }
        push @todo, { r => \%r, m => $m, runs => sub {
            my @names = order($m->{runs} // \@all_runs, $kills_line{"$m->{file}:$m->{line}"} // {},
                              $kills_func{"$m->{file}:" . ($m->{function} // '')} // {}, \%kills, \%dur);
            # The runs that killed before go one after the other (most mutants die there), at most three.
            my $first = grep { $kills{$_} } @names[0 .. ($#names < 2 ? $#names : 2)];
            return ([map { { name => $_, file => $file{$_}, timeout => $o->{timeout} // max(10, ceil(10 * ($dur{$_} || 1))) } } @names],
                    $first);
        } };
    }
    judge_pool({ kernel => $prep->{kernel}, dir => "$out/runs", log => "$out/runs.log", slots => workers() }, \@todo, $report);
    print STDERR "\n" if -t STDERR;
    return $write->(0);
}

# run_bundle(O): a shard judged from an unpacked bundle (mutate.pl pack): the preparation is the bundle's.
sub run_bundle {
    my ($o) = @_;
    my $d = load_bundle($o->{bundle});
    my @list = shard_of($d->{mutants}, $o->{shard});
    my $out = $o->{out};
    make_path($out);
    my %doc = (generation => $d->{generation}, shard => $o->{shard} // '1/1', all => $d->{all} ? JSON::PP::true : JSON::PP::false,
               mutants_total => $d->{mutants_total}, variant => $d->{variant}, method => 'schema', build_seconds => 0,
               bundle => { id => $d->{id}, build_seconds => sprintf('%.1f', $d->{times}{tree} + $d->{times}{tce} + $d->{times}{schema} + $d->{times}{own}) },
               own_kbuilds => $d->{own_kbuilds}, reach => $d->{reach}, workers => workers(),
               defined $d->{diff} ? (diff => $d->{diff}) : ());
    my %prev = (seconds => 0, build_seconds => 0, run_seconds => 0);
    my @res = judge_all($o, $d, \@list, $out, \%doc, {}, \%prev);
    my $r = decode_json(slurp("$out/results.json"));
    printf "mutate: %d mutants of bundle %s in %.0f s; %s\n", scalar @list, $d->{id}, $r->{seconds}, "$out/results.json";
    return 0;
}

sub cmd_run {
    my ($o) = @_;
    return run_bundle($o) if defined $o->{bundle};
    my $g = $o->{gen};
    my ($sel, $stree, $all) = selection($o);
    # A shard deals the whole list (the same on every machine), then --only keeps some of its mutants.
    my %in = map { $_->{id} => 1 } @$sel;
    my @list = grep { $in{$_->{id}} } shard_of($all, $o->{shard});
    my $out = $o->{out};
    make_path($out);
    my %doc = (generation => $g, shard => $o->{shard} // '1/1', all => $o->{all} ? JSON::PP::true : JSON::PP::false,
               mutants_total => scalar @$all, variant => $o->{variant}, method => $o->{kbuild} ? 'kbuild' : 'schema',
               defined $o->{diff} ? (diff => $o->{diff}) : ());
    if (!@list) {
        # A shard that holds none of the mutants asked for: an empty result, which joins the others.
        spew("$out/results.json", JSON::PP->new->canonical->pretty->encode({ %doc, seconds => 0, build_seconds => 0,
              run_seconds => 0, reach => JSON::PP::false, results => [] }));
        print "mutate: no mutant in this shard" . (defined $o->{diff} ? " on the lines changed since $o->{diff}" : '')
            . "; $out/results.json\n";
        return 0;
    }
    my $log = "$out/log.txt";
    unlink $log;
    # --resume: a mutant that an earlier run in DIR judged keeps its result, if it is the same mutant (same id,
    # same line, same change): a stopped run goes on, and after a generator or series change only what changed runs.
    my (%done, %prev);
    $prev{$_} = 0 for qw(seconds build_seconds run_seconds);
    if ($o->{resume} && -f "$out/results.json") {
        my $old = eval { decode_json(slurp("$out/results.json")) } // {};
        my %now = map { $_->{id} => $_ } @list;
        for my $r (@{ $old->{results} // [] }) {
            my $m = $now{$r->{id}} or next;
            $done{$r->{id}} = $r if $m->{original} eq $r->{original} && $m->{mutated} eq $r->{mutated};
        }
        note(scalar(keys %done) . " mutants judged already ($out/results.json)");
        # Their time counts: the figures stay those of judging the whole set.
        $prev{$_} = $old->{$_} // 0 for qw(seconds build_seconds run_seconds);
    }
    my $t0 = time;
    my $prep = prepare($o, $sel, $stree, \@list, $out, $log);
    my $tb = $prep->{times}{tree} + $prep->{times}{tce} + $prep->{times}{schema} + $prep->{times}{own};
    $doc{build_seconds} = sprintf('%.1f', $tb + $prev{build_seconds});
    $doc{times} = { map { $_ => sprintf('%.1f', $prep->{times}{$_}) } keys %{ $prep->{times} } };
    $doc{own_kbuilds} = $prep->{own_kbuilds};
    $doc{reach} = $prep->{reach} =~ /^no / ? JSON::PP::false : $prep->{reach};
    $doc{workers} = workers();
    # The time before the judging counts: the baseline as running, the rest as building; waiting for the machine's
    # kernel-build lock does not.
    my $pre = time - $t0 - $prep->{times}{lock_wait};
    $prev{seconds} += $pre;
    $prev{run_seconds} += $prep->{times}{baseline};
    my @res = judge_all($o, $prep, \@list, $out, \%doc, \%done, \%prev);
    my $doc = decode_json(slurp("$out/results.json"));
    printf "mutate: %d mutants in %.0f s (%.0f per hour): building %.0f s (%d kernels of their own), running %.0f s; %s\n",
        scalar @list, $doc->{seconds}, $doc->{seconds} > 0 ? @list * 3600 / $doc->{seconds} : 0, $doc->{build_seconds},
        $prep->{own_kbuilds}, $doc->{run_seconds}, "$out/results.json";
    return 0;
}

1;
