# SPDX-License-Identifier: MIT
# The mutation driver's shared helpers: where the checkout and the build are, messages, files, the generation's keys.
package Mutate::Util;
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use Exporter qw(import);
our @EXPORT = qw($top $BUILD $gen_sh usage fail note gen_get slurp spew);

our $top = abs_path(dirname(abs_path(__FILE__)) . '/../../..');
our $BUILD = $ENV{BUILD} // "$top/build";
our $gen_sh = "$top/uml-kernel/generation.sh";

sub usage { print STDERR "usage: mutate.pl list|run|file|tce|reasons|report [--gen GEN] [--all] [--diff REV] [--shard K/N] [--only ID]... [--out DIR] [--timeout S] [RESULTS.json...] (mutate.pl --help)\n"; exit 2 }
sub fail { print STDERR "mutate: @_\n"; exit 2 }
sub note { print STDERR "mutate: @_\n" }

# gen_get(GEN, KEY): a key of the generation's file, read once.
my %gen_cache;
sub gen_get {
    my ($g, $key) = @_;
    return $gen_cache{"$g\t$key"} //= do {
        my $v = `"$gen_sh" get "$g" "$key"`;
        $? == 0 or fail("generation $g has no key $key");
        chomp $v;
        $v;
    };
}

sub slurp {
    my ($f) = @_;
    open(my $h, '<', $f) or fail("$f: $!");
    local $/;
    my $t = <$h>;
    return $t;
}

sub spew {
    my ($f, $t) = @_;
    open(my $h, '>', "$f.tmp") or fail("$f.tmp: $!");
    print $h $t;
    close $h or fail("$f.tmp: $!");
    rename "$f.tmp", $f or fail("$f: $!");
}

1;
