#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# c-functions.pl MAX FILE...: every C function (in the project's style: its head at column 0, its closing brace
# alone at column 0) longer than MAX lines, head to closing brace, as FILE:LINE NAME LINES; exit 1 if there is one.
use strict;
use warnings;

my $max = shift // die "usage: c-functions.pl MAX FILE...\n";
my $over = 0;
for my $file (@ARGV) {
    open my $fh, '<', $file or die "$file: $!\n";
    my ($head, $name, $in) = (0, '', 0);
    while (my $line = <$fh>) {
        my $n = $.;
        if ($in) {
            next unless $line =~ /^\}/;
            my $len = $n - $head + 1;
            if ($len > $max) {
                print "$file:$head $name $len\n";
                $over++;
            }
            ($in, $head) = (0, 0);
            next;
        } elsif (!$head && $line =~ /^[A-Za-z_][\w\s\*,]*?\b(\w+)\s*\(/ && $line !~ /^(?:typedef|struct|enum|union|#)/) {
            # A head at column 0: it opens a body where its parameter list ends with "{", or is a declaration.
            ($head, $name) = ($n, $1);
        }
        if ($head && !$in) {
            if ($line =~ /;\s*$/) {
                $head = 0;
            } elsif ($line =~ /\)\s*(?:__attribute__\S*\s*)?\{\s*$/) {
                $in = 1;
            }
        }
    }
}
exit($over ? 1 : 0);
