#!/bin/sh
# Runs the whole scenario suite on the full kernel (-j auto, the default: as many at once as pay off on this host);
# the runner's TAP goes straight to prove.
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "${UMLBED_BUILD:-$top/build}/runner/umlbed" run --variant full "$top/scenarios"
