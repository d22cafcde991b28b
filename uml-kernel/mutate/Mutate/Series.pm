# SPDX-License-Identifier: MIT
# The series' lines: its patches (from the generation's files, through uml-kernel/generation.sh), applied alone to
# copies of the pristine files, as they were at a git revision, and the mutants of the lines it adds or changes.
package Mutate::Series;
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Path qw(make_path);
use File::Temp qw(tempdir);
use Mutate::Util;
use Mutate::Operators qw(file_mutants);
use Exporter qw(import);
our @EXPORT = qw(series_tree git_show changed_lines line_map mutants shard_of fragments pristine_tree);

# ---- The series' lines ----

# gen_lines(ARG...): the lines generation.sh prints for ARG..., or a failure naming them.
sub gen_lines {
    open(my $h, '-|', $gen_sh, @_) or fail("$gen_sh: $!");
    my @l = <$h>;
    close($h) or fail("generation.sh @_ failed");
    chomp @l;
    return @l;
}

# series_list(DIR): the patches of the series folder DIR (from the top, or absolute), in order, as paths, as
# generation.sh reads its series file.
sub series_list {
    my ($dir) = @_;
    return map { m{^/} ? $_ : "$top/$_" } gen_lines('series', $dir);
}

# series_patches(GEN): the generation's series' patches in order.
sub series_patches {
    my ($g) = @_;
    return series_list(gen_get($g, 'series'));
}

sub touched {
    my @f;
    for my $p (@_) {
        my $t = slurp($p);
        push @f, $1 while $t =~ m{^\+\+\+ b/(\S+)}mg;
    }
    my %seen;
    return grep { !$seen{$_}++ } @f;
}

# apply_series(PRISTINE, PATCH...): a scratch tree with the patches alone applied to copies of the files they touch,
# and the .c files among them.
sub apply_series {
    my ($pristine, @patches) = @_;
    my $tmp = tempdir('umlbed-mutate-series.XXXXXX', TMPDIR => 1, CLEANUP => 1);
    for my $f (touched(@patches)) {
        next unless -e "$pristine/$f";
        make_path(dirname("$tmp/$f"));
        system('cp', "$pristine/$f", "$tmp/$f") == 0 or fail("cp $f");
    }
    for my $p (@patches) {
        system('patch', '-d', $tmp, '-p1', '-s', '--no-backup-if-mismatch', '-i', $p) == 0
            or fail("$p does not apply to the pristine files");
    }
    return ($tmp, grep { /\.c$/ } touched(@patches));
}

# series_tree(GEN, PRISTINE): a scratch tree with the series alone applied to copies of the files it touches.
sub series_tree {
    my ($g, $pristine) = @_;
    return apply_series($pristine, series_patches($g));
}

# git_show(REV, PATH): the file PATH of the checkout at revision REV, or undef when REV has no such file.
sub git_show {
    my ($rev, $path) = @_;
    my $pid = open(my $h, '-|') // fail("fork: $!");
    if (!$pid) {
        open(STDERR, '>', '/dev/null');
        exec('git', '-C', $top, 'show', "$rev:$path") or exit 127;
    }
    local $/;
    my $t = <$h>;
    return close($h) ? $t : undef;
}

# series_at(GEN, PRISTINE, REV): a scratch tree with the generation's series as it was at the git revision REV
# applied alone to copies of the pristine files (empty when REV has no such series: every line of the series is
# then new).
sub series_at {
    my ($g, $pristine, $rev) = @_;
    my $dir = gen_get($g, 'series');
    my $pdir = tempdir('umlbed-mutate-rev.XXXXXX', TMPDIR => 1, CLEANUP => 1);
    return $pdir if system('sh', '-c', 'git -C "$1" cat-file -e "$2" 2>/dev/null', 'sh', $top, "$rev:$dir/series");
    # The series folder as REV had it, read by generation.sh as the working tree's is.
    system('sh', '-c', 'git -C "$1" archive "$2" "$3" | tar -x -C "$4"', 'sh', $top, $rev, $dir, $pdir) == 0
        or fail("$rev:$dir: cannot extract it");
    my ($tree) = apply_series($pristine, series_list("$pdir/$dir"));
    return $tree;
}

# changed_lines(OLD, NEW): the line numbers of NEW that diff -U0 shows as added or changed (all, for a new file).
sub changed_lines {
    my ($old, $new) = @_;
    my %l;
    if (!-e $old) {
        my $n = () = slurp($new) =~ /\n/g;
        $l{$_} = 1 for 1 .. $n;
        return \%l;
    }
    open(my $d, '-|', 'diff', '-U0', $old, $new) or fail("diff: $!");
    while (<$d>) {
        next unless /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/;
        my ($s, $n) = ($1, $2 // 1);
        $l{$_} = 1 for $s .. $s + $n - 1;
    }
    close $d;
    return \%l;
}

# line_map(A, B): for each line of A that diff leaves unchanged in B, its number in B.
sub line_map {
    my ($a, $b) = @_;
    my ($na) = scalar(() = slurp($a) =~ /\n/g);
    my (%map, @hunks);
    open(my $d, '-|', 'diff', '-U0', $a, $b) or fail("diff: $!");
    while (<$d>) {
        push @hunks, [$1, $2 // 1, $3, $4 // 1] if /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
    }
    close $d;
    my ($ia, $ib) = (1, 1);
    for my $h (@hunks) {
        my ($sa, $la, $sb, $lb) = @$h;
        # A pure insertion's old start names the line before it; a deletion's new start likewise.
        my $enda = $la ? $sa : $sa + 1;
        while ($ia < $enda) { $map{$ia++} = $ib++ }
        $ia += $la;
        $ib = ($lb ? $sb : $sb + 1) + $lb;
    }
    while ($ia <= $na) { $map{$ia++} = $ib++ }
    return \%map;
}

# pristine_tree(GEN): the pristine source tree of the generation (build.sh --tree extracts it once), by its real
# path: a tree reached through a symbolic link (a build folder sharing another's sources) would be copied as the link
# by build.sh's cp -al, and patched through it.
my %pristine;
sub pristine_tree {
    my ($g) = @_;
    return $pristine{$g} //= do {
        my $p = `"$top/uml-kernel/build.sh" --tree "$g"`;
        $? == 0 or fail("no pristine tree of $g");
        chomp $p;
        abs_path($p) // fail("$p: $!");
    };
}

# mutants(GEN, ALL, DIFF): every mutant of the generation's series, in file and line order; with DIFF (a git
# revision), only those on the lines that the change of the series from DIFF to the working tree touched.
sub mutants {
    my ($g, $all, $diff) = @_;
    my $pristine = pristine_tree($g);
    my ($stree, @files) = series_tree($g, $pristine);
    my $before = defined $diff ? series_at($g, $pristine, $diff) : undef;
    my @out;
    for my $f (@files) {
        my $lines = changed_lines("$pristine/$f", "$stree/$f");
        if ($before) {
            # The lines the series' change touched: those of the file the series gave at DIFF (the pristine one
            # where the series did not touch it then) that differ now.
            my $old = -e "$before/$f" ? "$before/$f" : "$pristine/$f";
            my $touched = changed_lines($old, "$stree/$f");
            $lines = { map { $_ => 1 } grep { $touched->{$_} } keys %$lines };
        }
        push @out, file_mutants($f, "$stree/$f", $lines, $all);
    }
    return (\@out, $stree, $pristine);
}

sub shard_of {
    my ($list, $spec) = @_;
    return @$list unless $spec;
    my ($k, $n) = $spec =~ m{^(\d+)/(\d+)$} or fail("--shard wants K/N, not '$spec'");
    ($n >= 1 && $k >= 1 && $k <= $n) or fail("--shard $spec: K must be 1..N");
    return map { $list->[$_] } grep { $_ % $n == $k - 1 } 0 .. $#$list;
}

# fragments(GEN, BASE): the config fragments of the kernel that judges the generation's mutants, its variant BASE
# (full unless --variant says), in the order uml-kernel/build.sh merges them (the shared ones, debug.config unless
# DEBUG=0, the generation's, the variant's).
sub fragments {
    my ($g, $base) = @_;
    my $cdir = "$top/uml-kernel/config";
    my @f = ('umlbed.config');
    push @f, 'debug.config' if ($ENV{DEBUG} // 1) eq '1';
    my $gc = gen_get($g, 'config');
    push @f, $gc if $gc ne 'none';
    # The variant's own, as generation.sh resolves the name (its file names no generation: the same fragments on each).
    push @f, gen_lines('configs', $base . gen_get($g, 'suffix'));
    return map { "$cdir/$_" } @f;
}

# pinned(GEN, BASE, OPTION): the value ("n" when not set) the fragments of the kernel that judges GEN's mutants (its
# variant BASE) give OPTION, and the fragment that gives it (the last one that names it, as merge_config.sh takes

1;
