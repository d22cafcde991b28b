# SPDX-License-Identifier: MIT
# mutate.pl report: results (shards) joined, the two scores, report.json, the HTML page, and the gate.
package Mutate::Report;
use strict;
use warnings;
use File::Path qw(make_path);
use JSON::PP;
use POSIX qw(floor);
use Mutate::Util;
use Mutate::Series;
use Mutate::Reasons;
use Mutate::Plots;
use Exporter qw(import);
our @EXPORT = qw(cmd_report);

sub html_escape { my $s = shift; $s =~ s/&/&amp;/g; $s =~ s/</&lt;/g; $s =~ s/>/&gt;/g; return $s }

sub cmd_report {
    my ($o, @inputs) = @_;
    @inputs or usage();
    my (%by_id, $total, $all, %gens, %diffs, %bases, %bundle);
    my ($secs, $bsecs, $rsecs) = (0, 0, 0);
    for my $in (@inputs) {
        my $d = eval { decode_json(slurp($in)) } or fail("$in: not a results file: $@");
        ref $d->{results} eq 'ARRAY' or fail("$in: no results");
        fail("$in: the partial results of a stopped run (run it again with --resume)") if $d->{partial};
        $gens{$d->{generation} // '?'} = 1;
        $diffs{$d->{diff} // ''} = 1;
        $bases{$d->{variant} // 'full'} = 1;
        $total //= $d->{mutants_total};
        ($d->{mutants_total} // -1) == $total or fail("$in: of another mutant set ($d->{mutants_total} mutants, not $total)");
        $secs += $d->{seconds}; $bsecs += $d->{build_seconds}; $rsecs += $d->{run_seconds};
        # Shards of one bundle (mutate.pl pack) share its build: it counts once.
        $bundle{$d->{bundle}{id}} = $d->{bundle}{build_seconds} if $d->{bundle};
        for my $r (@{ $d->{results} }) {
            $r->{verdict} =~ /^(killed|survived|timeout|not reached|equivalent|duplicate|not built|error)$/
                or fail("$in: $r->{id}: unknown verdict '$r->{verdict}'");
            fail("$in: $r->{id} is in two results") if $by_id{$r->{id}};
            $by_id{$r->{id}} = $r;
        }
    }
    for (values %bundle) { $bsecs += $_; $secs += $_ }
    keys %gens == 1 or fail('results of several generations: ' . join(' ', sort keys %gens));
    keys %diffs == 1 or fail('results of the mutants of several changes (--diff): ' . join(' ', map { $_ || 'none' } sort keys %diffs));
    keys %bases == 1 or fail('results judged by several variants: ' . join(' ', sort keys %bases));
    my ($base) = keys %bases;
    my $eq = read_reasons($o->{equivalent});
    my $g = (keys %gens)[0];
    my %c;
    my (@unexplained, @stale);
    for my $r (values %by_id) {
        my $why = reason_for($eq, $r->{id}, $r->{mutated} // '');
        my $unpinned = $why ? unpinned($g, $base, $why) : '';
        if ($eq->{$r->{id}} && !$why && $r->{verdict} ne 'killed') {
            # The id has a reason, but for another line (the series moved, or another generation's line has the id):
            # it does not explain this mutant.
            $r->{note} = "the reason at $o->{equivalent}:$eq->{$r->{id}}{where} is for another line, '$eq->{$r->{id}}{text}'";
        } elsif ($why && $r->{verdict} eq 'killed' && !$unpinned) {
            # A reason under an option the judging kernel does not pin is another kernel's (full's, where judge
            # kills): not stale here.
            push @stale, "$r->{id}: killed now, its reason at $o->{equivalent}:$why->{where} is stale";
        } elsif ($why && $unpinned && $r->{verdict} =~ /^(survived|timeout|not reached|error)$/) {
            # A mutant equivalent under an option that this generation's kernel does not pin may be a survivor there.
            $r->{note} = "the reason at $o->{equivalent}:$why->{where}: $unpinned";
        } elsif ($why && $r->{verdict} =~ /^(survived|timeout|not reached|error)$/) {
            # A reason explains a mutant that was run and not killed; TCE's verdicts stand on their own. An equivalent
            # one behaves as the original (under its option, which the judging kernel pins); a survivor is accepted,
            # not equivalent.
            $r->{verdict} = $why->{kind} eq 'equivalent' ? 'equivalent' : 'accepted';
            $r->{why} = $why->{why};
            $r->{option} = $why->{set} ? $why->{option} : "$why->{option}=n" if $why->{option};
        }
        push @unexplained, $r->{id} if $r->{verdict} =~ /^(survived|timeout|not reached|error)$/;
        $c{$r->{verdict}}++;
    }
    # Two scores. killed / built counts every mutant that was built. killed / (built - equivalent) leaves out the
    # mutants proven equivalent (TCE's, and those whose reason is of the kind equivalent, under an option the judging
    # kernel pins where the reason names one): they cannot be killed, so
    # a perfect suite scores 100 % on it; an accepted survivor stays in, a mutant not killed. The gate is on the
    # second. A duplicate (TCE: the code of another mutant) is one mutant counted twice: it is left out of both, as
    # one not built.
    my $scored = grep { $_->{verdict} ne 'not built' && $_->{verdict} ne 'duplicate' } values %by_id;
    my $score = $scored ? 100 * ($c{killed} // 0) / $scored : 0;
    my $nonequiv = $scored - ($c{equivalent} // 0);
    my $score_ne = $nonequiv ? 100 * ($c{killed} // 0) / $nonequiv : 0;
    my ($threshold, $target);
    for (split /\n/, slurp($o->{threshold})) {
        $threshold = $1 if /^score-non-equivalent\s+(\d+(?:\.\d+)?)\s*$/;
        $target = $1 if /^target\s+(\d+(?:\.\d+)?)\s*$/;
    }
    defined $threshold or fail("$o->{threshold}: no line 'score-non-equivalent PERCENT' (the gate's threshold)");
    my $out = $o->{out};
    make_path($out);
    my @res = sort { $a->{file} cmp $b->{file} || $a->{line} <=> $b->{line} || $a->{id} cmp $b->{id} } values %by_id;
    my $doc = { generation => $g, mutants => scalar @res, counts => \%c, score => sprintf('%.1f', $score),
                score_non_equivalent => sprintf('%.1f', $score_ne), built => $scored, non_equivalent => $nonequiv,
                threshold => $threshold + 0, defined $target ? (target => $target + 0) : (), seconds => $secs, build_seconds => $bsecs, run_seconds => $rsecs,
                per_hour => $secs > 0 ? floor(@res * 3600 / $secs) : 0, results => \@res };
    spew("$out/report.json", JSON::PP->new->canonical->pretty->encode($doc));
    write_html($o, "$out/index.html", \@res, $doc);
    printf "mutate: %s: %d mutants: %d killed, %d survived, %d timeout, %d equivalent (%d by TCE), %d accepted survivors, %d duplicate, %d not built, %d error\n",
        $g, scalar @res, map({ $c{$_} // 0 } 'killed', 'survived', 'timeout', 'equivalent'),
        scalar(grep { ($_->{why} // '') =~ /^TCE:/ && $_->{verdict} eq 'equivalent' } @res),
        map({ $c{$_} // 0 } 'accepted', 'duplicate', 'not built', 'error');
    printf "mutate: score %.1f%% of the built (%d of %d); %.1f%% of those not equivalent (%d of %d), the gate's: threshold %s%%%s\n",
        $score, $c{killed} // 0, $scored, $score_ne, $c{killed} // 0, $nonequiv, $threshold,
        defined $target ? ", target $target%" : '';
    printf "mutate: %.0f s (%d per hour): building %.0f s, running %.0f s\n", $secs, $doc->{per_hour}, $bsecs, $rsecs;
    print "mutate: report $out/report.json, $out/index.html\n";
    my $fail = 0;
    if (@stale) {
        print "mutate: a reason that does not match its mutant: $_\n" for sort @stale;
        $fail = 1;
    }
    if (@unexplained) {
        for my $id (sort @unexplained) {
            my $note = $by_id{$id}{note};
            print "mutate: not killed and no reason in $o->{equivalent}: $id" . ($note ? " ($note)" : '') . "\n";
        }
        $fail = 1;
    }
    if ($score_ne < $threshold) {
        printf "mutate: score over the mutants not equivalent %.2f%% below the threshold %s%%\n", $score_ne, $threshold;
        $fail = 1;
    }
    return $fail;
}

sub write_html {
    my ($o, $path, $res, $doc) = @_;
    my $g = $doc->{generation};
    my $pristine = pristine_tree($g);
    my ($stree) = series_tree($g, $pristine);
    my %at;
    push @{ $at{"$_->{file}:$_->{line}"} }, $_ for @$res;
    my %files = map { $_->{file} => 1 } @$res;
    my $h = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>umlbed mutate: $g</title>\n"
        . "<style>body{font-family:sans-serif} pre{margin:0} .l{white-space:pre;font-family:monospace}"
        . " .k{background:#dfd} .s{background:#fcc} .a{background:#fec} .e{background:#eee} .m{font-family:monospace;padding-left:4em;color:#800}</style>"
        . "</head><body>\n<h1>Mutants of the $g series</h1>\n"
        . sprintf('<p>%d mutants; score %s%% of the built, %s%% of those not equivalent (the gate\'s: threshold %s%%%s): %s.</p>',
                  $doc->{mutants}, $doc->{score}, $doc->{score_non_equivalent}, $doc->{threshold},
                  defined $doc->{target} ? ", target $doc->{target}%" : '',
                  join(', ', map { "$doc->{counts}{$_} $_" } sort keys %{ $doc->{counts} }))
        . plots_html(read_times($o->{times}), $doc)
        . "<h2>The series, line by line</h2>\n<p>Green lines: every mutant killed. Red: a mutant survived, shown under its line. Amber: a survivor accepted for"
        . " its reason. Grey: equivalent or not built.</p>\n";
    for my $f (sort keys %files) {
        $h .= '<h2>' . html_escape($f) . "</h2>\n<table>\n";
        my @l = split /\n/, slurp("$stree/$f");
        for my $n (1 .. @l) {
            my $ms = $at{"$f:$n"} // [];
            my $cls = !@$ms ? '' : (grep { $_->{verdict} =~ /^(survived|timeout|not reached|error)$/ } @$ms) ? 's'
                    : (grep { $_->{verdict} eq 'accepted' } @$ms) ? 'a'
                    : (grep { $_->{verdict} eq 'killed' } @$ms) ? 'k' : 'e';
            $h .= sprintf("<tr class=\"%s\"><td>%d</td><td class=\"l\">%s</td></tr>\n", $cls, $n, html_escape($l[$n - 1]));
            for my $m (grep { $_->{verdict} ne 'killed' } @$ms) {
                $h .= sprintf("<tr><td></td><td class=\"m\">%s %s: %s%s</td></tr>\n", html_escape($m->{verdict}),
                              html_escape($m->{id}), html_escape($m->{mutated} =~ s/^\s+//r),
                              $m->{why} ? ' (' . ($m->{option} ? html_escape($m->{option}) . ': ' : '')
                                          . html_escape($m->{why}) . ')' : '');
            }
        }
        $h .= "</table>\n";
    }
    spew($path, "$h</body></html>\n");
}

1;
