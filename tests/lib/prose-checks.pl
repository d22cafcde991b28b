#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# prose-checks.pl: counts the shell tests' checks that match umlbed's text for people by a pattern (a review aid).
#
# tests/lib/prose-checks.pl [-v] [-j] FILE|REV:PATH...
# A prose check is a result line (check or ok) whose command matches a pattern (grep, awk, sed, in_block) against
# umlbed's TAP output or its standard error, as a test captured them ($T/out, $T/err, copies of them); with -j, one
# that matches text in the diag or print field of the JSON report instead. Lines joined by a backslash and quoted
# arguments over several lines count as one check; a check in a loop counts once. -v prints each. REV:PATH reads a
# file as commit REV has it, e.g. tests/lib/prose-checks.pl $(git ls-tree -r --name-only 2aa2dfb tests | grep
# '\.t$' | sed 's/^/2aa2dfb:/').
use strict; use warnings;
my ($v, $jmode) = (0, 0);
while (@ARGV && $ARGV[0] =~ /^-[vj]$/) { my $o = shift; $v = 1 if $o eq '-v'; $jmode = 1 if $o eq '-j'; }
# Where the runner's TAP and stderr land: run/grun's $T/out and $T/err, copies of them, other captures of umlbed's
# output, and in_block/block (which read $T/out).
my $src = qr{\$T/(?:out|err|tap\w*|m\.out|ns-out|ns-err|bench\.out|cmp\w*\.out)\b(?!/)|\$m/(?:out|err)\b|\bin_block\b|\bblock\b};
my $match = qr{\b(?:grep|egrep|awk|sed|in_block|block)\b};
# Text matched in the JSON report's diag and print fields.
my $jsrc = qr{\bdiag_has\b|\bdiag_re\b|\.diag\b[^\n]*\b(?:contains|test|scan)\(|\.print\b[^\n]*\b(?:contains|test|scan)\(|"diag"|\{diag\}|x\.get\("diag"\)};
# Whether a shell line leaves a single-quoted string open: quotes inside double quotes do not count.
sub open_quote {
  my ($t) = @_;
  my ($q, $dq) = (0, 0);
  for (my $k = 0; $k < length $t; $k++) {
    my $c = substr($t, $k, 1);
    if ($q) { $q = 0 if $c eq "'"; next }
    if ($c eq '\\') { $k++; next }
    if ($dq) { $dq = 0 if $c eq '"'; next }
    if ($c eq '"') { $dq = 1 } elsif ($c eq "'") { $q = 1 } elsif ($c eq '#' && ($k == 0 || substr($t, $k - 1, 1) =~ /\s/)) { last }
  }
  return $q;
}
my $total = 0;
for my $f (@ARGV) {
  my $text = $f =~ /^(\w+):(.*)$/ ? `git show $f` : do { local $/; open my $h, '<', $f or die "$f: $!"; <$h> };
  next unless $text =~ /\A#!.*\b(?:sh|bash)\b/;
  $text =~ s/\\\n/ /g;
  # A check's command may go on in a quoted argument over several lines (perl -e '...', python3 -c '...').
  my @lines = split /\n/, $text;
  my $n = 0;
  for (my $i = 0; $i < @lines; $i++) {
    my $line = $lines[$i];
    next unless $line =~ /^\s*(?:check|ok)\s/;
    my $all = $line;
    while (open_quote($all) && $i + 1 < @lines) { $all .= "\n" . $lines[++$i]; }
    my $hit = $jmode ? $all =~ $jsrc : ($all =~ $match && $all =~ $src);
    next unless $hit;
    $n++;
    print "$f: $line\n" if $v;
  }
  printf "%4d %s\n", $n, $f;
  $total += $n;
}
print "$total total\n";
