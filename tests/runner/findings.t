#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# findings.t: umlbed.findings, the console scanner's patterns for scenarios that check a kernel log themselves.
. "$(dirname "$0")/common.sh"
export UMLBED_FAKE=agent
need_jq
F=(--fake-uml --kernel "$UMLBED_TEST" --agent "$UMLBED_TEST")
run run "${F[@]}" "$SCEN/api-findings.lua"
check "umlbed.findings: the scenario's checks hold (exit $rc)" [ "$rc" = 0 ]
check "... its one run is ok in the JSON report" jtrue '[.results[].verdict] == ["ok"]'
[ "$rc" = 0 ] || diag "$T/out"
echo "1..$n"
