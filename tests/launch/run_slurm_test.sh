#!/usr/bin/env bash
# Slurm runs what rankmap writes: a controller and two slurmd daemons on
# this machine (fake0, fake1; slurmd -N, one port each; auth/none, so no
# munge key), the host file and .env of `--format slurm` given to srun
# inside an exclusive allocation, and every rank checks its host and CPU
# binding against the csv of the same mapping (check_placement.c, built
# without MPI: srun starts the processes). Exits 77 (skipped) with a
# message where Slurm is missing or its daemons cannot start.
# Then the same checks for `rankmap run` inside salloc and sbatch, and for
# the SPANK plugin (srun --rankmap=...), loaded from this test's
# plugstack.conf.
# Usage: run_slurm_test.sh RANKMAP [SPANK_PLUGIN]
set -u
rankmap=$(realpath "$1")
plugin=${2:+$(realpath "$2")}
here=$(cd "$(dirname "$0")" && pwd)
for tool in slurmctld slurmd srun salloc sinfo lstopo-no-graphics; do
  command -v $tool >/dev/null || { echo "SKIP: $tool is not installed (scripts/setup.sh installs slurm-wlm)"; exit 77; }
done
work=$(mktemp -d)
cd "$work" || exit 1
export SLURM_CONF=$work/slurm.conf RANKMAP_CACHE_DIR=$work/cache
stop() {
  for pid in "$work"/*.pid; do [ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null; done
  sleep 1
  rm -rf "$work"
}
trap stop EXIT
# Ports of this run: several test runs on one machine must not meet, and
# all four lie below the kernel's ephemeral range, which the outgoing
# connections of tests running beside this one take at random (20000 +
# $$ % 20000 once gave slurmctld a port an MPI test held: "Address already
# in use", and sinfo waited on the dead controller past the test's
# timeout). A port something listens on is passed over.
first_ephemeral=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
base=$((10000 + $$ % (first_ephemeral - 10000 - 4)))
listening() { command -v ss >/dev/null && ss -ltnH "( sport >= :$1 and sport <= :$(($1 + 3)) )" | grep -q .; }
for _ in $(seq 100); do
  listening "$base" || break
  base=$((10000 + (base - 10000 + 4) % (first_ephemeral - 10000 - 4)))
done
cpus=$(lstopo-no-graphics --only pu | wc -l)
cores=$(lstopo-no-graphics --only core | wc -l)
mkdir -p state spool
# The plugin for every srun and slurmstepd of this cluster (inactive
# without --rankmap); "required", for Slurm ignores an optional plugin's
# failure, and a bad --rankmap must stop srun.
if [ -n "$plugin" ]; then echo "required $plugin machine=$work/fake.toml" >plugstack.conf; else : >plugstack.conf; fi
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
PlugStackConfig=$work/plugstack.conf
TopologyPlugin=topology/tree
NodeName=fake[0-1] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$((base + 2))-$((base + 3))] CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=10 State=UP
CONF
# A switch a node under one top switch: scontrol show topology and each
# task's SLURM_TOPOLOGY_ADDR say so, for rankmap machine import.
cat >topology.conf <<'CONF'
# two leaves under one top
SwitchName=leaf0 Nodes=fake0
SwitchName=leaf1 Nodes=fake1 LinkSpeed=4
SwitchName=top Switches=leaf[0-1]
CONF
slurmctld -f slurm.conf >ctld.out 2>&1 || { echo "SKIP: slurmctld does not start: $(cat ctld.out)"; exit 77; }
for n in fake0 fake1; do
  slurmd -f slurm.conf -N $n >"$n.out" 2>&1 || { echo "SKIP: slurmd -N $n does not start: $(cat "$n.out")"; exit 77; }
done
# sinfo retries a controller that is not there for a minute or more: each
# call is bounded, and a controller that died (its log says fatal) ends the
# wait at once.
states() { timeout 5 sinfo -h -o '%T' 2>/dev/null | sort -u; }
for _ in $(seq 30); do
  [ "$(states)" = idle ] && break
  grep -q fatal slurmctld.log 2>/dev/null && break
  sleep 1
done
[ "$(states)" = idle ] || {
  echo "SKIP: the nodes did not come up: $(timeout 5 sinfo 2>&1)"; tail -5 slurmctld.log; exit 77; }

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
# of both nodes (map_cpu binds only to CPUs the step has); where the .env
# says SLURM_CPU_BIND=none, each task through rankmap bind-task HOSTFILE.bind.
run() {
  timeout 60 salloc -N2 --exclusive bash -c \
    'set -a; . "$2.env"; set +a
     wrap=(); [ "$SLURM_CPU_BIND" = none ] && wrap=("$4" bind-task "$2.bind" --)
     SLURM_HOSTFILE=$2 srun -n "$1" "${wrap[@]}" ./check_placement "$3"' _ "$1" "$2" "$3" "$rankmap"
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
# Local rank i on different CPUs on the two nodes (the first seed whose
# random slots do that): srun's one list cannot say it; the slurm format
# binds each task through FILE.bind and rankmap bind-task.
"$rankmap" gen stencil --dims $((2 * cpus)) -o scattered.mtx >/dev/null
for seed in $(seq 1 40); do
  "$rankmap" map scattered.mtx -m fake.toml --baseline random --seed "$seed" -f slurm -o probe.hosts -q >/dev/null 2>&1
  grep -q '^SLURM_CPU_BIND=none$' probe.hosts.env && break
done
if grep -q '^SLURM_CPU_BIND=none$' probe.hosts.env; then
  scenario scattered $((2 * cpus)) --baseline random --seed "$seed"
else
  echo "SKIP (scattered): no seed puts a local rank on different CPUs ($cpus CPUs a node)"
fi
# Hybrid ranks, one a node on all its cores: the .env's mask and
# SRUN_CPUS_PER_TASK give each task its block.
scenario hybrid 2 --cpus-per-rank "$(lstopo-no-graphics --only core | wc -l)"

# The check can fail: a csv that puts rank 0 on the other host.
awk -F, 'NR == 2 { $2 = ($2 == "fake0" ? "fake1" : "fake0") } { print }' OFS=, rr.csv >wrong.csv
run "$cpus" rr.hosts wrong.csv >wrong.out 2>&1
if grep -q "rank 0: on host fake., expected fake." wrong.out; then
  passed=$((passed + 1)); echo "ok: a wrong expectation is caught"
else
  failed=$((failed + 1)); echo "FAIL: a wrong expectation was not caught"; cat wrong.out
fi
# rankmap run inside the job: srun with rankmap's host file, on the job's
# nodes. Ranks r and r + C (C cores a node) talk, so the mapping pairs them
# on a node where srun's block would not.
n=$((2 * cores))
for ((r = 0; r < cores; ++r)); do echo "$r,$((r + cores)),100000"; echo "$((r + cores)),$r,100000"; done >pairs.csv
# expect NAME OUT: every rank where the csv says.
expect_all() {
  if [ "$(grep -c 'as the file says' "$2")" -eq "$n" ]; then
    passed=$((passed + 1)); echo "ok: $1: $n ranks where the file says"
  else
    failed=$((failed + 1)); echo "FAIL: $1"; cat "$2"
  fi
}
timeout 90 salloc -N2 --exclusive "$rankmap" run -m fake.toml --profile pairs.csv -np "$n" --keep run-salloc \
  -- ./check_placement run-salloc/mapping.csv >run-salloc.out 2>&1
expect_all "rankmap run in salloc" run-salloc.out
pairs=$(awk -F, -v c="$cores" 'NR > 1 { host[$1] = $2 } END { for (r = 0; r < c; ++r) if (host[r] != host[r + c]) print r }' run-salloc/mapping.csv)
[ -z "$pairs" ] && { passed=$((passed + 1)); echo "ok: the mapping pairs r with r + $cores"; } ||
  { failed=$((failed + 1)); echo "FAIL: the mapping: $(cat run-salloc/mapping.csv)"; }
grep -q "nodes from\|2 nodes (fake\[0-1\])" run-salloc.out && grep -q "SLURM_JOB_NODELIST" run-salloc.out &&
  { passed=$((passed + 1)); echo "ok: the nodes came from SLURM_JOB_NODELIST"; } ||
  { failed=$((failed + 1)); echo "FAIL: where the nodes came from"; cat run-salloc.out; }
cat >job.sh <<JOB
#!/bin/bash
"$rankmap" run -m fake.toml --profile pairs.csv --keep run-sbatch -- ./check_placement run-sbatch/mapping.csv
JOB
timeout 90 sbatch --wait -N2 --exclusive --ntasks-per-node="$cores" -o run-sbatch.out job.sh >/dev/null 2>&1
expect_all "rankmap run in an sbatch script (ranks from --ntasks-per-node)" run-sbatch.out

# A hybrid job as Angara-K1's FlowVision runs (several ranks a node, each
# a block of CPUs from srun -c): rankmap run reads SLURM_CPUS_PER_TASK,
# and every rank is bound to its block, as the kept csv says.
tpn=$([ "$cores" -ge 4 ] && echo 2 || echo 1)
n=$((2 * tpn))
for ((r = 0; r < n; ++r)); do echo "$r,$(((r + 1) % n)),1000"; done >hybrid-ring.csv
timeout 90 salloc -N2 --exclusive --ntasks-per-node="$tpn" -c $((cpus / tpn)) "$rankmap" run -m fake.toml \
  --profile hybrid-ring.csv --keep run-hybrid -- ./check_placement run-hybrid/mapping.csv >run-hybrid.out 2>&1
expect_all "rankmap run in salloc --ntasks-per-node=$tpn -c $((cpus / tpn))" run-hybrid.out
grep -q "from SLURM_CPUS_PER_TASK=$((cpus / tpn))" run-hybrid.out &&
  { passed=$((passed + 1)); echo "ok: CPUs a rank from SLURM_CPUS_PER_TASK"; } ||
  { failed=$((failed + 1)); echo "FAIL: SLURM_CPUS_PER_TASK not read"; cat run-hybrid.out; }
n=$((2 * cores))

# Allocations that do not hold whole nodes alike: uneven task counts
# (salloc -n3 -N2: 2 and 1), and nodes shared with another job (which
# holds a CPU of each). srun's one --cpu-bind list would bind outside the
# job's CPUs there (srun refused, status 192, where plain srun runs):
# rankmap maps onto exactly the CPUs the job holds (scontrol show job -d)
# and `rankmap bind-task` binds each task. Every rank checks its host and
# CPUs against the csv.
{ echo "0,1,1000"; echo "1,2,1000"; echo "2,0,1000"; } >three.csv
timeout 90 salloc -n3 -N2 "$rankmap" run -m fake.toml --profile three.csv --keep run-uneven \
  -- ./check_placement run-uneven/mapping.csv >run-uneven.out 2>&1
if [ "$(grep -c 'as the file says' run-uneven.out)" = 3 ] && grep -q "2,1 ranks on them" run-uneven.out; then
  passed=$((passed + 1)); echo "ok: rankmap run in salloc -n3 -N2 (2 and 1 tasks): 3 ranks where the file says"
else
  failed=$((failed + 1)); echo "FAIL: rankmap run in salloc -n3 -N2"; cat run-uneven.out
fi
if [ "$cpus" -ge 2 ]; then
  other=$(sbatch --parsable -N2 -n2 --wrap "sleep 120" 2>/dev/null)
  for _ in $(seq 30); do [ "$(squeue -h -j "$other" -o %T 2>/dev/null)" = RUNNING ] && break; sleep 0.5; done
  n_shared=$((2 * (cpus - 1)))
  awk -v n="$n_shared" 'BEGIN { for (r = 0; r < n; ++r) print r "," (r + 1) % n ",1000" }' >shared.csv
  timeout 90 salloc -n "$n_shared" -N2 bash -c 'scontrol show job -d "$SLURM_JOB_ID" | grep -o "CPU_IDs=[^ ]*"
    "$1" run -m fake.toml --profile shared.csv --keep run-shared -- ./check_placement run-shared/mapping.csv' \
    _ "$rankmap" >run-shared.out 2>&1
  scancel "$other" 2>/dev/null
  held=$(grep -o "CPU_IDs=[^ ]*" run-shared.out | head -1 | cut -d= -f2)
  # Every task bound inside the CPUs the job holds (by hand, from scontrol).
  outside=$(awk -v held="$held" 'BEGIN { n = split(held, parts, ","); for (i = 1; i <= n; ++i) {
      m = split(parts[i], r, "-"); for (c = r[1]; c <= (m > 1 ? r[2] : r[1]); ++c) ok[c] = 1 } }
    { m = split($3, parts, ","); for (i = 1; i <= m; ++i) if (!(parts[i] in ok)) print }' run-shared/hostfile.bind)
  if [ "$(grep -c 'as the file says' run-shared.out)" = "$n_shared" ] && [ -n "$held" ] && [ -z "$outside" ]; then
    passed=$((passed + 1)); echo "ok: rankmap run on nodes shared with another job: $n_shared ranks on the job's CPUs ($held)"
  else
    failed=$((failed + 1)); echo "FAIL: rankmap run on shared nodes (held $held; outside: $outside)"; cat run-shared.out
  fi
fi

if [ -z "$plugin" ]; then
  echo "SKIP (plugin): no SPANK plugin given (built when libslurm-dev is installed)"
else
  # The plugin with rankmap's layout: srun places by the host file, the
  # plugin binds (srun binds nothing: --cpu-bind=none).
  "$rankmap" map pairs.csv -m fake.toml -f slurm -o plug.hosts -q >/dev/null &&
    "$rankmap" map pairs.csv -m fake.toml -f csv -o plug.csv -q >/dev/null
  timeout 90 salloc -N2 --exclusive bash -c 'SLURM_HOSTFILE=plug.hosts srun -n "$1" --distribution=arbitrary \
    --cpu-bind=none --rankmap=pairs.csv ./check_placement plug.csv' _ "$n" >plug.out 2>&1
  expect_all "srun --rankmap with rankmap's host file: the plugin binds" plug.out
  # srun's own block layout: the plugin binds each node's ranks on its
  # cores; nothing talks inside a node, so in order: rank r on core r mod C
  # of fake(r / C) (by hand).
  { echo "rank,host,socket,core,pu"
    for ((r = 0; r < n; ++r)); do echo "$r,fake$((r / cores)),0,$((r % cores)),"; done; } >inorder.csv
  timeout 90 salloc -N2 --exclusive srun -n "$n" --cpu-bind=none --rankmap=pairs.csv ./check_placement inorder.csv >block.out 2>&1
  expect_all "srun --rankmap with srun's layout: bound inside nodes" block.out
  # srun -c C: one task a node, the plugin binds each to its block of all
  # C CPUs (by hand: rank r on fake r, cores 0 to C-1).
  echo "0,1,1000" >two.csv
  { echo "rank,host,socket,core,pu"; for r in 0 1; do echo "$r,fake$r,0,0-$((cores - 1)),"; done; } >wide.csv
  timeout 90 salloc -N2 --exclusive srun -n 2 -c "$cores" --cpu-bind=none --rankmap=two.csv ./check_placement wide.csv \
    >wide.out 2>&1
  # (On a node of C cores the block is the whole step, so the plugin's own
  # word that it bound nothing is what tells.)
  if [ "$(grep -c 'as the file says' wide.out)" -eq 2 ] && ! grep -q "keeps Slurm's binding" wide.out; then
    passed=$((passed + 1)); echo "ok: srun -c $cores --rankmap: each task bound to its block of $cores CPUs"
  else
    failed=$((failed + 1)); echo "FAIL: srun -c $cores --rankmap"; cat wide.out
  fi
  # The check can fail: without the plugin's binding a task has both cores.
  timeout 90 salloc -N2 --exclusive srun -n "$n" --cpu-bind=none ./check_placement inorder.csv >unbound.out 2>&1
  if [ "$cores" -gt 1 ] && grep -q "bound to CPUs" unbound.out; then
    passed=$((passed + 1)); echo "ok: without --rankmap the tasks are unbound (the check sees it)"
  elif [ "$cores" -gt 1 ]; then
    failed=$((failed + 1)); echo "FAIL: unbound tasks passed the check"; cat unbound.out
  fi
  # A bad option fails the step before any task starts, with one line.
  timeout 90 salloc -N2 --exclusive srun -n "$n" --rankmap=missing.rmp ./check_placement inorder.csv >bad.out 2>&1
  rc=$?
  if [ $rc -ne 0 ] && grep -q "rankmap: missing.rmp: cannot open" bad.out && ! grep -q "^rank " bad.out; then
    passed=$((passed + 1)); echo "ok: --rankmap=missing.rmp stops srun before the tasks"
  else
    failed=$((failed + 1)); echo "FAIL: a missing profile (rc $rc)"; cat bad.out
  fi
  # A mistyped plugstack.conf line ("machin=") must not take Slurm down:
  # both slurmd restart with it, and jobs that do not ask for rankmap run
  # (salloc with srun, sbatch); only srun --rankmap is refused, before its
  # tasks, in one line.
  echo "required $plugin machin=$work/fake.toml" >plugstack.conf
  for node in fake0 fake1; do kill "$(cat "slurmd-$node.pid")" 2>/dev/null; done
  for _ in $(seq 50); do compgen -G "slurmd-fake*.pid" >/dev/null || break; sleep 0.1; done
  restarted=1
  for node in fake0 fake1; do slurmd -f slurm.conf -N $node >"$node-bad.out" 2>&1 || restarted=0; done
  # Whether both came back idle, read now: after the jobs below a node can
  # still be completing the last one (a CI run failed on that race).
  idle=0
  for _ in $(seq 30); do [ "$(states)" = idle ] && idle=1 && break; sleep 1; done
  timeout 90 salloc -N2 --exclusive srun -n 2 hostname >plain.out 2>&1
  plain=$?
  printf '#!/bin/bash\nsrun -n 2 hostname\n' >plain.sh
  timeout 90 sbatch --wait -N2 -o plain-sbatch.out plain.sh >/dev/null 2>&1
  batch=$?
  timeout 90 salloc -N2 --exclusive srun -n "$n" --rankmap=pairs.csv ./check_placement inorder.csv >asked.out 2>&1
  asked=$?
  if [ $restarted = 1 ] && [ $idle = 1 ] && [ $plain = 0 ] && [ "$(grep -c . plain.out | head -1)" -ge 2 ] &&
    [ $batch = 0 ] && [ "$(grep -vc rankmap plain-sbatch.out)" = 2 ] && [ $asked != 0 ] &&
    grep -q "rankmap: --rankmap cannot be honoured: plugstack.conf argument 'machin=" asked.out &&
    ! grep -q "^rank " asked.out; then
    passed=$((passed + 1)); echo "ok: a bad plugstack.conf line: slurmd starts, jobs without --rankmap run, --rankmap refused"
  else
    failed=$((failed + 1))
    echo "FAIL: a bad plugstack.conf line (slurmd restarted $restarted, idle $idle, salloc $plain, sbatch $batch," \
      "--rankmap $asked)"
    cat fake0-bad.out fake1-bad.out plain.out plain-sbatch.out asked.out; timeout 5 sinfo
  fi
fi

# The network as Slurm describes it, three ways, imported: topology.conf
# itself, what scontrol shows, and each task's SLURM_TOPOLOGY_ADDR. All
# three make the same machine: two leaves under one top, fake0 and fake1 4
# hops apart (two levels up and down).
timeout 10 scontrol show topology >topo.txt 2>&1
timeout 60 salloc -N2 --exclusive srun -l --ntasks-per-node=1 printenv SLURM_TOPOLOGY_ADDR >addrs.txt 2>addrs.err
imported=0
for source in "slurm topology.conf" "scontrol topo.txt" "slurm-addr addrs.txt"; do
  # shellcheck disable=SC2086 # format and file, two words
  "$rankmap" machine import $source --hwloc-xml node.xml --level-gbps 100,200 -o "imported-${source%% *}.toml" \
    >>import.out 2>&1 &&
    "$rankmap" inspect "imported-${source%% *}.toml" | sed -n '/^network/,/^routing/p' >"imported-${source%% *}.txt" &&
    imported=$((imported + 1))
done
"$rankmap" machine import slurm topology.conf --hwloc-xml node.xml --linkspeed-gbps 25 -o speed.toml >>import.out 2>&1
printf 'src,dst,bytes\n0,1,1000\n' >pair.csv
hops=$("$rankmap" map pair.csv -m imported-scontrol.toml --nodes 'fake[0-1]' --ppn 1 -o pair.hosts --json - 2>/dev/null |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["max_dilation"])' 2>/dev/null)
if [ $imported = 3 ] && grep -q 'Level=' topo.txt && grep -q 'top.leaf1.fake1' addrs.txt &&
  cmp -s imported-slurm.txt imported-scontrol.txt && cmp -s imported-slurm.txt imported-slurm-addr.txt &&
  grep -q 'level 1  2 switches, 1 nodes each' imported-slurm.txt && [ "$hops" = 4 ] &&
  grep -q 'gbps = 100   # LinkSpeed x --linkspeed-gbps 25' speed.toml; then
  passed=$((passed + 1)); echo "ok: machine import from topology.conf, scontrol show topology and SLURM_TOPOLOGY_ADDR"
else
  failed=$((failed + 1)); echo "FAIL: machine import (imported $imported, hops '$hops')"
  cat import.out topo.txt addrs.txt imported-*.txt
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
