#!/bin/sh
# Runs the whole scenario suite on the full-6.12 kernel (Linux 6.12; -j auto: as many at once as pay off here);
# the runner's TAP goes straight to prove.
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "${UMLBED_BUILD:-$top/build}/runner/umlbed" run --variant full-6.12 "$top/scenarios"
