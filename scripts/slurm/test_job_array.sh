#!/usr/bin/env bash
# Runs liftc_workers.sbatch on a single-node Slurm made here, against a throwaway
# PostgreSQL, and checks it: both array tasks run candidates of one exploration
# (`--workers external`), and `scancel` stops each worker cleanly. As root, on a machine
# without a Slurm of its own (it writes /etc/slurm and /etc/munge): Debian's slurmctld,
# slurmd, slurm-client and munge (`apt-get install slurmctld slurmd slurm-client munge`),
# PostgreSQL's initdb and pg_ctl (scripts/setup.sh), and the user liftc-pg to run it as.
# The node's two GPUs are stand-ins (gres.conf: /dev/null and /dev/zero): each task gets
# one, as --gres=gpu:1 asks, and its worker uses the OpenCL device there is (PoCL here).
#
#   sudo scripts/slurm/test_job_array.sh [BUILD_DIR]   # default build/
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
pg_bin="${LIFTC_PG_BIN:-/usr/lib/postgresql/15/bin}"
host="$(hostname -s)"
work="$(mktemp -d /tmp/liftc-slurm-XXXXXX)"
chown liftc-pg "$work"
# shellcheck disable=SC2317  # run by the trap
cleanup() {
  scancel --name=liftc-workers 2>/dev/null || true
  for f in /var/run/slurmd.pid /var/run/slurmctld.pid; do
    if [[ -s $f ]]; then kill "$(cat "$f")" 2>/dev/null || true; fi
  done
  runuser -u liftc-pg -- "$pg_bin/pg_ctl" -D "$work/data" -m immediate -w -s stop 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# munge: a key, the daemon.
mkdir -p /etc/munge /run/munge /var/log/munge /var/lib/munge
[[ -s /etc/munge/munge.key ]] || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
chown -R munge:munge /etc/munge /run/munge /var/log/munge /var/lib/munge
chmod 700 /etc/munge && chmod 400 /etc/munge/munge.key
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged --force
munge -n | unmunge >/dev/null

# Slurm: one node, two stand-in GPUs, no cgroups.
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
cat > /etc/slurm/slurm.conf <<EOF
ClusterName=liftc
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/var/run/slurmctld.pid
SlurmdPidFile=/var/run/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
ReturnToService=2
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
NodeName=$host CPUs=$(nproc) Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
printf 'NodeName=%s Name=gpu File=/dev/null\nNodeName=%s Name=gpu File=/dev/zero\n' "$host" "$host" > /etc/slurm/gres.conf
slurmctld
slurmd
for _ in $(seq 50); do sinfo -h -o %t | grep -q idle && break; sleep 0.2; done
sinfo

# PostgreSQL on a socket in the work folder.
runuser -u liftc-pg -- "$pg_bin/initdb" -D "$work/data" -U liftc -A trust -E UTF8 --locale=C --no-sync >/dev/null
runuser -u liftc-pg -- "$pg_bin/pg_ctl" -D "$work/data" -l "$work/server.log" -w -s \
  -o "-c listen_addresses='' -c unix_socket_directories='$work' -c fsync=off" start
psql -q "postgresql://liftc@/postgres?host=$work" -c "CREATE DATABASE tuning"
db="postgresql://liftc@/tuning?host=$work"

cd "$work"
LIFTC_DB="$db" LIFTC="$build/liftc" LIFTC_DEVICE="" LIFTC_LEASE=5 \
  sbatch --cpus-per-task=1 --array=0-1 "$root/scripts/slurm/liftc_workers.sbatch"
for _ in $(seq 100); do [[ $(squeue -h -t R | wc -l) -eq 2 ]] && break; sleep 0.2; done
squeue
"$build/liftc" explore "$root/examples/stencil2d.sr" -s stencil-parametric --evals 8 --workers external --jobs 2 -q --db "$db"
scancel --name=liftc-workers
for _ in $(seq 100); do [[ $(squeue -h | wc -l) -eq 0 ]] && break; sleep 0.2; done
sleep 1
status=0
for log in liftc-worker-*.log; do
  echo "== $log"
  cat "$log"
  grep -q "of run 1 (try 1): the runner exited with code 0" "$log" || { echo "FAIL: $log ran no candidate"; status=1; }
  grep -q "stopped by Terminated after" "$log" || { echo "FAIL: $log did not stop cleanly"; status=1; }
done
rows="$(psql -tA "$db" -c "SELECT count(*) FROM evaluations WHERE run = 1")"
[[ $rows -eq 8 ]] || { echo "FAIL: $rows rows, not 8"; status=1; }
[[ $status -eq 0 ]] && echo "PASS: a Slurm job array of 2 workers ran the 8 candidates and stopped on scancel"
exit $status
