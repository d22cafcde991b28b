#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Prints the key of a whole-suite run of scenarios/ on one variant: the sha256 of everything its verdicts depend on: scenario-key.sh VARIANT.
#
# make writes it beside its run's JSON report (BUILD/scenarios/GEN.key), and tests/scenarios/suite.t reuses that
# report instead of running the same suite again when the key it computes is the same. So the key covers every
# input a run reads: the kernel, its variant.info, variant.json and modules, the agent, the runner and the busybox
# the guest's shell is made of; the scenarios, the bed's Lua library, the variant and generation files and the series that
# scenarios read; and the environment that changes how the runner and the scenarios behave (CI's strict mode,
# UMLBED_* but the paths that make check sets to say where the build is). A file that cannot be read is part of the
# key as missing.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
v=${1:?usage: scenario-key.sh VARIANT}

# The inputs, one path a line; each becomes a line of its name and the sha256 of its bytes, or "missing". One
# sha256sum for them all: the key is taken on every suite.t run.
inputs() {
	echo "$BUILD/kernel/$v/obj/linux"
	echo "$BUILD/kernel/$v/variant.info"
	echo "$BUILD/kernel/$v/variant.json"
	# The test modules a run loads are its own variant's (bed.test_modules); other variants' come and go as make
	# check builds them, and are not read.
	for f in "$BUILD/kernel/$v"/modules/*.ko; do [ -f "$f" ] && echo "$f"; done
	echo "$BUILD/guest/umlbed-agent"
	echo "$BUILD/runner/umlbed"
	echo /bin/busybox
	(cd "$top" && find scenarios runner/lua/lua uml-kernel/variants uml-kernel/generations patches -type f | sort) |
		while IFS= read -r f; do echo "$top/$f"; done
}
mapfile -t files < <(inputs)
present=()
missing=
for f in "${files[@]}"; do
	if [ -f "$f" ] && [ -r "$f" ]; then present+=("$f"); else missing+="$f missing"$'\n'; fi
done
{
	echo "variant $v"
	printf '%s' "$missing"
	[ ${#present[@]} = 0 ] || sha256sum -- "${present[@]}"
	echo "CI=${CI:-}"
	env | grep '^UMLBED_' | grep -vE '^UMLBED_(BUILD|RUNNER_DIR|VARIANTS)=' | sort || true
} | sha256sum | cut -d' ' -f1
