#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Keeps the built test modules in the kernel cache: cached.sh get|put MODDIR KEYFILE...; get copies a stored pair in (exit 0) or exits 1.
#
# Under UMLBED_KERNEL_CACHE (the clean room sets it) a kernel's build folder comes from the cache, and so can the
# two modules built against it: they are stored under the hash of the KEYFILEs, which are their sources, the
# Makefile and this script, and the vmlinux of each kernel they were built against (a kernel restored from the
# cache is the very file that was built; one built again is a new one).
set -euo pipefail
op=$1 moddir=$2
shift 2
# Without a cache, or without a kernel, get misses and put keeps nothing.
off=$([ "$op" = put ] && echo 0 || echo 1)
[ -n "${UMLBED_KERNEL_CACHE:-}" ] || exit "$off"
for f in "$@"; do [ -f "$f" ] || exit "$off"; done
key=$(cat "$@" | sha256sum | cut -c1-24)
variant=$(basename "$(dirname "$moddir")")
entry=$UMLBED_KERNEL_CACHE/modules/$variant/$key
kos=(umlbed_gpl.ko umlbed_proprietary.ko)
case $op in
get)
	for k in "${kos[@]}"; do [ -f "$entry/$k" ] || exit 1; done
	for k in "${kos[@]}"; do cp "$entry/$k" "$moddir/$k.cached" && mv "$moddir/$k.cached" "$moddir/$k"; done
	echo "  CACHED   modules of $variant ($entry)"
	;;
put)
	# Stored whole or not at all; the variant keeps its newest two entries, as the kernels' cache does.
	mkdir -p "$(dirname "$entry")"
	rm -rf "$entry.tmp" && mkdir "$entry.tmp"
	for k in "${kos[@]}"; do cp "$moddir/$k" "$entry.tmp/"; done
	rm -rf "$entry" && mv "$entry.tmp" "$entry"
	find "$(dirname "$entry")" -mindepth 1 -maxdepth 1 -type d -printf '%T@ %p\n' | sort -rn | tail -n +3 |
		cut -d' ' -f2- | xargs -r -d '\n' rm -rf
	;;
*)
	echo "usage: cached.sh get|put MODDIR KEYFILE..." >&2
	exit 2
	;;
esac
