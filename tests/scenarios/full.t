#!/bin/sh
# Runs the whole scenario suite on the full kernel; the runner's TAP goes straight to prove.
top=$(cd "$(dirname "$0")/../.." && pwd)
exec "${UMLBED_BUILD:-$top/build}/runner/umlbed" run -j "$(nproc)" --variant full "$top/scenarios"
