#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# corpus.t: the agent tests' Perl client (UmbAgent's pct and unpct) against the codec corpus the C tests read too.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use Test::More;
use UmbAgent;

my $path = UmbAgent::repo_root() . '/tests/data/codec-corpus';
open(my $fh, '<', $path) or BAIL_OUT("cannot read $path: $!");
sub bytes { my ($h) = @_; return $h eq '-' ? '' : pack('H*', $h) }
my $cases = 0;
while (my $line = <$fh>) {
    next if $line =~ /^(#|\s*$)/;
    my ($kind, $a, $b) = split ' ', $line;
    # The Perl client reads no number or ID fields: those cases are the C tests' alone.
    next if $kind eq 'number' || $kind eq 'id';
    $cases++;
    if ($kind eq 'encode') {
        is(UmbAgent::pct(bytes($a)), $b, "line $.: encode $a gives $b");
        is(UmbAgent::unpct($b), bytes($a), "line $.: decode $b gives $a back");
    } elsif ($kind eq 'decode') {
        is(UmbAgent::unpct($a), bytes($b), "line $.: decode $a gives $b");
    } elsif ($kind eq 'refuse') {
        is(UmbAgent::unpct(bytes($a)), undef, "line $.: a field of bytes $a is refused");
    } else {
        fail("line $.: unknown kind $kind");
    }
}
cmp_ok($cases, '>=', 20, "the corpus has the codec's cases ($cases)");
done_testing();
