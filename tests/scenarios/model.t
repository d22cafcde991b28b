#!/bin/sh
# Host-side tests of the fuzzer's reference model, step generator and shrinker (no kernel needed).
top=$(cd "$(dirname "$0")/../.." && pwd)
exec lua5.4 "$top/scenarios/lib/model_test.lua"
