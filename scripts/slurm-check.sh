#!/bin/bash
# A real single-node Slurm on this machine, for BatchTests: Debian's munged, slurmctld and slurmd, each with
# its own socket, ports, state and logs in a scratch folder, started here and stopped on exit. It submits
# one sparse job array (--array=1,3,5,7) of `coif batch` and waits for it; COIF_SLURM_TASK (a task's command
# line) and COIF_SLURM_ARRAY (the --array) submit another array instead (VideoTryOnTests: a clip's segments).
#
#   scripts/slurm-check.sh COIF JOB.json OUT WORK
#
# Exit 0 when the array ran (the caller checks the outputs); 77 with a line saying why when Slurm cannot
# start here (not installed, no root, a daemon that does not come up); anything else is a failure.
set -u
coif=$1 job=$2 out=$3 work=$4
skip() { echo "slurm-check: skipping: $*"; exit 77; }
for tool in munged slurmctld slurmd sbatch scontrol; do
    command -v "$tool" > /dev/null || skip "$tool is not installed (Debian slurmctld, slurmd, slurm-client, munge)"
done
[ "$(id -u)" = 0 ] || skip "the daemons need root"
node=$(hostname -s)
mkdir -p "$work/state" "$work/spool" "$work/munge"
chmod 700 "$work/munge"
head -c 1024 /dev/urandom > "$work/munge/key"
chmod 600 "$work/munge/key"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null; done
    wait 2> /dev/null
}
trap cleanup EXIT

munged --force --key-file="$work/munge/key" --socket="$work/munge/socket" --pid-file="$work/munge/pid" \
       --log-file="$work/munge/log" --seed-file="$work/munge/seed" --foreground &
pids+=($!)
for _ in $(seq 50); do [ -S "$work/munge/socket" ] && break; sleep 0.1; done
[ -S "$work/munge/socket" ] || skip "munged did not start: $(tail -1 "$work/munge/log" 2> /dev/null)"

# Ports from the process id, so two runs on one machine do not collide.
port=$((20000 + ($$ % 20000)))
cat > "$work/slurm.conf" <<EOF
ClusterName=coiftest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=main Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
export SLURM_CONF=$work/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" &
pids+=($!)
slurmd -D -f "$SLURM_CONF" &
pids+=($!)
up=
for _ in $(seq 100); do
    if scontrol ping 2> /dev/null | grep -q UP && sinfo -h -o %T 2> /dev/null | grep -qE '^(idle|mixed|allocated)'; then up=1; break; fi
    sleep 0.2
done
[ -n "$up" ] || skip "slurmctld/slurmd did not come up: $(tail -1 "$work/slurmctld.log" 2> /dev/null) / $(tail -1 "$work/slurmd.log" 2> /dev/null)"

# Each task's command: COIF_SLURM_TASK when set (a video's segments), else the batch job's shard.
cat > "$work/array.sh" <<EOF
#!/bin/bash
${COIF_SLURM_TASK:-exec "$coif" batch "$job" --out "$out"}
EOF
chmod +x "$work/array.sh"
# By default a sparse array: IDs 1, 3, 5, 7, COUNT 4. Coif shards by position; ID % 4 would run shards 1 and
# 3 twice.
timeout 900 sbatch --wait --array="${COIF_SLURM_ARRAY:-1,3,5,7}" --cpus-per-task=1 --output="$work/task-%a.log" --chdir="$work" "$work/array.sh"
status=$?
for log in "$work"/task-*.log; do echo "== $log"; cat "$log"; done
exit $status
