#!/usr/bin/env bash
# Slurm runs what rankmap writes: a controller and two slurmd daemons on
# this machine (fake0, fake1; slurmd -N, one port each; auth/none, so no
# munge key), the host file and .env of `--format slurm` given to srun
# inside an exclusive allocation, and every rank checks its host and CPU
# binding against the csv of the same mapping (check_placement.c, built
# without MPI: srun starts the processes). Exits 77 (skipped) with a
# message where Slurm is missing or its daemons cannot start.
# Usage: run_slurm_test.sh RANKMAP
set -u
rankmap=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
for tool in slurmctld slurmd srun salloc sinfo lstopo-no-graphics; do
  command -v $tool >/dev/null || { echo "SKIP: $tool is not installed (scripts/setup.sh installs slurm-wlm)"; exit 77; }
done
work=$(mktemp -d)
cd "$work" || exit 1
export SLURM_CONF=$work/slurm.conf
stop() {
  for pid in "$work"/*.pid; do [ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null; done
  sleep 1
  rm -rf "$work"
}
trap stop EXIT
# Ports of this run: several test runs on one machine must not meet.
base=$((20000 + $$ % 20000))
cpus=$(lstopo-no-graphics --only pu | wc -l)
mkdir -p state spool
cat >slurm.conf <<CONF
ClusterName=rankmap-test
SlurmctldHost=localhost
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool/%n
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd-%n.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd-%n.log
ProctrackType=proctrack/pgid
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=fake[0-1] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$((base + 2))-$((base + 3))] CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=10 State=UP
CONF
slurmctld -f slurm.conf >ctld.out 2>&1 || { echo "SKIP: slurmctld does not start: $(cat ctld.out)"; exit 77; }
for n in fake0 fake1; do
  slurmd -f slurm.conf -N $n >"$n.out" 2>&1 || { echo "SKIP: slurmd -N $n does not start: $(cat "$n.out")"; exit 77; }
done
for _ in $(seq 30); do
  [ "$(sinfo -h -o '%T' 2>/dev/null | sort -u)" = idle ] && break
  sleep 1
done
[ "$(sinfo -h -o '%T' 2>/dev/null | sort -u)" = idle ] || {
  echo "SKIP: the nodes did not come up: $(sinfo 2>&1)"; tail -5 slurmctld.log; exit 77; }

gcc -O1 -DNO_MPI -o check_placement "$here/check_placement.c" -lhwloc || { echo "cannot build the check"; exit 1; }
lstopo-no-graphics --of xml >node.xml
cat >fake.toml <<'TOML'
name = "fake"
[network]
dims = [2]
t_hop_ns = 100
t_inj_ns = 400
t_ej_ns = 400
[[nodes]]
hosts = "fake[0-1]"
hwloc_xml = "node.xml"
TOML
passed=0
failed=0
# run RANKS HOSTFILE CSV: srun as README says, inside an exclusive allocation
# of both nodes (map_cpu binds only to CPUs the step has).
run() {
  timeout 60 salloc -N2 --exclusive bash -c \
    'set -a; . "$2.env"; set +a; SLURM_HOSTFILE=$2 srun -n "$1" ./check_placement "$3"' _ "$1" "$2" "$3"
}
scenario() {
  local name=$1 ranks=$2
  shift 2
  "$rankmap" gen stencil --dims "$ranks" -o "$name.mtx" >/dev/null
  "$rankmap" map "$name.mtx" -m fake.toml "$@" -f slurm -o "$name.hosts" -q >/dev/null &&
    "$rankmap" map "$name.mtx" -m fake.toml "$@" -f csv -o "$name.csv" -q >/dev/null || {
    failed=$((failed + 1)); echo "FAIL: $name: rankmap map"; return; }
  run "$ranks" "$name.hosts" "$name.csv" >"$name.out" 2>&1
  if [ "$(grep -c 'as the file says' "$name.out")" -eq "$ranks" ]; then
    passed=$((passed + 1)); echo "ok: $name: $(grep -c 'as the file says' "$name.out") ranks where the file says"
  else
    failed=$((failed + 1)); echo "FAIL: $name"; cat "$name.out" "$name.hosts" "$name.hosts.env"
  fi
}
# Interleaved hosts, one rank a core where the cores allow.
scenario rr "$cpus" --baseline rr
# Seeded random slots, a free core left on one node.
scenario random $((2 * cpus - 1)) --baseline random --seed 5
# rankmap's own mapping of every slot.
scenario engine $((2 * cpus))

# The check can fail: a csv that puts rank 0 on the other host.
awk -F, 'NR == 2 { $2 = ($2 == "fake0" ? "fake1" : "fake0") } { print }' OFS=, rr.csv >wrong.csv
run "$cpus" rr.hosts wrong.csv >wrong.out 2>&1
if grep -q "rank 0: on host fake., expected fake." wrong.out; then
  passed=$((passed + 1)); echo "ok: a wrong expectation is caught"
else
  failed=$((failed + 1)); echo "FAIL: a wrong expectation was not caught"; cat wrong.out
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
