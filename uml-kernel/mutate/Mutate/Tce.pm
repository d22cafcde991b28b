# SPDX-License-Identifier: MIT
# Each mutant's own object, compiled without a link: whether it builds, and Trivial Compiler Equivalence (its code is the original's, or an earlier mutant's).
#
# A mutant's file is the original with its one line changed, compiled by kbuild's own command for that object (the
# tree's .cmd file) into a folder of the worker's own (BUILD/mutate/kernel/VARIANT/tce/wN), with ccache. The file's
# path is mapped away (-fmacro-prefix-map), so __FILE__ is the same in every worker and the code of two workers'
# objects compares; each worker compiles the original first, its baseline. A mutant's worker is its place in the list
# modulo the workers: a second run on the same machine gives each compile to the worker whose ccache entry it is.
package Mutate::Tce;
use strict;
use warnings;
use Digest::SHA;
use File::Basename qw(dirname);
use File::Path qw(make_path remove_tree);
use JSON::PP;
use Mutate::Util;
use Mutate::Build;
use Exporter qw(import);
our @EXPORT = qw(tce_all compile_command);

# compile_command(VDIR, FILE): kbuild's command line for FILE's object, as its words (the shell splits the .cmd line).
sub compile_command {
    my ($vdir, $file) = @_;
    (my $o = $file) =~ s/\.c$/.o/;
    my $cmdf = "$vdir/obj/" . dirname($o) . '/.' . ($o =~ s{.*/}{}r) . '.cmd';
    my ($line) = grep { /^cmd_\Q$o\E := / } split /\n/, (-f $cmdf ? slurp($cmdf) : '');
    defined $line or fail("$cmdf: no command for $o (the tree is not built)");
    $line =~ s/^cmd_\Q$o\E := //;
    # One compiler call is all a mutant's object needs: a command that does more (an objtool pass, a second
    # command) is not split here, where the shell would run the rest.
    $line =~ /[;&|`\$<>]/ and fail("$cmdf: the command for $o is more than one compiler call");
    open(my $h, '-|', 'sh', '-c', "set -- $line; printf '%s\\0' \"\$@\"") or fail("sh: $!");
    local $/;
    my @w = split /\0/, <$h> // '';
    close $h or fail("$cmdf: its command does not split");
    shift @w if $w[0] eq 'ccache';
    return grep { !/^-Wp,-M/ } @w;
}

# farm_compile(VDIR, WORDS, FILE, TEXT, FARM, OUT, LOG): TEXT compiled as FILE in the folder FARM into OUT; exit status.
sub farm_compile {
    my ($vdir, $words, $file, $text, $farm, $out, $log) = @_;
    my $src = "$farm/$file";
    make_path(dirname($src));
    spew($src, $text) if !-f $src || slurp($src) ne $text;
    my @w = @$words;
    my ($o) = grep { $w[$_] eq '-o' } 0 .. $#w;
    defined $o && $w[-1] =~ /\.c$/ or fail("kbuild's command for $file has no -o or source");
    $w[$o + 1] = $out;
    $w[-1] = $src;
    unlink $out;
    my @cc = system('command -v ccache >/dev/null') == 0 ? ('ccache') : ();
    local $ENV{CCACHE_BASEDIR} = "$vdir/src";
    local $ENV{CCACHE_NOHASHDIR} = 1;
    local $ENV{PWD} = "$vdir/obj";
    return sh($log, 'sh', '-c', 'cd "$1" && shift && exec "$@"', 'cc', "$vdir/obj", @cc, @w[0 .. $#w - 1],
              "-fmacro-prefix-map=$farm/=", $w[-1]);
}

# tce_all(VDIR, LIST, ORIGINALS, WORKERS, STAND_IN): each mutant of LIST ({ num, file, line, mutated }, line in the
# tree's file) compiled; returns { num => { built, code, why } } and the time it took. With STAND_IN (the driver's
# own test: no tree is built), that shell command stands for each compile and no code is compared.
sub tce_all {
    my ($vdir, $list, $orig, $workers, $stand_in) = @_;
    my $dir = "$vdir/tce";
    make_path($dir);
    my %words;
    $words{$_->{file}} //= $stand_in ? [] : [compile_command($vdir, $_->{file})] for @$list;
    my @pids;
    for my $w (0 .. $workers - 1) {
        my @mine = @$list[grep { $_ % $workers == $w } 0 .. $#$list] or next;
        my $pid = fork // fail("fork: $!");
        if ($pid) { push @pids, $pid; next }
        my $farm = "$dir/w$w";
        my $log = "$farm.log";
        unlink $log;
        my (%base, %res);
        for my $m (@mine) {
            if ($stand_in) {
                my $ok = sh($log, 'sh', '-c', $stand_in, 'kbuild', "O=$vdir/obj", $m->{file}) == 0;
                $res{$m->{num}} = { built => $ok ? 1 : 0, $ok ? () : (why => 'does not compile') };
                next;
            }
            my @l = split /\n/, $orig->{$m->{file}}, -1;
            $base{$m->{file}} //= do {
                farm_compile($vdir, $words{$m->{file}}, $m->{file}, $orig->{$m->{file}}, $farm, "$farm.o", $log) == 0
                    or fail("the unmutated $m->{file} does not compile (see $log)");
                tce_code("$farm.o");
            };
            $l[$m->{line} - 1] = $m->{mutated};
            my $ok = farm_compile($vdir, $words{$m->{file}}, $m->{file}, join("\n", @l), $farm, "$farm.o", $log) == 0;
            $res{$m->{num}} = $ok ? { built => 1, code => tce_code("$farm.o"), base => $base{$m->{file}} }
                                  : { built => 0, why => 'does not compile' };
        }
        spew("$farm.json", encode_json(\%res));
        exit 0;
    }
    # The workers' pids, for a signal to end them first.
    push @Mutate::Build::workers, @pids;
    for my $pid (@pids) {
        waitpid($pid, 0);
        $? == 0 or fail("a compiling worker failed (exit " . ($? >> 8) . "; see $dir/w*.log)");
    }
    @Mutate::Build::workers = ();
    my %all;
    for my $w (0 .. $workers - 1) {
        next unless -f "$dir/w$w.json";
        my $r = decode_json(slurp("$dir/w$w.json"));
        %all = (%all, %$r);
        unlink "$dir/w$w.json";
    }
    return \%all;
}

1;
