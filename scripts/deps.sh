#!/usr/bin/env bash
# Installs the Debian packages umlbed needs (or the ones named as arguments), or names them when not root; quiet when all are there.
set -euo pipefail

packages=("$@")
[ $# -gt 0 ] || packages=(
	# The kernels: Debian's 6.1 and 6.12 sources (the two generations) and what kbuild needs for ARCH=um.
	linux-source-6.1 linux-source-6.12 xz-utils patch flex bison bc gcc make perl kmod ccache
	# The runner and its tests.
	pkg-config liblua5.4-dev lua5.4 libuv1-dev libjansson-dev libcmocka-dev
	# Debugging and checking.
	gdb valgrind git
	# The kernel's headers_install (tests/kselftests/build.sh) copies the headers with rsync.
	rsync
	# pgrep and ps: the tests' "no process left" checks after SIGINT, SIGTERM, SIGKILL and SIGHUP.
	procps
	# file: kselftests.t checks that every selftest binary is static.
	file
	# xxd and strace: byte-exact checks and system-call traces in the runner's tests.
	xxd strace
	# clang-format: tests/runner/style.t checks the C sources against .clang-format.
	clang-format
	# python3: the JSON and JUnit report checks of tests/runner/hostile.t and the YAML checks of ci.t.
	python3
	# Report checks: xmllint validates the JUnit output in tests/runner/hostile.t.
	libxml2-utils
	# Coverage: genhtml (make coverage); gcov comes with gcc. Plots: umlbed bench.
	lcov gnuplot-nox
	# The CI templates' linter (docs/ci/, tests/runner/ci.t).
	yamllint
	# The guest's staged shell (vm:shell), and the static libraries the kernel's selftests/vm link (make kselftests).
	busybox-static libcap-dev libnuma-dev
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0

if [ "$(id -u)" = 0 ]; then
	echo "deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
	echo "deps: missing Debian packages; as root run:" >&2
	echo "  apt-get install ${missing[*]}" >&2
	exit 1
fi
