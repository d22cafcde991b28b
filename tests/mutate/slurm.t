#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# slurm.t: a whole mutation run on a one-node Slurm cluster started here from Debian's packages: one bundle (mutate.pl pack), a job array of shards each judging from its own unpacked copy, joined by report: the verdicts of the same bundle judged unsharded.
#
# munged, slurmctld and slurmd run in the foreground, in this test's folder (their own configuration, keys, state,
# sockets and ports); every daemon it started is ended by its PID, and the check that none is left first sees them
# live. Outside make check (make check-slurm): it judges the whole mutant set twice. MUTATE_ARGS (say --diff REV or
# --only ID...) chooses fewer mutants, MUTATE_VARIANT the judging kernel (judge), SLURM_SHARDS the array (3).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${UMLBED_BUILD:-${BUILD:-$top/build}}
export BUILD
. "$top/tests/lib/strict.sh"
. "$top/tests/lib/tap.sh"
# make check runs every test file under tests/ it is not told to leave out: this one runs only when asked for, since
# it judges the whole mutant set twice (hours on 2 cores), far past make check's budget.
if [ "${UMLBED_SLURM:-}" != 1 ]; then
	echo "1..0 # SKIP a whole mutation run twice on a Slurm cluster: make check-slurm (UMLBED_SLURM=1) runs it"
	exit 0
fi
for t in munged munge unmunge slurmctld slurmd sbatch sinfo jq; do
	command -v "$t" >/dev/null || prereq_skip_all "no $t (Debian packages munge, slurmctld, slurmd, slurm-client, jq)"
done
[ "$(id -u)" = 0 ] || prereq_skip_all "slurmd starts each job as its user: run as root"
if [ ! -x "$BUILD/runner/umlbed" ] || [ ! -x "$BUILD/guest/umlbed-agent" ]; then
	prereq_skip_all "no runner and agent (make guest runner)"
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/slurm-t.XXXXXX")
# munged wants every folder above its socket searchable by all.
chmod 755 "$T"
daemons=()
cleanup() {
	local p
	for p in "${daemons[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${daemons[@]}"; do wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
shards=${SLURM_SHARDS:-3}
read -ra args <<<"${MUTATE_ARGS:-}"

# ---- The bundle, and the same bundle judged unsharded ----
"$top/uml-kernel/mutate.pl" pack --variant "${MUTATE_VARIANT:-judge}" "${args[@]}" --out "$T/pack.tar.gz" >"$T/pack.out" 2>&1
check "mutate.pl pack writes one bundle" [ -s "$T/pack.tar.gz" ]
tail -n 3 "$T/pack.out" | diag
mkdir "$T/whole"
tar -C "$T/whole" -xzf "$T/pack.tar.gz"
W=$T/whole/umlbed-mutate-pack
"$W/uml-kernel/mutate.pl" run --bundle "$W" --out "$T/unsharded" >"$T/unsharded.out" 2>&1
check "the bundle judged unsharded (exit $?)" eval 'jq -e ".partial != true and (.results | length) > 0" "$T/unsharded/results.json" >/dev/null'

# ---- A one-node cluster ----
mkdir -p "$T/munge" "$T/key" "$T/state" "$T/spool" "$T/out"
chmod 755 "$T/munge" "$T/state" "$T/spool" "$T/out"
chmod 700 "$T/key"
head -c 1024 /dev/urandom >"$T/key/munge.key"
chmod 400 "$T/key/munge.key"
munged --foreground --socket="$T/munge/munge.sock" --key-file="$T/key/munge.key" --pid-file="$T/munge/munged.pid" \
	--log-file="$T/munge/munged.log" --seed-file="$T/munge/munged.seed" >"$T/munge/out" 2>&1 &
daemons+=($!)
# Free ports for slurmctld and slurmd: two that nothing listens on now.
ports=()
for p in $(seq 16817 16899); do
	[ ${#ports[@]} = 2 ] && break
	(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || ports+=("$p")
done
cat >"$T/slurm.conf" <<EOF
ClusterName=umlbedtest
SlurmctldHost=localhost
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
AuthType=auth/munge
AuthInfo=socket=$T/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=localhost CPUs=$(nproc) State=UNKNOWN
PartitionName=umlbed Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$T/slurm.conf
# munged first: slurmctld and slurmd authenticate through it.
for _ in $(seq 100); do [ -S "$T/munge/munge.sock" ] && munge -S "$T/munge/munge.sock" -n >/dev/null 2>&1 && break; sleep 0.1; done
slurmctld -D -f "$T/slurm.conf" >"$T/slurmctld.out" 2>&1 &
daemons+=($!)
slurmd -D -f "$T/slurm.conf" -N localhost >"$T/slurmd.out" 2>&1 &
daemons+=($!)
for _ in $(seq 300); do sinfo -h -o '%T' 2>/dev/null | grep -qx idle && break; sleep 0.1; done
check "a one-node Slurm cluster: munged, slurmctld and slurmd in the foreground, the node idle" \
	eval 'sinfo -h -o "%T" | grep -qx idle'
[ "$(sinfo -h -o '%T' 2>/dev/null)" = idle ] || { tail -n 5 "$T"/*.out "$T"/*.log 2>/dev/null | diag; }

# ---- The shards: an array job, each task its own copy of the bundle ----
# Each task unpacks the bundle into a folder of its own, as on a node's local disk, and takes its shard from Slurm's
# array variables (mutate.pl reads SLURM_ARRAY_TASK_ID, _MIN and _COUNT as umlbed run does); its workers are its CPUs.
cat >"$T/shard.sh" <<'EOF'
#!/bin/bash
set -u
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
tar -C "$d" -xzf "$1/pack.tar.gz" || exit 2
UMLBED_MUTATE_WORKERS=${SLURM_CPUS_PER_TASK:-1} \
	"$d/umlbed-mutate-pack/uml-kernel/mutate.pl" run --bundle "$d/umlbed-mutate-pack" --out "$1/out/shard-$SLURM_ARRAY_TASK_ID"
EOF
chmod 755 "$T/shard.sh"
sbatch --wait --array="1-$shards" --cpus-per-task=1 --output="$T/out/task-%a.txt" "$T/shard.sh" "$T" >"$T/sbatch.out" 2>&1
rc=$?
check "sbatch --wait --array=1-$shards: every task ended 0 (exit $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || { cat "$T/sbatch.out" "$T"/out/task-*.txt | tail -n 20 | diag; }
mapfile -t res < <(ls "$T"/out/shard-*/results.json 2>/dev/null)
check "... each wrote its results ($shards)" [ ${#res[@]} = "$shards" ]
check "... each of its own shard" eval '[ "$(jq -r .shard "${res[@]}" | sort | tr "\n" " ")" = "$(for k in $(seq "$shards"); do echo "$k/$shards"; done | sort | tr "\n" " ")" ]'

# ---- Joined: the verdicts of the unsharded run ----
"$top/uml-kernel/mutate.pl" report --gen "$(jq -r .generation "$T/unsharded/results.json")" --out "$T/report" "${res[@]}" \
	>"$T/report.out" 2>&1
check "mutate.pl report joins the shards (and applies the gate: exit $?, 0 or 1)" [ -s "$T/report/report.json" ]
tail -n 4 "$T/report.out" | diag
verdicts() { jq -r '.results[] | "\(.id) \(.verdict)"' "$@" | sort; }
# Two empty lists are equal too: the check holds only with verdicts to compare.
nv=$(verdicts "$T/unsharded/results.json" 2>/dev/null | wc -l)
check "the shards' verdicts are the unsharded run's, mutant by mutant ($nv)" \
	eval '[ "$nv" -gt 0 ] && cmp -s <(verdicts "$T/unsharded/results.json") <(verdicts "${res[@]}")'
diff <(verdicts "$T/unsharded/results.json") <(verdicts "${res[@]}") | head -n 20 | diag

# ---- Every daemon ended ----
check "the daemons run until the end (the probe: ${daemons[*]})" eval 'for p in "${daemons[@]}"; do kill -0 "$p" || exit 1; done'
for p in "${daemons[@]}"; do kill -TERM "$p"; done
for p in "${daemons[@]}"; do wait "$p" 2>/dev/null; done
check "... and none is left once each was ended by its PID" eval 'for p in "${daemons[@]}"; do ! kill -0 "$p" 2>/dev/null || exit 1; done'
daemons=()
echo "1..$n"
