#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# generations.t: agent.t on the full kernel of each generation but the default one (prove runs agent.t itself on the default's), each run a subtest, without the 4 MiB lines that the default's run sends.
#
# Each run's TAP is passed on indented, as Test::More prints a subtest, and summed up in one result: prove reads the
# result lines, a reader of the verbose output sees every check. Run inside prove's -j instead of after it, the
# other generation's boots share the two cores with the rest of the tests.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${UMLBED_BUILD:-$top/build}
gen_sh=$top/uml-kernel/generation.sh
. "$top/tests/lib/strict.sh"
. "$top/tests/lib/tap.sh"

default=$("$gen_sh" default)
for g in $("$gen_sh" list); do
  [ "$g" = "$default" ] && continue
  kernel=$BUILD/kernel/full$("$gen_sh" get "$g" suffix)/obj/linux
  if [ ! -x "$kernel" ]; then
    prereq_skip "$g: no kernel $kernel (make kernel GEN=$g)"
    continue
  fi
  echo "# Subtest: agent.t on $g"
  UMLBED_KERNEL=$kernel UMLBED_AGENT_BIG_LINES=0 perl "$top/tests/agent/agent.t" 2>&1 | sed 's/^/    /'
  ok "${PIPESTATUS[0]}" "agent.t on $g ($kernel)"
done
echo "1..$n"
