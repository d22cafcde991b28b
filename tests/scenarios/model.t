#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# model.t: host-side tests of the fuzzer's reference model, step generator and shrinker (tests/scenarios/model_test.lua, a scenario that boots nothing, run by the runner against its fake UML).
top=$(cd "$(dirname "$0")/../.." && pwd)
RDIR=${UMLBED_RUNNER_DIR:-${UMLBED_BUILD:-$top/build}/runner}
if [ ! -x "$RDIR/umlbed" ] || [ ! -x "$RDIR/umlbed-test" ]; then
  echo "1..1"
  echo "not ok 1 - the runner is built ($RDIR: make -C runner)"
  exit 1
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-model.XXXXXX")
trap 'rm -rf "$T"' EXIT
# The runner's own TAP is this test's: one result, with every failed check listed under it.
TMPDIR=$T UMLBED_FAKE=agent "$RDIR/umlbed" run -j 1 --fake-uml --kernel "$RDIR/umlbed-test" --agent "$RDIR/umlbed-test" \
  "$top/tests/scenarios/model_test.lua"
exit $?
