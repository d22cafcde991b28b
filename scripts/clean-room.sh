#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs a command (default: the README's quick start, "scripts/deps.sh && make && make check") in a fresh clone of HEAD inside a minimal Debian 12 root.
#
# usage: scripts/clean-room.sh [--fresh] [--no-ccache] [--keep] [--] [CMD...]
#
# The root is what "mmdebstrap --variant=minbase bookworm" makes from the host's own apt sources, cached as a
# tarball under the cache folder ($UMLBED_CLEAN_ROOM_CACHE, default ~/.cache/umlbed/clean-room) and made again when
# it is missing, a week old, or --fresh is given. Each run unpacks it into a folder of its own, clones HEAD into
# /umlbed there, and runs CMD as root in private mount and PID namespaces with /proc, /sys (read-only), a small
# /dev and a tmpfs /dev/shm. The root becomes the namespace's root by pivot_root, not chroot, so user namespaces
# (unshare -r) work inside as they do on a real machine.
#
# Only downloads and compiler output are shared with the host, never what is installed: the host's ccache folder,
# a folder of downloaded .deb files and a folder of finished kernel build folders (UMLBED_KERNEL_CACHE of
# uml-kernel/build.sh, keyed by all a kernel is made of, under the cache folder) are bind-mounted. --no-ccache
# leaves both build caches out: every kernel is compiled.
#
# The namespace dies with this script, even by SIGKILL (its unshare has a parent-death signal and kills its
# child), so nothing stays mounted; the run folder is removed at the end, or by the next run when this one was
# killed. The command's output and the logs it left are copied to OUT ($UMLBED_CLEAN_ROOM_OUT, default
# build/clean-room/ of this checkout). The exit status is the command's.
#
# UMLBED_CLEAN_ROOM_TARBALL=FILE uses a root tarball of the caller's instead of mmdebstrap's (the tests use a tiny
# one); it needs /bin/sh, env, date, umount and rmdir, which run after the switch to the root.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
self=$top/scripts/clean-room.sh
suite=bookworm

say() { echo "clean-room: $*"; }
die() { echo "clean-room: $*" >&2; exit 2; }

# Inside the namespaces: mounts what the command needs, makes the root the root, and runs the command there.
inner() {
	local root=$1 ccache_dir=$2 kcache=$3 debs=$4 d v keep
	shift 4
	mount --make-rprivate /
	mount --bind "$root" "$root"
	mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
	mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$root/sys"
	mount -t tmpfs -o nosuid,mode=0755,size=64k tmpfs "$root/dev"
	for d in null zero full random urandom tty; do
		touch "$root/dev/$d"
		mount --bind "/dev/$d" "$root/dev/$d"
	done
	mkdir -p "$root/dev/pts" "$root/dev/shm"
	mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$root/dev/pts"
	ln -s pts/ptmx "$root/dev/ptmx"
	ln -s /proc/self/fd "$root/dev/fd"
	ln -s /proc/self/fd/0 "$root/dev/stdin"
	ln -s /proc/self/fd/1 "$root/dev/stdout"
	ln -s /proc/self/fd/2 "$root/dev/stderr"
	mount -t tmpfs -o nosuid,nodev,mode=1777 tmpfs "$root/dev/shm"
	if [ -n "$ccache_dir" ]; then
		mkdir -p "$root/root/.cache/ccache"
		mount --bind "$ccache_dir" "$root/root/.cache/ccache"
	fi
	if [ -n "$kcache" ]; then
		mkdir -p "$root/root/.cache/umlbed/kernels"
		mount --bind "$kcache" "$root/root/.cache/umlbed/kernels"
	fi
	mount --bind "$debs" "$root/var/cache/apt/archives"
	cd "$root"
	mkdir -p .old-root
	pivot_root . .old-root
	cd /
	umount -l /.old-root
	rmdir /.old-root
	# The command sees a stock root's environment, plus the variables that choose how the tests run.
	keep=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TERM="${TERM:-dumb}")
	for v in CI UMLBED_STRICT UMLBED_TIMEOUT_SCALE JOBS; do
		[ -n "${!v+set}" ] && keep+=("$v=${!v}")
	done
	[ -n "$ccache_dir" ] && keep+=(CCACHE_DIR=/root/.cache/ccache)
	[ -n "$kcache" ] && keep+=(UMLBED_KERNEL_CACHE=/root/.cache/umlbed/kernels)
	cd /umlbed
	# Each step's seconds, so that the time before make check's own table (the packages, make) is seen too.
	# shellcheck disable=SC2016 # The loop's variables are the inner shell's.
	exec env -i "${keep[@]}" /bin/sh -c 'for s do
		t=$(date +%s)
		/bin/sh -c "$s"
		r=$?
		echo "clean-room: step \"$s\" took $(($(date +%s) - t)) s (exit $r)"
		[ "$r" = 0 ] || exit "$r"
	done' sh "$@" </dev/null
}

# The root tarball: mmdebstrap's, cached, unless UMLBED_CLEAN_ROOM_TARBALL names one of the caller's.
root_tarball() {
	local sources aptopts f key
	if [ -n "${UMLBED_CLEAN_ROOM_TARBALL:-}" ]; then
		[ -f "$UMLBED_CLEAN_ROOM_TARBALL" ] || die "UMLBED_CLEAN_ROOM_TARBALL=$UMLBED_CLEAN_ROOM_TARBALL is not a file"
		tarball=$UMLBED_CLEAN_ROOM_TARBALL
		return
	fi
	command -v mmdebstrap >/dev/null || "$top/scripts/deps.sh" mmdebstrap
	# The apt sources of the host (one-line and deb822 files), and its apt settings of the Acquire group, which
	# the host needs to reach its mirror (a snapshot mirror needs Check-Valid-Until "false", for example).
	sources=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -v '^[[:space:]]*#' || true)
	[ -n "$sources" ] || die "the host has no apt sources in /etc/apt/sources.list{,.d/}"
	aptopts=()
	for f in /etc/apt/apt.conf.d/*; do
		[ -f "$f" ] && grep -q '^[[:space:]]*Acquire::' "$f" && aptopts+=("--aptopt=$f")
	done
	key=$( { echo "$suite minbase"; echo "$sources"; cat "${aptopts[@]#--aptopt=}" 2>/dev/null; } | sha256sum | cut -c1-12)
	tarball=$cache/root-$suite-$key.tar
	exec 9>"$cache/root.lock"
	flock 9
	if [ "$fresh" = 1 ] || [ ! -f "$tarball" ] || [ -n "$(find "$tarball" -mmin +$((7 * 24 * 60)))" ]; then
		say "making the $suite root (mmdebstrap --variant=minbase, the host's apt sources)"
		local t0
		t0=$(date +%s)
		# mmdebstrap tells a tarball from a folder by the name's ending, so the partial one ends in .tar too.
		rm -rf "$cache"/partial-*.tar
		mmdebstrap --quiet --variant=minbase "${aptopts[@]}" "$suite" "$cache/partial-$key.tar" - <<<"$sources" ||
			die "mmdebstrap failed"
		find "$cache" -maxdepth 1 -name 'root-*.tar' -delete
		mv "$cache/partial-$key.tar" "$tarball"
		say "root made in $(($(date +%s) - t0)) s"
	fi
	exec 9>&-
}

# A run folder whose lock no live run holds is left over from a killed run. --one-file-system: a mount that
# somehow outlived its namespace is never followed into.
remove_stale() {
	local d
	for d in "$cache"/runs/*/; do
		[ -d "$d" ] || continue
		if [ ! -e "${d}lock" ] || flock -n "${d}lock" true 2>/dev/null; then
			say "removing ${d%/}, left by a run that did not end"
			rm -rf --one-file-system "$d"
		fi
	done
}

# The logs the command left: reports and logs of the build folder, and of the run folders the runner kept in /tmp.
copy_logs() {
	local f src
	(
		cd "$root/umlbed" || exit 0
		# Kernel trees (src/, obj/: the variants', the mutation tree's, the pristine sources) hold thousands of
		# generated JSON and log files that are not test output.
		find build "$root/tmp" -type d \( -name src -o -name obj \) \
			-prune -o -type f \( -name '*.log' -o -name '*.json' -o -name '*.xml' -o -name '*.tap' \) -size -50M \
			-print 2>/dev/null || true
	) | while read -r f; do
		case $f in
		"$root"/*) src=$f f=root/${f#"$root"/} ;;
		*) src=$root/umlbed/$f ;;
		esac
		mkdir -p "$out/logs/$(dirname "$f")"
		cp "$src" "$out/logs/$f"
	done
}

# Ends the namespace (SIGKILL to its unshare, which kills its child and so every process in it) and removes the
# run folder; every way out of main passes here.
cleanup() {
	local rc=$?
	trap - EXIT INT TERM HUP
	if [ -n "$child" ]; then
		kill -KILL "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	if [ "$keep_root" = 1 ]; then
		say "kept $root"
	else
		rm -rf --one-file-system "$run"
	fi
	exit "$rc"
}

# The commands the root lacked: what dash, bash and perl say when a command is not there, in the output and the
# logs (a test's own log may be the only place that names it).
not_found() {
	grep -rhoaE -e ': [^ :]+: (command )?not found$' -e "Can't exec \"[^\"]+\"" "$log" "$out/logs" 2>/dev/null |
		sed -E -e 's/^: ([^ :]+): (command )?not found$/\1/' -e "s/^Can't exec \"([^\"]+)\"$/\1/" | sort -u | paste -sd' ' || true
}

main() {
	fresh=0 ccache=1 keep_root=0
	while [ $# -gt 0 ]; do
		case $1 in
		--fresh) fresh=1 ;;
		--no-ccache) ccache=0 ;;
		--keep) keep_root=1 ;;
		--) shift; break ;;
		-h | --help) sed -n '2,/^set -euo/{/^set -euo/d;/SPDX-License-Identifier/d;s/^# \{0,1\}//;p}' "$self"; exit 0 ;;
		-*) die "unknown option $1 (see --help)" ;;
		*) break ;;
		esac
		shift
	done
	# The steps run in order, each timed, until one fails; a CMD given is one step.
	steps=("$*")
	[ $# -gt 0 ] || steps=(scripts/deps.sh make "make check")
	cmd=$(printf '%s && ' "${steps[@]}")
	cmd=${cmd% && }

	[ "$(id -u)" = 0 ] || die "needs root (mount and PID namespaces, and apt-get inside the root)"
	# The host's own prerequisites: git clones into the root, util-linux has unshare, setpriv and pivot_root.
	for c in git tar unshare setpriv pivot_root flock; do
		command -v "$c" >/dev/null || die "the host has no $c (Debian packages git, tar, util-linux)"
	done
	git -C "$top" rev-parse --verify -q HEAD >/dev/null || die "$top has no commit to clone"

	cache=${UMLBED_CLEAN_ROOM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/umlbed/clean-room}
	out=${UMLBED_CLEAN_ROOM_OUT:-$top/build/clean-room}
	mkdir -p "$cache/runs" "$cache/debs" "$out"
	cache=$(cd "$cache" && pwd)

	remove_stale
	root_tarball
	say "root $tarball ($(du -m "$tarball" | cut -f1) MiB)"

	run=$(mktemp -d "$cache/runs/$(date +%Y%m%d-%H%M%S)-XXXXXX")
	exec 8>"$run/lock"
	flock -n 8 || die "cannot lock $run/lock"
	root=$run/root
	child=

	trap cleanup EXIT
	trap 'echo; say "interrupted"; exit 130' INT
	trap 'say "terminated"; exit 143' TERM
	trap 'exit 129' HUP

	mkdir "$root"
	tar -C "$root" --numeric-owner --xattrs --xattrs-include='*' -xf "$tarball"
	cp -L /etc/resolv.conf "$root/etc/resolv.conf"
	git clone -q --no-hardlinks "file://$top" "$root/umlbed"
	say "HEAD $(git -C "$root/umlbed" log -1 --format='%h %s' | cut -c1-80)"

	ccache_dir=
	kcache=
	if [ "$ccache" = 1 ]; then
		ccache_dir=$(ccache -k cache_dir 2>/dev/null || echo "$HOME/.cache/ccache")
		kcache=$cache/kernels
		mkdir -p "$ccache_dir" "$kcache"
		say "ccache: the host's $ccache_dir is bind-mounted at /root/.cache/ccache (compiler output only)"
		say "kernels: $kcache is bind-mounted at /root/.cache/umlbed/kernels (build folders of the root's kernels)"
	fi
	say "downloads: $cache/debs is bind-mounted at /var/cache/apt/archives (.deb files only)"
	say "running: $cmd"

	log=$out/run.log
	: >"$log"
	rm -rf "$out/logs"
	t0=$(date +%s)
	# Job control puts the namespace in a process group of its own: a Ctrl-C reaches this script, which then kills the
	# whole namespace, and the command inherits no ignored SIGINT.
	# The command starts with every signal at its default, as on a fresh machine: ignored ones are inherited, and a
	# shell cannot trap a signal that was ignored when it started (a caller under nohup or in a background job).
	set -m
	setpriv --pdeathsig KILL env --default-signal \
		unshare --mount --pid --fork --kill-child --propagation private \
		"$self" --inner "$root" "$ccache_dir" "$kcache" "$cache/debs" "${steps[@]}" > >(tee -a "$log") 2>&1 &
	child=$!
	set +m
	rc=0
	wait "$child" || rc=$?
	child=
	wait
	elapsed=$(($(date +%s) - t0))

	copy_logs
	say "exit $rc after $elapsed s; output in $log, logs in $out/logs"
	if [ "$rc" != 0 ]; then
		missing=$(not_found)
		[ -z "$missing" ] || say "commands not found in the root (declare their packages in scripts/deps.sh): $missing"
	fi
	# The test runner's closing line, last, where a reader of CI's output looks for it.
	result=$(grep -a '^Result: ' "$log" | tail -n 1 || true)
	[ -n "$result" ] && echo "$result"
	exit "$rc"
}

# The whole file is read before anything runs (a script edited while it runs is not re-read half way).
if [ "${1:-}" = --inner ]; then
	shift
	inner "$@"
fi
main "$@"
exit
