#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make pack: one tarball with what a shard needs to run, built once: pack.sh [OUT.tar.gz] (VARIANTS= the kernels).
#
# The pack is a small tree that the runner inside it understands as it does this one:
#   build/runner/umlbed, build/guest/umlbed-agent   the runner and the guest agent
#   build/kernel/V/obj/linux, build/kernel/V/modules the UML binary and test modules of each variant V (default:
#                                                    the default generation's variants, uml-kernel/generations/)
#   build/kernel/V/variant.info                      its generation and base name (umlbed run --generation)
#   build/kernel/V/variant.json                      the definitions the scenarios expect from (umlbed.definition)
#   scenarios/, uml-kernel/{generations,variants,config,fixes,broken}/, patches/, bench/patches/   the scenarios
#                                                    and what their oracles read
#   COPYING, LICENSES/                               the licences of what the pack carries
#   MANIFEST                                         id, per variant its release, series hash and config hash
# `umlbed run --pack FILE|DIR` unpacks it (a FILE) and runs its runner; only libuv1, liblua5.4-0 and libjansson4
# are needed on that machine. Every shard report names the pack's id, and umlbed merge refuses mixed packs.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
out=${1:-$BUILD/umlbed-pack.tar.gz}
if [ -z "${VARIANTS:-}" ]; then
	VARIANTS=$("$top/uml-kernel/generation.sh" get "$("$top/uml-kernel/generation.sh" default)" variants)
fi
read -ra variants <<<"$VARIANTS"
stage=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-pack.XXXXXX")
trap 'rm -rf "$stage"' EXIT
p=$stage/umlbed-pack
mkdir -p "$p/build/runner" "$p/build/guest"
need() { [ -e "$1" ] || { echo "pack: $1 is missing (${2:-make})" >&2; exit 2; }; }
need "$BUILD/runner/umlbed" "make runner"
need "$BUILD/guest/umlbed-agent" "make guest"
cp "$BUILD/runner/umlbed" "$p/build/runner/"
cp "$BUILD/guest/umlbed-agent" "$p/build/guest/"
for v in "${variants[@]}"; do
	need "$BUILD/kernel/$v/obj/linux" "make kernel VARIANT=$v"
	need "$BUILD/kernel/$v/variant.info" "uml-kernel/build.sh $v writes it"
	need "$BUILD/kernel/$v/variant.json" "uml-kernel/build.sh $v writes it"
	mkdir -p "$p/build/kernel/$v/obj" "$p/build/kernel/$v/modules"
	cp "$BUILD/kernel/$v/obj/linux" "$p/build/kernel/$v/obj/"
	cp "$BUILD/kernel/$v/variant.info" "$BUILD/kernel/$v/variant.json" "$p/build/kernel/$v/"
	cp "$BUILD/kernel/$v/modules/"*.ko "$p/build/kernel/$v/modules/" 2>/dev/null || true
done
(cd "$top" && cp -r --parents scenarios uml-kernel/generations uml-kernel/variants uml-kernel/config uml-kernel/fixes \
	uml-kernel/broken patches bench/patches COPYING LICENSES "$p/")
# The scenarios' shared library is a folder of their own; bench's symbolic link is not packed.
{
	echo "format 1"
	echo "commit $(git -C "$top" rev-parse HEAD 2>/dev/null || echo unknown)"
	for v in "${variants[@]}"; do
		echo "variant $v release $("$p/build/kernel/$v/obj/linux" --version 2>/dev/null | tr -d '\n') series $(cat "$BUILD/kernel/$v/.series" 2>/dev/null || echo -) config $(cat "$BUILD/kernel/$v/.config-stamp" 2>/dev/null || echo -)"
	done
} >"$p/MANIFEST.body"
# The id covers every packed file, so two packs with the same id run the same bits.
id=$(cd "$p" && find . -type f ! -name 'MANIFEST*' -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
{ echo "id $id"; cat "$p/MANIFEST.body"; } >"$p/MANIFEST"
rm "$p/MANIFEST.body"
tar -C "$stage" -czf "$out.tmp" umlbed-pack
mv "$out.tmp" "$out"
echo "pack: $out ($(du -h "$out" | cut -f1), id $id, variants ${variants[*]})"
