#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pack.t: make pack's tarball runs shards on a "machine" without the build folder (a mount namespace hides it), and the shards' reports merge into the unsharded run.
. "$(dirname "$0")/common.sh"
need_uml
need_jq
S=$SRC/scenarios
# A few scenarios of the suite, quick ones: the merge check needs several runs, not the whole suite's time.
LIST=(rounding.lua zero-length.lua trigger-einval.lua shared-one-process.lua)
"$SRC/scripts/pack.sh" "$T/pack.tar.gz" >"$T/pack.out" 2>&1
check "make pack (scripts/pack.sh): exit 0" [ $? = 0 ]
# pack_holds: the tarball lists each file a shard needs (a diagnostic names the first one missing).
pack_holds() {
  local f
  tar -tzf "$T/pack.tar.gz" >"$T/list" || return 1
  for f in build/runner/umlbed build/guest/umlbed-agent build/kernel/full/obj/linux build/kernel/gpl-only/obj/linux \
    build/kernel/full/variant.info build/kernel/gpl-only/variant.info uml-kernel/generations/default \
    build/kernel/full/variant.json build/kernel/gpl-only/variant.json \
    build/kernel/full/modules/umlbed_gpl.ko scenarios/rounding.lua uml-kernel/variants/full COPYING \
    LICENSES/preferred/MIT LICENSES/preferred/GPL-2.0 MANIFEST; do
    grep -qx "umlbed-pack/$f" "$T/list" || { echo "# missing $f" >&2; return 1; }
  done
}
check "the pack holds the runner, the agent, both kernels and what names their generation, the scenarios, the licences and a manifest" \
  pack_holds
id=$(tar -xzf "$T/pack.tar.gz" -O umlbed-pack/MANIFEST | sed -n 's/^id //p')
check "the manifest has an id and the kernels' releases" [ -n "$id" ]

# The unsharded run, from the build tree, is what the merge must equal.
run run "${K[@]}" -j 1 --json "$T/whole.json" "${LIST[@]/#/$S/}"
check "the unsharded run: exit 0" [ "$rc" = 0 ]

# Each shard on its own "machine": the pack unpacked in its own folder, its own TMPDIR, and, where user and mount
# namespaces are allowed, the build folder hidden behind an empty tmpfs, so nothing can come from it.
hide=
if unshare -rm true 2>/dev/null; then
  hide=yes
else
  # The shards still run, from the pack, but the build folder is not hidden from them.
  prereq_skip "the build folder hidden from the shards: unshare -rm (user and mount namespaces) does not work here"
fi
for k in 1 2 3; do
  m=$T/machine$k
  mkdir -p "$m/tmp" "$m/scen"
  tar -xzf "$T/pack.tar.gz" -C "$m"
  # The shard's scenario files are the pack's own: the same names the unsharded run had.
  args=(run -j 1 --shard "$k/3" --json "$m/report.json" "${LIST[@]/#/$m/umlbed-pack/scenarios/}" --pack "$m/umlbed-pack")
  if [ -n "$hide" ]; then
    # The inner shell mounts over the build folder ($1), then runs the pack's runner with the arguments after it.
    TMPDIR=$m/tmp unshare -rm bash -c 'mount -t tmpfs none "$1" && shift && exec "$@"' mount-hide "$BUILD" \
      "$m/umlbed-pack/build/runner/umlbed" "${args[@]}" >"$m/out" 2>"$m/err"
  else
    TMPDIR=$m/tmp "$m/umlbed-pack/build/runner/umlbed" "${args[@]}" >"$m/out" 2>"$m/err"
  fi
  check "shard $k/3 from the pack${hide:+, build folder hidden}: exit 0" [ $? = 0 ]
  grep -q '^# shard' "$m/out" || { diag "$m/out"; diag "$m/err"; }
  J=$m/report.json
  check "shard $k/3 booted the pack's kernel" jtrue --arg k "$m/umlbed-pack/build/kernel/full/obj/linux" '.kernel == $k'
  check "shard $k/3's report names the pack" jtrue --arg id "$id" '.pack == $id'
done
"$UMLBED" merge --json "$T/merged.json" "$T/machine1/report.json" "$T/machine2/report.json" "$T/machine3/report.json" \
  >"$T/m.out" 2>"$T/err"
check "merge of the three machines' shards: exit 0" [ $? = 0 ]
names() { perl -MJSON::PP -e 'open my $h, "<", $ARGV[0] or exit 1; local $/;
  print map { "$_->{name}\t$_->{verdict}\n" } @{decode_json(<$h>)->{results}}' "$1" | sort; }
# Both lists are read before they are compared: two empty lists (an unreadable report) would compare equal.
names "$T/whole.json" >"$T/whole.names"
names "$T/merged.json" >"$T/merged.names"
check "the unsharded run's report lists its runs" test -s "$T/whole.names"
check "the merged report equals the unsharded run (names and verdicts)" cmp -s "$T/whole.names" "$T/merged.names"
[ -s "$T/merged.json" ] || { diag "$T/m.out"; diag "$T/err"; }
# A shard of another pack does not merge.
sed "s/\"pack\": \"$id\"/\"pack\": \"0000000000000000\"/" "$T/machine3/report.json" >"$T/other.json"
"$UMLBED" merge "$T/machine1/report.json" "$T/machine2/report.json" "$T/other.json" >/dev/null 2>"$T/err"
check "merge refuses a shard from another pack (exit 2)" [ $? = 2 ]
# merge's and --pack's refusals have no report: their messages are what the user gets, so the text is tested.
check "... saying so" grep -q 'ran from different packs' "$T/err"
"$UMLBED" run --pack "$T/no-such.tar.gz" >/dev/null 2>"$T/err"
prc=$?
check "--pack of a missing file: exit 2 (got $prc)" [ "$prc" = 2 ]
check "... naming it" grep -q 'no-such.tar.gz' "$T/err"
echo "not a tarball" >"$T/bad.tar.gz"
"$UMLBED" run --pack "$T/bad.tar.gz" >/dev/null 2>"$T/err"
prc=$?
check "--pack of something else: exit 2 (got $prc)" [ "$prc" = 2 ]
check "... saying it is not a pack" grep -q 'not a pack tarball' "$T/err"
for k in 1 2 3; do
  check "machine $k: no folder left in its TMPDIR" [ -z "$(ls "$T/machine$k/tmp")" ]
done
check "no unpacked pack left in TMPDIR" [ -z "$(find "$TMPDIR" -mindepth 1 -maxdepth 1 -name 'umlbed-pack*')" ]
echo "1..$n"
