#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# faults.t: the smoke of make historic: one real fault of the corpus re-created and caught by catch.sh, the tool behind make historic and make broken.
#
# make historic builds eight kernels per generation and runs each fault ten times; make broken six kernels and the
# whole suite on each; uml-kernel/catch.sh is the tool behind both. Here it takes the default generation's first
# sequential fault (one scenario file, caught by a FAILED expectation) with two runs on the historic kernel and on
# full (the fixed kernel passing the same file is the smoke's own probe). catch.sh's broken path is
# tests/kernel/catch.t's, on reports of a runner of its own. The historic kernel is the one kernel this file
# builds: full plus one patch, so its objects are ccache hits from full's but one (about 90 s cold on 2 cores, a
# copy from the kernel cache in a warm clean room, nothing on a build folder that has it).
PLAIN_RUNNER=1
. "$(dirname "$0")/../runner/common.sh"
gen_sh=$SRC/uml-kernel/generation.sh
corpus=$SRC/uml-kernel/historic/corpus
GEN=$("$gen_sh" default)
suffix=$("$gen_sh" get "$GEN" suffix)
if [ ! -x "$BUILD/kernel/full$suffix/obj/linux" ] || [ ! -f "$BUILD/guest/umlbed-agent" ] || [ ! -x "$UMLBED" ]; then
  prereq_skip_all "no full$suffix kernel, agent or runner ($BUILD: make check builds them)"
fi
need_jq

# field FAULT KEY: KEY's value in FAULT's block of the corpus (as catch.sh reads it).
field() {
  awk -v f="$1" -v k="$2" '
    $1 == "fault" { on = ($2 == f); next }
    on && $1 == k { sub(/^[^[:space:]]+[[:space:]]+/, ""); print; exit }' "$corpus"
}
fault=
for v in $("$gen_sh" get "$GEN" historic); do
  f=$("$gen_sh" base "$v")
  f=${f#historic-}
  if [ "$(field "$f" kind)" = sequential ] && [ -z "$(field "$f" caught)" ]; then
    fault=$f variant=$v
    break
  fi
done
check "the default generation has a sequential fault caught by an expectation (${fault:-none})" [ -n "$fault" ]
[ -n "$fault" ] || { echo "1..$n"; exit 1; }
read -r file params <<<"$(field "$fault" catch)"

# ---- make historic, one fault ----
"$SRC/uml-kernel/catch.sh" --runs 2 --fault "$fault" --gen "$GEN" historic >"$T/historic.out" 2>&1
rc=$?
check "make historic's script on $fault, two runs (exit $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || diag "$T/historic.out"
# Its TAP lines are what it reports to its user: their words are what is tested.
check "... the fixed kernel passes ${file##*/} [$params] in 2 of 2 runs" \
  grep -qE "^ok [0-9]+ - $fault on $GEN .*: the fixed kernel \(full$suffix\) passes ${file##*/} \[$params\] in 2 of 2 runs" "$T/historic.out"
check "... and $variant is caught (FAILED) in 2 of 2 runs" \
  grep -qE "^ok [0-9]+ - $fault on $GEN .*: $variant is caught \(FAILED\) by ${file##*/} \[$params\] in 2 of 2 runs" "$T/historic.out"
check "... two results, both ok" [ "$(grep -cE '^(not )?ok ' "$T/historic.out")" = 2 ] && [ "$(grep -c '^ok ' "$T/historic.out")" = 2 ]

echo "1..$n"
