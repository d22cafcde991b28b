# SPDX-License-Identifier: MIT
# The mutate tree's kernels: the variant built once, its series' files replaced by their schema (every mutant behind a switch), and a kernel of its own for each mutant that cannot be a switch.
#
# The tree is BUILD/mutate/kernel/VARIANT, which uml-kernel/build.sh owns (BUILD= there, the pristine tree as
# KSRC): it patches and configures it, and builds the unmutated kernel the first time. The schema files then replace
# the series' files in src/ and stay there: build.sh puts the originals back only when the series changes, and this
# module keeps each original in orig/. A schema that is the same as the last one costs no kbuild (the stamp
# .schema-done holds the hash of what the kernel was built from); one that compiled is marked done for build.sh too,
# so that its next run finds the tree up to date instead of walking it.
package Mutate::Kernels;
use strict;
use warnings;
use Digest::SHA qw(sha256_hex);
use File::Basename qw(dirname);
use File::Copy qw(copy);
use File::Path qw(make_path remove_tree);
use Mutate::Util;
use Mutate::Series qw(pristine_tree);
use Mutate::Build;
use Mutate::Tce;
use Mutate::Schema qw(schema_file $VAR);
use Exporter qw(import);
our @EXPORT = qw(prepare_tree originals schema_kernel own_kernel own_dir kbuild_each);

# prepare_tree(GEN, VARIANT, LOG, STAND_IN): the mutate tree built (or with STAND_IN only patched and configured) and
# its test modules; the tree's folder and its kbuild command.
sub prepare_tree {
    my ($g, $variant, $log, $stand_in) = @_;
    my $mbuild = "$BUILD/mutate";
    my $vdir = "$mbuild/kernel/$variant";
    (my $kvar = "KSRC_$g") =~ s/\./_/g;
    note("building $variant in $vdir (log: $log)");
    {
        local $ENV{BUILD} = $mbuild;
        local $ENV{$kvar} = pristine_tree($g);
        local $ENV{KBUILD_TARGETS} = $stand_in ? 'olddefconfig' : $ENV{KBUILD_TARGETS};
        # A stand-in's tree is configured only, in a test's own folder: kept in the kernel cache, which holds two
        # folders a variant, it would push out the variant's real kernel (a warm clean room then compiles it again).
        delete local $ENV{UMLBED_KERNEL_CACHE} if $stand_in;
        sh($log, "$top/uml-kernel/build.sh", $variant) == 0 or fail("the unmutated $variant does not build (see $log)");
    }
    # The test modules: those the build folder has for the variant (same configuration and version), else built here
    # against this tree, since another variant's (full's for judge) have another configuration.
    my $mods = "$BUILD/kernel/$variant/modules";
    if (-d $mods && !-e "$vdir/modules") { symlink($mods, "$vdir/modules") or fail("symlink $vdir/modules: $!") }
    elsif (!-e "$vdir/modules" && !$stand_in) {
        sh($log, 'make', '-s', '-C', "$top/uml-kernel/modules", "BUILD=$mbuild", "VARIANT=$variant") == 0
            or fail("the test modules of $variant do not build (see $log)");
    }
    my @kmake = ('make', '-C', "$vdir/src", "O=$vdir/obj", 'ARCH=um', '-j' . ($ENV{JOBS_BUILD} // `nproc` + 0), '-s');
    push @kmake, 'CC=ccache gcc' if system('command -v ccache >/dev/null') == 0;
    # UMLBED_MUTATE_KBUILD: a shell command that stands for each kbuild and each mutant's compile, given O=OBJ as $1
    # (and the file, for a compile). The driver's own test uses it to check the driver (shards, verdicts, a SIGTERM
    # mid-build) without building a kernel; every run then takes the variant's kernel from the build folder.
    @kmake = ('sh', '-c', $stand_in, 'kbuild', "O=$vdir/obj") if $stand_in;
    return ($vdir, \@kmake);
}

# A schema starts with the declaration of the switch on its first line; an original does not.
sub is_schema { $_[0] =~ /\Aextern int \Q$VAR\E; / }

# originals(VDIR, FILES): each file as the tree's patches gave it: what src/ holds, or orig/'s copy where src/ holds
# a schema already.
sub originals {
    my ($vdir, @files) = @_;
    my %o;
    for my $f (@files) {
        my $t = slurp("$vdir/src/$f");
        if (is_schema($t)) {
            -f "$vdir/orig/$f" or fail("$vdir/src/$f is a schema whose original is gone: remove $vdir");
            $o{$f} = slurp("$vdir/orig/$f");
        } else {
            make_path(dirname("$vdir/orig/$f"));
            spew("$vdir/orig/$f", $t) if !-f "$vdir/orig/$f" || slurp("$vdir/orig/$f") ne $t;
            $o{$f} = $t;
        }
    }
    return \%o;
}

# A compiler's error lines in the schema FILE (those of the macros it expands included).
sub error_lines {
    my ($log, $path) = @_;
    my %l;
    for (split /\n/, slurp($log)) { $l{$1} = 1 if /^\Q$path\E:(\d+):\d+: (?:error|note: in expansion)/ }
    return keys %l;
}

# schema_kernel(VDIR, KMAKE, SITES, ORIGINALS, LOG, STAND_IN): the schema of each file (SITES: file => [{ num, line,
# original, mutated }]) written into the tree and the kernel built. A line whose switch does not compile is left to
# its mutants' own kbuilds. Returns the sites left out ({ num => why }), the schema texts and the key of the kernel.
sub schema_kernel {
    my ($vdir, $kmake, $sites, $orig, $log, $stand_in) = @_;
    my @files = sort keys %$orig;
    my %skip;
    my (%text, %own);
    for my $try (1 .. 20) {
        %own = ();
        for my $f (@files) {
            my @l = split /\n/, $orig->{$f}, -1;
            pop @l if @l && $l[-1] eq '';
            my @s = grep { !$skip{$f}{$_->{line}} } @{ $sites->{$f} // [] };
            my ($t, $o) = schema_file(\@l, \@s, $f eq $files[0]);
            $text{$f} = $t;
            %own = (%own, %$o);
            $own{$_->{num}} = 'its switch does not compile' for grep { $skip{$f}{$_->{line}} } @{ $sites->{$f} // [] };
        }
        last if $stand_in;
        # Each schema compiled alone first (seconds): an error names its line, whose mutants then keep kbuilds of
        # their own.
        my $bad = 0;
        for my $f (@files) {
            my $clog = "$vdir/tce/schema.log";
            unlink $clog;
            next if Mutate::Tce::farm_compile($vdir, [compile_command($vdir, $f)], $f, $text{$f}, "$vdir/tce/schema",
                                              "$vdir/tce/schema.o", $clog) == 0;
            my @lines = error_lines($clog, "$vdir/tce/schema/$f") or fail("the schema of $f does not compile (see $clog)");
            $skip{$f}{$_} = 1 for @lines;
            $bad = 1;
        }
        last unless $bad;
        fail("the schema does not compile after 20 tries (see $vdir/tce/schema.log)") if $try == 20;
    }
    for my $f (@files) {
        my $p = "$vdir/src/$f";
        spew($p, $text{$f}) if slurp($p) ne $text{$f};
    }
    my $key = sha256_hex(join("\0", (map { "$_\0$text{$_}" } @files), slurp_maybe("$vdir/.done") // '', "@$kmake"));
    # A schema without a switch needs no kernel of its own: any kernel of the tree, unchosen, runs the original.
    my $none = !grep { !$own{$_->{num}} } map { @{ $sites->{$_} // [] } } @files;
    if ($none && -x "$vdir/obj/linux" || $none && $stand_in) {
        note('no mutant is a switch: the schema kernel is not built');
    } elsif ($stand_in || (slurp_maybe("$vdir/.schema-done") // '') ne $key || !-x "$vdir/obj/linux") {
        unlink "$vdir/.schema-done";
        sh($log, @$kmake) == 0 or fail("the schema kernel does not build (see $log)");
        spew("$vdir/.schema-done", $key);
        # build.sh's next run finds nothing newer than its last build: the tree is the schema's, built.
        utime(undef, undef, "$vdir/.done") if -f "$vdir/.done";
    }
    return (\%own, \%text, $key);
}

sub slurp_maybe { my ($f) = @_; return -f $f ? slurp($f) : undef }

# own_dir(VDIR, KEY, M): where the kernel of the mutant M is kept, for the schema of KEY. It ends in kernel/VARIANT,
# as the build folder's kernels do: the runner names a kernel's variant by that path (umlbed run's header, a
# scenario's vm.variant), and a scenario that consults the variant's definition (licensing.lua, the trigger's
# fault injection) skips a kernel whose variant it cannot name, and so could not kill a mutant there.
sub own_dir {
    my ($vdir, $key, $m) = @_;
    (my $variant = $vdir) =~ s{.*/}{};
    return "$vdir/own/" . substr(sha256_hex("$key\0$m->{id}\0$m->{mutated}"), 0, 16) . "/kernel/$variant";
}

# kbuild_with(VDIR, KMAKE, FILE, KEEP, TEXT, LOG): the kernel built with TEXT in FILE, KEEP put back after; whether
# it built. KEEP waits beside the file while TEXT is in place: a run killed there leaves it for the next run to put
# back, and a signal puts it back at once.
sub kbuild_with {
    my ($vdir, $kmake, $file, $keep, $text, $log) = @_;
    my $f = "$vdir/src/$file";
    spew("$f.umlbed-orig", $keep);
    $Mutate::Build::mutated = $f;
    spew($f, $text);
    my $ok = sh($log, @$kmake) == 0;
    restore();
    return $ok;
}

# keep_kernel(VDIR, DIR): the tree's kernel kept in DIR (own_dir's) with the variant's variant.info, variant.json
# and test modules, whatever the mutant's folder held before.
sub keep_kernel {
    my ($vdir, $dir) = @_;
    remove_tree(dirname(dirname($dir)));
    make_path("$dir/obj");
    copy("$vdir/obj/linux", "$dir/obj/linux.tmp") && chmod(0755, "$dir/obj/linux.tmp")
        && rename("$dir/obj/linux.tmp", "$dir/obj/linux") or fail("$dir/obj/linux: $!");
    for my $f (qw(variant.info variant.json)) { copy("$vdir/$f", "$dir/$f") or fail("$dir/$f: $!") }
    symlink("$vdir/modules", "$dir/modules") or fail("symlink $dir/modules: $!");
}

# own_kernel(VDIR, KMAKE, M, TEXT, KEY, LOG, STAND_IN): the kernel of the mutant M ({ id, num, file, line, mutated })
# that is no switch: its line written into its file's schema TEXT, kbuild, the kernel kept under own/ with the
# variant's modules, variant.info and variant.json, the schema put back. Kept by a key of the schema and the
# mutant, so a second run reuses it. The kernel's path, or undef when it does not build.
sub own_kernel {
    my ($vdir, $kmake, $m, $text, $key, $log, $stand_in) = @_;
    my $dir = own_dir($vdir, $key, $m);
    return "$dir/obj/linux" if -x "$dir/obj/linux" && !$stand_in;
    my @l = split /\n/, $text, -1;
    $l[$m->{line} - 1] = $m->{line} == 1 ? "extern int $VAR; $m->{mutated}" : $m->{mutated};
    my $ok = kbuild_with($vdir, $kmake, $m->{file}, $text, join("\n", @l), $log);
    keep_kernel($vdir, $dir) if $ok && !$stand_in;
    return $ok ? "$dir/obj/linux" : undef;
}

# kbuild_each(VDIR, KMAKE, LIST, ORIGINALS, LOG): the method the schema replaced, which the sample check compares
# it with: the originals back in the tree and built, then each mutant of LIST ({ id, num, file, tline, mutated })
# written alone into its original file and the kernel built, so that the object kbuild made is what Trivial
# Compiler Equivalence compares (not built, equivalent, duplicate), and the kernel, kept under own/ by the originals'
# hash and the mutant, is what judges it. Sets each mutant's verdict or kernel; returns the unmutated kernel and the
# number of kbuilds this call ran.
sub kbuild_each {
    my ($vdir, $kmake, $list, $orig, $log) = @_;
    my $obj = sub { "$vdir/obj/" . ($_[0] =~ s/\.c$/.o/r) };
    for my $f (sort keys %$orig) {
        my $p = "$vdir/src/$f";
        spew($p, $orig->{$f}) if slurp($p) ne $orig->{$f};
    }
    # The tree holds no schema now: the next schema run builds its kernel again.
    unlink "$vdir/.schema-done";
    sh($log, @$kmake) == 0 or fail("the unmutated kernel does not build (see $log)");
    my %base = map { $_ => tce_code($obj->($_)) // fail("no object " . $obj->($_)) } keys %$orig;
    my $key = sha256_hex(join("\0", 'kbuild', (map { "$_\0$orig->{$_}" } sort keys %$orig), "@$kmake"));
    my ($n, %seen) = (0);
    for my $m (grep { !$_->{verdict} } @$list) {
        my $dir = own_dir($vdir, $key, $m);
        my $code = -f "$dir/code" ? slurp("$dir/code") : undef;
        if (!defined $code) {
            my @l = split /\n/, $orig->{$m->{file}}, -1;
            $l[$m->{tline} - 1] = $m->{mutated};
            $n++;
            my $ok = kbuild_with($vdir, $kmake, $m->{file}, $orig->{$m->{file}}, join("\n", @l), $log);
            $code = $ok ? tce_code($obj->($m->{file})) // '' : '';
            if ($ok) { keep_kernel($vdir, $dir) } else { remove_tree(dirname(dirname($dir))); make_path($dir) }
            # The code last: a run stopped before it builds the mutant again.
            spew("$dir/code", $code);
        }
        if ($code eq '') { @$m{qw(verdict why)} = ('not built', 'does not build') }
        elsif ($code eq $base{$m->{file}}) { @$m{qw(verdict why)} = ('equivalent', "TCE: its object code is the unmutated one's") }
        elsif (my $of = $seen{$m->{file}}{$code}) { @$m{qw(verdict of why)} = ('duplicate', $of, "TCE: its object code is $of\'s") }
        else { $seen{$m->{file}}{$code} = $m->{id}; $m->{kernel} = "$dir/obj/linux" }
    }
    # The tree back to the unmutated objects, which the baseline runs on.
    sh($log, @$kmake) == 0 or fail("the unmutated kernel does not build again (see $log)") if $n;
    return ("$vdir/obj/linux", $n);
}

1;
