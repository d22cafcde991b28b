#!/usr/bin/env perl
# SPDX-License-Identifier: MIT
# Times the phases of make check (kernel builds, runner passes, the prove run and each of its test files) and prints and writes their table.
#
# usage: scripts/phases.pl start LOG
#        scripts/phases.pl run LOG NAME -- CMD...     runs CMD, appends its wall seconds and exit status to LOG
#        scripts/phases.pl report LOG JSON [STATE...] the table, on stdout and as JSON; STATE is a prove --statefile
#
# LOG holds one JSON object a line, so that a phase that fails still leaves the ones before it, and a make that
# stops half way can still be reported. A prove state file (prove --state=save --statefile=FILE) gives each test
# file's own wall seconds; those rows are listed under their prove phase. The JSON has every row, the phases'
# total, the ten largest items and, when UMLBED_BUDGET names a budget file (tests/budget), the budget it is held to.
use strict;
use warnings;
use JSON::PP;
use Time::HiRes qw(time);
use TAP::Parser::YAMLish::Reader;

sub slurp { my ($f) = @_; open my $h, '<', $f or die "phases: $f: $!\n"; local $/; return scalar <$h> }

sub append {
    my ($log, $row) = @_;
    open my $h, '>>', $log or die "phases: $log: $!\n";
    print $h JSON::PP->new->canonical->encode($row), "\n";
    close $h or die "phases: $log: $!\n";
}

my $cmd = shift // '';
if ($cmd eq 'start') {
    my $log = shift or die "usage: phases.pl start LOG\n";
    open my $h, '>', $log or die "phases: $log: $!\n";
    close $h;
    exit 0;
}
if ($cmd eq 'run') {
    my ($log, $name, $dash, @run) = @ARGV;
    die "usage: phases.pl run LOG NAME -- CMD...\n" unless defined $dash && $dash eq '--' && @run;
    my $t0 = time;
    my $rc = system { $run[0] } @run;
    my $status = $rc == -1 ? 127 : $rc & 127 ? 128 + ($rc & 127) : $rc >> 8;
    my $t1 = time;
    append($log, { phase => $name, seconds => 0 + sprintf('%.1f', $t1 - $t0), status => $status,
                   start => 0 + sprintf('%.1f', $t0), end => 0 + sprintf('%.1f', $t1) });
    exit $status;
}
if ($cmd ne 'report') {
    die "usage: phases.pl start LOG | run LOG NAME -- CMD... | report LOG JSON [STATE...]\n";
}

my ($log, $json, @states) = @ARGV;
die "usage: phases.pl report LOG JSON [STATE...]\n" unless defined $json;
my @phases = map { decode_json($_) } grep { /\S/ } split /\n/, slurp($log);

# Each test file's elapsed time from a prove state file (YAMLish, as App::Prove::State writes it).
my @files;
for my $s (@states) {
    next unless -f $s;
    my @lines = split /\n/, slurp($s);
    my $doc = TAP::Parser::YAMLish::Reader->new->read(sub { shift @lines });
    my $tests = $doc->{tests} // {};
    for my $t (sort keys %$tests) {
        my $r = $tests->{$t};
        # Only the files of the state file's last run: it keeps older runs' entries too.
        next unless defined $r->{elapsed} && ($r->{gen} // -1) == ($doc->{generation} // -2);
        push @files, { file => $t, seconds => 0 + sprintf('%.1f', $r->{elapsed}),
                       status => ($r->{last_result} // 0) ? 1 : 0 };
    }
}

# The wall time from the first phase's start to the last one's end: a phase that runs beside others (the runner's
# sanitizer build) is not counted twice. A log of rows without times (an older one) adds the phases up.
my $total = 0;
if (@phases && !grep { !defined $_->{start} } @phases) {
    my ($s, $e) = ($phases[0]{start}, $phases[0]{end});
    for (@phases) { $s = $_->{start} if $_->{start} < $s; $e = $_->{end} if $_->{end} > $e }
    $total = $e - $s;
} else {
    $total += $_->{seconds} for @phases;
}
my @items = ((map { { name => $_->{phase}, seconds => $_->{seconds} } } grep { $_->{phase} !~ /^prove/ } @phases),
             (map { { name => $_->{file}, seconds => $_->{seconds} } } @files));
my @top = (sort { $b->{seconds} <=> $a->{seconds} } @items)[0 .. 9];
@top = grep { defined } @top;

printf "\n%-58s %9s  %s\n", 'phase of make check', 'seconds', 'status';
for my $p (@phases) {
    printf "%-58s %9.1f  %s\n", $p->{phase}, $p->{seconds}, $p->{status} ? "exit $p->{status}" : 'ok';
    next unless $p->{phase} =~ /^prove/;
    printf "  %-56s %9.1f  %s\n", $_->{file}, $_->{seconds}, $_->{status} ? 'not ok' : 'ok'
        for sort { $b->{seconds} <=> $a->{seconds} } @files;
}
printf "%-58s %9.1f\n", 'total (wall)', $total;
print "the ten largest items: ", join(', ', map { "$_->{name} $_->{seconds} s" } @top), "\n";

my %doc = (phases => \@phases, files => \@files, total_seconds => 0 + sprintf('%.1f', $total), largest => \@top);
open my $h, '>', "$json.tmp" or die "phases: $json.tmp: $!\n";
print $h JSON::PP->new->canonical->pretty->encode(\%doc);
close $h or die "phases: $json.tmp: $!\n";
rename "$json.tmp", $json or die "phases: $json: $!\n";
print "phases: $json\n";
