#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A single-node Slurm cluster on localhost, for the tests and for trying kwb submit by hand
# (docs/cluster.md). Everything lives in DIR: the munge key and socket, slurm.conf, state and
# spool directories, logs, PID files; nothing under /etc or /var is touched. It runs as the
# current user (SlurmUser and SlurmdUser), so root is needed only where slurmd itself needs it.
#
#   scripts/slurm-local.sh start DIR   # prints "export SLURM_CONF=DIR/slurm.conf" on success
#   scripts/slurm-local.sh stop DIR
#
# Needs the Debian packages slurmctld, slurmd, slurm-client and munge (scripts/deps.txt).
# Exit status 0 when the node is idle and takes jobs; otherwise 1 and one line saying why.
set -u
cmd=${1:-}
dir=${2:-}
if [[ -z "$cmd" || -z "$dir" ]]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi
dir=$(realpath -m "$dir")

stop() {
  for f in "$dir/run/slurmd.pid" "$dir/run/slurmctld.pid" "$dir/munge/munged.pid"; do
    [[ -s "$f" ]] || continue
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$f"
  done
}

fail() {
  echo "slurm-local: $*" >&2
  stop
  exit 1
}

if [[ "$cmd" == stop ]]; then
  stop
  exit 0
fi
[[ "$cmd" == start ]] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

for tool in munged slurmctld slurmd sbatch squeue scontrol; do
  command -v "$tool" >/dev/null || PATH=$PATH:/usr/sbin command -v "$tool" >/dev/null \
    || fail "$tool is not installed (apt-get install slurmctld slurmd slurm-client munge)"
done
export PATH=$PATH:/usr/sbin
user=$(id -un)
host=$(hostname -s)
mkdir -p "$dir"/{munge,state,spool,log,run} || fail "cannot create $dir"
chmod 700 "$dir/munge"

# munge: a fresh key for this cluster alone, its socket in DIR.
key="$dir/munge/munge.key"
[[ -s "$key" ]] || { head -c 1024 /dev/urandom >"$key" && chmod 400 "$key"; } || fail "cannot write $key"
munged --force --key-file="$key" --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
  --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" >"$dir/log/munged.out" 2>&1 \
  || fail "munged did not start: $(tail -n 1 "$dir/log/munged.out")"
for _ in $(seq 50); do [[ -S "$dir/munge/munge.socket" ]] && break; sleep 0.1; done
[[ -S "$dir/munge/munge.socket" ]] || fail "munged made no socket ($dir/munge/munged.log)"

# Two free TCP ports for slurmctld and slurmd.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
cat >"$dir/slurm.conf" <<CONF
ClusterName=kwblocal
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
# Finished tasks stay visible to scontrol for 10 minutes (kwb status reads them there).
MinJobAge=600
SchedulerParameters=sched_interval=1
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" -i >"$dir/log/slurmctld.out" 2>&1 \
  || fail "slurmctld did not start: $(tail -n 1 "$dir/log/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" >"$dir/log/slurmd.out" 2>&1 \
  || fail "slurmd did not start: $(tail -n 1 "$dir/log/slurmd.log" 2>/dev/null)"
for _ in $(seq 150); do
  state=$(sinfo -h -N -o %t 2>/dev/null | head -n 1)
  [[ "$state" == idle ]] && { echo "export SLURM_CONF=$SLURM_CONF"; exit 0; }
  sleep 0.2
done
fail "the node did not become idle within 30 s (state '${state:-none}'; $dir/log/slurmd.log: $(tail -n 1 "$dir/log/slurmd.log" 2>/dev/null))"
