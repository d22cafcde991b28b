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
    return compile_in($vdir, $log, {}, @w[0 .. $#w - 1], "-fmacro-prefix-map=$farm/=", $w[-1]);
}

# compile_in(VDIR, LOG, ENV, WORDS...): a compiler's words run in the tree's obj/ with ccache (asked once), its
# paths hashed relative to src/, with ENV's variables besides; the exit status.
my $ccache;
sub compile_in {
    my ($vdir, $log, $env, @w) = @_;
    $ccache //= system('command -v ccache >/dev/null') == 0 ? 1 : 0;
    local $ENV{CCACHE_BASEDIR} = "$vdir/src";
    local $ENV{CCACHE_NOHASHDIR} = 1;
    local @ENV{keys %$env} = values %$env;
    local $ENV{PWD} = "$vdir/obj";
    return sh($log, 'sh', '-c', 'cd "$1" && shift && exec "$@"', 'cc', "$vdir/obj", $ccache ? ('ccache') : (), @w);
}

# prefix_end(LINES): how many lines open the file before its first line of C: blank lines, comments and preprocessor
# lines, ending where no #if is open and an #include was seen; 0 when there is no such place.
sub prefix_end {
    my @l = @_;
    my ($depth, $comment, $cont, $inc, $end) = (0, 0, 0, 0, 0);
    for my $i (0 .. $#l) {
        my $t = $l[$i];
        if ($cont) { $cont = $t =~ /\\$/; next }
        if ($comment) { next unless $t =~ s{.*?\*/}{}; $comment = 0 }
        $t =~ s{/\*.*?\*/}{}g;
        if ($t =~ s{/\*.*}{}) { $comment = 1 }
        $t =~ s{//.*}{};
        if ($t =~ /^\s*#\s*(\w+)/) {
            my $d = $1;
            $depth++ if $d =~ /^if/;
            $depth-- if $d eq 'endif';
            $inc = 1 if $d eq 'include';
            $cont = $t =~ /\\$/;
        } elsif ($t =~ /\S/) {
            last;
        }
        $end = $i + 1 if $depth == 0 && $inc && !$comment && !$cont;
    }
    return $end;
}

# The compile words without their -include files (which the precompiled header holds instead), and those files.
sub split_includes {
    my @w = @_;
    my (@keep, @inc);
    while (@w) {
        my $x = shift @w;
        if ($x eq '-include') { push @inc, shift @w } else { push @keep, $x }
    }
    return (\@keep, \@inc);
}

# pch_setup(VDIR, WORDS, FILE, ORIGINAL, FARM, LOG): a precompiled header of the lines that open FILE (its
# #includes, after kbuild's -include files) for this worker, so that a mutant's compile parses the kernel's headers
# once, not once a mutant: { end, header, words } or undef when the file has no such lines. The header that a
# compile names holds only an #error: a compile that does not use the precompiled one fails with that message, and
# the worker compiles that file without it from then on. Kept while its text and command are the same.
sub pch_setup {
    my ($vdir, $words, $file, $orig, $farm, $log) = @_;
    my @l = split /\n/, $orig, -1;
    my $end = prefix_end(@l) or return undef;
    my ($keep, $inc) = split_includes(@$words);
    my $hdr = "$farm/pch/$file.h";
    make_path(dirname($hdr));
    my $prefix = join('', map { "#include \"$_\"\n" } @$inc) . join("\n", @l[0 .. $end - 1]) . "\n";
    # kbuild's words end with the source file, which each compile names itself.
    my @w = (@$keep[0 .. $#$keep - 1], '-fpch-preprocess', '-Winvalid-pch', "-fmacro-prefix-map=$farm/=");
    my $key = Digest::SHA::sha256_hex(join("\0", $prefix, @w));
    if (!-f "$hdr.gch" || (-f "$hdr.key" ? slurp("$hdr.key") : '') ne $key) {
        unlink "$hdr.gch", "$hdr.key";
        spew("$hdr.src.h", $prefix);
        my @g = (@w, '-x', 'c-header', "$hdr.src.h");
        my ($o) = grep { $g[$_] eq '-o' } 0 .. $#g;
        $g[$o + 1] = "$hdr.gch";
        local $ENV{PWD} = "$vdir/obj";
        sh($log, 'sh', '-c', 'cd "$1" && shift && exec "$@"', 'cc', "$vdir/obj", @g) == 0 or return undef;
        spew("$hdr.key", $key);
    }
    spew($hdr, "#error umlbed: the precompiled header was not used\n");
    return { end => $end, header => $hdr, words => \@w };
}

# pch_compile(VDIR, PCH, FILE, LINES, FARM, OUT, LOG): the file's LINES compiled through the precompiled header:
# the exit status, or undef when the compile did not use it.
sub pch_compile {
    my ($vdir, $pch, $file, $lines, $farm, $out, $log) = @_;
    my $src = "$farm/$file";
    my $text = "#include \"$pch->{header}\"\n#line " . ($pch->{end} + 1) . " \"$src\"\n"
        . join("\n", @$lines[$pch->{end} .. $#$lines]);
    make_path(dirname($src));
    spew($src, $text);
    my @w = @{ $pch->{words} };
    my ($o) = grep { $w[$_] eq '-o' } 0 .. $#w;
    $w[$o + 1] = $out;
    unlink $out;
    my $before = -s $log // 0;
    my $st = compile_in($vdir, $log, { CCACHE_SLOPPINESS => 'pch_defines,time_macros,include_file_mtime,include_file_ctime' },
                        @w, $src);
    return $st if $st == 0;
    open(my $h, '<', $log) or return $st;
    seek($h, $before, 0);
    local $/;
    return (<$h> // '') =~ /umlbed: the precompiled header was not used/ ? undef : $st;
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
        my (%base, %res, %pch);
        # UMLBED_MUTATE_PCH=0 compiles every mutant's whole file (the way before the precompiled header).
        my $use_pch = ($ENV{UMLBED_MUTATE_PCH} // 1) ne '0';
        my $compile = sub {
            my ($m, $text) = @_;
            my $f = $m->{file};
            $pch{$f} //= ($use_pch && pch_setup($vdir, $words{$f}, $f, $orig->{$f}, $farm, $log)) || 0;
            my $p = $pch{$f};
            if ($p && (!defined $m->{line} || $m->{line} > $p->{end})) {
                my $st = pch_compile($vdir, $p, $f, [split /\n/, $text, -1], $farm, "$farm.o", $log);
                return $st if defined $st;
                # The header was not used: this file goes without it, its baseline again.
                $pch{$f} = 0;
                delete $base{$f};
                return undef;
            }
            return farm_compile($vdir, $words{$f}, $f, $text, $farm, "$farm.o", $log);
        };
        for my $m (@mine) {
            if ($stand_in) {
                my $ok = sh($log, 'sh', '-c', $stand_in, 'kbuild', "O=$vdir/obj", $m->{file}) == 0;
                $res{$m->{num}} = { built => $ok ? 1 : 0, $ok ? () : (why => 'does not compile') };
                next;
            }
            my @l = split /\n/, $orig->{$m->{file}}, -1;
            $l[$m->{line} - 1] = $m->{mutated};
            my $st;
            for (1 .. 2) {
                $base{$m->{file}} //= do {
                    my $b = $compile->({ file => $m->{file} }, $orig->{$m->{file}});
                    $b = $compile->({ file => $m->{file} }, $orig->{$m->{file}}) if !defined $b;
                    defined $b && $b == 0 or fail("the unmutated $m->{file} does not compile (see $log)");
                    tce_code("$farm.o");
                };
                $st = $compile->($m, join("\n", @l));
                last if defined $st;
            }
            my $ok = $st == 0;
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
