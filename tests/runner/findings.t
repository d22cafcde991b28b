#!/usr/bin/env bash
# findings.t: umlbed.findings, the console scanner's patterns for scenarios that check a kernel log themselves.
. "$(dirname "$0")/common.sh"
export UMLBED_FAKE=agent
F="--fake-uml --kernel $UMLBED_TEST --agent $UMLBED_TEST"
run run $F --json "$T/r.json" "$SCEN/api-findings.lua"
check "umlbed.findings: the scenario's checks hold (exit $rc)" [ "$rc" = 0 ]
check "... its one run is ok in the JSON report" perl -MJSON::PP -e '
  local $/; open my $f, "<", $ARGV[0] or die; my $r = JSON::PP->new->decode(<$f>)->{results};
  exit !(@$r == 1 && $r->[0]{verdict} eq "ok")' "$T/r.json"
[ "$rc" = 0 ] || diag "$T/out"
echo "1..$n"
