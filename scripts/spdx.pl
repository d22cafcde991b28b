#!/usr/bin/env perl
# SPDX-License-Identifier: MIT
# spdx.pl: adds the SPDX-License-Identifier line that a source file of the tree lacks, or lists what lacks one.
#
# usage: scripts/spdx.pl [--check | --list] [--top DIR] [FILE...]
#
# FILE is a path relative to the top of the tree (DIR, default this checkout); without FILEs, every file git tracks
# or would track (tracked, and new ones it does not ignore). Without an option each source file that has no SPDX
# line gets the line of its licence; a file whose line is there but says another licence, or sits elsewhere, is
# reported and left alone (a licence is changed by hand, in a commit that says why). --check changes nothing,
# prints each source file whose line is missing, wrong or misplaced, and exits 1 if there is one. --list prints
# each source file and the licence it should carry, one "FILE<TAB>IDENTIFIER" a line.
#
# The rules, which the README's "Licence" paragraph states in words (tests/lint.t holds the tree to them):
# - Source files are C (.c, .h), Lua, shell, Perl (.pl, .pm), the .t tests, Python, gdb scripts, YAML, Makefiles,
#   Kbuild files, templates of those (NAME.c.in) and every other file that starts with "#!". Documentation and
#   data (variants, generations, config fragments, series, corpus, thresholds, expected tables, test data) carry
#   no line: the README states their licence. A .patch file carries none either: it is a change to Linux's files,
#   under their licence, and the kernel files it adds carry the kernel's own line inside the patch.
# - The licence: GPL-2.0 for what is derived from Linux (the test modules of uml-kernel/modules and
#   tests/runner/kmod), GPL-2.0 OR MIT for the example module that users copy (examples/cluster-fs: the module and
#   its build files), MIT for everything else.
# - The line is the file's first, in its comment syntax, as the kernel places it
#   (Documentation/process/license-rules.rst): "// ..." in C files, "/* ... */" in headers, "-- ..." in Lua,
#   "# ..." elsewhere; it is the second line after a "#!" line, and after the "---@meta" line that Lua's language
#   server wants first.
use strict;
use warnings;
use File::Basename qw(dirname);
use Cwd qw(abs_path);

my $TAG = 'SPDX-License-Identifier:';

# The licence of each path: the first rule that matches; MIT when none does.
my @RULES = (
    [qr{^uml-kernel/modules/(?:[^/]+\.[ch]|Kbuild|Makefile)$}, 'GPL-2.0'],
    [qr{^tests/runner/kmod/},                                 'GPL-2.0'],
    [qr{^examples/cluster-fs/(?:[^/]+\.[ch]|Kbuild|Makefile)$}, 'GPL-2.0 OR MIT'],
);
my $DEFAULT = 'MIT';

my %SOURCE_EXT = map { $_ => 1 } qw(c h lua sh pl pm t py gdb yml yaml);

sub usage { print STDERR "usage: scripts/spdx.pl [--check | --list] [--top DIR] [FILE...]\n"; exit 2 }

# The kind of a file for its comment syntax (c, h, lua, hash), or undef when it is no source file.
sub kind {
    my ($path, $first) = @_;
    return undef if $path =~ m{^LICENSES/};
    (my $name = $path) =~ s{.*/}{};
    $name =~ s/\.in$//;
    my ($ext) = $name =~ /\.([^.\/]+)$/;
    if (defined $ext && $SOURCE_EXT{$ext}) {
        return $ext eq 'c' || $ext eq 'h' || $ext eq 'lua' ? $ext : 'hash';
    }
    return 'hash' if $name =~ /^(?:Makefile|Kbuild)$/ || $name =~ /\.mk$/;
    # A template is a source file only when what it makes is one; any other file is one when it runs as a script.
    return undef if $path =~ /\.in$/;
    return defined $first && $first =~ /^#!/ ? 'hash' : undef;
}

sub licence {
    my ($path) = @_;
    for my $r (@RULES) { return $r->[1] if $path =~ $r->[0] }
    return $DEFAULT;
}

sub line_for {
    my ($kind, $id) = @_;
    return "// $TAG $id" if $kind eq 'c';
    return "/* $TAG $id */" if $kind eq 'h';
    return "-- $TAG $id" if $kind eq 'lua';
    return "# $TAG $id";
}

sub slurp {
    my ($f) = @_;
    open my $h, '<:raw', $f or die "spdx: $f: $!\n";
    local $/;
    my $text = <$h>;
    return $text // '';
}

# What is wrong with FILE's line (a sentence), or '' when it is right; and the text with the line added, when it
# had none.
sub judge {
    my ($path, $text, $kind) = @_;
    my $want = line_for($kind, licence($path));
    my @lines = split /\n/, $text, -1;
    # The lines that must stay first: a #! line, Lua's ---@meta.
    my $at = @lines && ($lines[0] =~ /^#!/ || $lines[0] eq '---@meta') ? 1 : 0;
    # A line that is an SPDX line in some comment syntax, among the first ten (not a mention in a sentence).
    my ($found) = grep { $lines[$_] =~ m{^\s*(?://|/\*|--|#)\s*\Q$TAG\E} } 0 .. ($#lines < 9 ? $#lines : 9);
    if (defined $found) {
        return ("line " . ($found + 1) . " is \"$lines[$found]\", not \"$want\" on line " . ($at + 1), undef)
            if $found != $at || $lines[$found] ne $want;
        return ('', undef);
    }
    splice @lines, $at, 0, $want;
    push @lines, '' if @lines == 1;
    return ("no SPDX line (wants \"$want\" on line " . ($at + 1) . ")", join("\n", @lines));
}

my ($mode, $top) = ('add', abs_path(dirname(abs_path($0)) . '/..'));
while (@ARGV && $ARGV[0] =~ /^-/) {
    my $o = shift @ARGV;
    if ($o eq '--check') { $mode = 'check' }
    elsif ($o eq '--list') { $mode = 'list' }
    elsif ($o eq '--top') { $top = shift @ARGV // usage() }
    elsif ($o eq '-h' || $o eq '--help') {
        open my $h, '<', $0 or die "spdx: $0: $!\n";
        while (<$h>) { next if $. == 1 || /\Q$TAG\E/; last unless s/^# ?//; print }
        exit 0;
    }
    elsif ($o eq '--') { last }
    else { usage() }
}
chdir $top or die "spdx: $top: $!\n";

my @files = @ARGV;
unless (@files) {
    open my $g, '-|', 'git', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'
        or die "spdx: git ls-files: $!\n";
    local $/ = "\0";
    my %seen;
    @files = sort grep { !$seen{$_}++ } map { chomp; $_ } <$g>;
    close $g or die "spdx: git ls-files failed in $top (not a git checkout? name the FILEs)\n";
}

my ($bad, $added) = (0, 0);
for my $f (@files) {
    next if -l $f || !-f $f;
    my $text = slurp($f);
    my ($first) = $text =~ /\A([^\n]*)/;
    my $kind = kind($f, $first) // next;
    if ($mode eq 'list') { print "$f\t", licence($f), "\n"; next }
    my ($why, $new) = judge($f, $text, $kind);
    next if $why eq '';
    if ($mode eq 'add' && defined $new) {
        open my $h, '>:raw', $f or die "spdx: $f: $!\n";
        print $h $new;
        close $h or die "spdx: $f: $!\n";
        $added++;
        next;
    }
    print "$f: $why\n";
    $bad++;
}
print STDERR "spdx: added the line to $added files\n" if $mode eq 'add';
exit($bad ? 1 : 0);
