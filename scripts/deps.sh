#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages umlbed needs (or the ones named as arguments), or names them when not root; quiet when all are there.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

packages=("$@")
[ $# -gt 0 ] || packages=(
	# Each line names who needs its packages; a package used only through another one is still listed here when
	# umlbed calls it directly, so the clean room (scripts/clean-room.sh) finds a missing one.
	make                  # the build itself (a stock Debian 12 has no make: run this script first)
	xz-utils              # build.sh unpacks the .tar.xz sources
	patch                 # build.sh applies the series; series.t checks each patch applies
	flex bison bc         # kbuild: kconfig's parser and the timeconst header
	gcc                   # kbuild, the agent, the runner and the test programs
	libc6-dev             # headers and static libc.a: the agent, smoke init, test programs and kselftests link -static
	binutils              # ar builds the runner's archives, nm checks their layering (layers.t), readelf (regress.t)
	perl                  # prove, checkpatch.pl and the Perl tests (JSON::PP, Test::More)
	kmod                  # modinfo checks the test modules' vermagic (uml-kernel/modules/Makefile)
	ccache                # kernel rebuilds (build.sh uses it when installed)
	rsync                 # the kernel's headers_install for the kselftests (tests/kselftests/build.sh)
	pkg-config liblua5.4-dev libuv1-dev libjansson-dev  # the runner's libraries (runner/Makefile)
	lua5.4                # luac5.4 and lua5.4: the model tests, hostile.t's precompiled chunk, lint.t's luac5.4 -p
	gdb                   # umlbed run --gdb, gdb.t, oracle.t and uml.t's debugger checks
	valgrind              # the runner's unit tests and fake-UML runs under valgrind (make -C runner check-valgrind)
	git                   # style.t and regress.t read the tree's history and files; series.t, report.pl
	procps                # pgrep and ps: make soak's check that no guest process is left between rounds
	file                  # kselftests.t checks that every selftest binary is static
	clang-format          # style.t checks the C sources against .clang-format
	shellcheck            # lint.t checks every shell script of the tree (.shellcheckrc)
	lua-check             # luacheck: lint.t checks every Lua file of the tree (.luacheckrc)
	jq                    # the shell tests' checks on umlbed's JSON report (tests/runner/common.sh)
	python3               # hostile.t's JSON and JUnit report checks
	python3-yaml          # ci.t reads the CI templates' structure
	yamllint              # ci.t lints the CI templates (docs/ci/)
	libxml2-utils         # xmllint validates the JUnit reports (fake.t, hostile.t)
	lcov                  # genhtml for make coverage's HTML report (gcov comes with gcc)
	gnuplot-nox           # umlbed bench's plots (bench.t)
	busybox-static        # vm:shell stages it as the guest's /bin/sh; clean-room.t's tiny root
	libcap-dev libnuma-dev  # static libraries the kernel's mm selftests link (make kselftests, kselftests.t)
)
# Each kernel generation's Debian source package, whose tarball uml-kernel/build.sh unpacks: the "source" key of
# uml-kernel/generations/GEN.
if [ $# = 0 ]; then
	gens=$("$top/uml-kernel/generation.sh" list)
	for g in $gens; do
		pkg=$("$top/uml-kernel/generation.sh" get "$g" source)
		packages+=("$pkg")
	done
fi

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
