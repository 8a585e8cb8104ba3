#!/usr/bin/env bash
# Real launchers accept what rankmap writes, and ranks land where it says.
# Fake host names on this one machine: a stand-in remote shell (fakessh)
# runs each host's daemon locally with FAKE_HOST set; the fake nodes have
# this machine's own hwloc tree, so CPU binding is real.
# Usage: run_launch_test.sh openmpi|mpich RANKMAP
set -u
mpi=$1
rankmap=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
passed=0
failed=0

case $mpi in
  openmpi)
    mpicc=mpicc.openmpi
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # Idle processes yield the CPU: 16 processes polling on 2 cores took
    # 30x longer (bench/RESULTS.md, issue 51).
    export OMPI_MCA_mpi_yield_when_idle=1
    # Shared memory between fake nodes crashes Open MPI: use TCP.
    launch() { mpirun.openmpi --mca plm_rsh_agent "$here/fakessh" --mca btl self,tcp --rankfile "$1" -np "$2" "${@:3}"; }
    ;;
  mpich)
    mpicc=mpicc.mpich
    launch() { mpiexec.mpich -launcher ssh -launcher-exec "$here/fakessh" -f "$1" -n "$2" "${@:3}"; }
    ;;
  *) echo "usage: $0 openmpi|mpich RANKMAP" >&2; exit 2 ;;
esac

export here FAKESSH_TMP=$work
export -f launch
# run_launch FILE RANKS CSV: the launcher, bounded in time.
run_launch() { timeout 60 bash -c 'launch "$@"' _ "$1" "$2" ./check_placement "$3"; }

$mpicc -O1 -o check_placement "$here/check_placement.c" -lhwloc || { echo "cannot build the test program"; exit 1; }
lstopo-no-graphics --of xml >node.xml 2>/dev/null || { echo "lstopo failed"; exit 1; }
cat >fake.toml <<'TOML'
name = "fake"
[network]
dims = [3]
t_hop_ns = 100
t_inj_ns = 400
t_ej_ns = 400
[[nodes]]
hosts = "fake[0-2]"
hwloc_xml = "node.xml"
TOML

# scenario NAME RANKS MAP-OPTIONS...: map, write the launcher's file and the
# csv the ranks check themselves against, launch, expect every rank placed.
scenario() {
  local name=$1 ranks=$2
  shift 2
  "$rankmap" gen stencil --dims "$ranks" -o "$name.mtx" >/dev/null
  "$rankmap" map "$name.mtx" -m fake.toml "$@" -f "$mpi" -o "$name.launch" -q >/dev/null &&
    "$rankmap" map "$name.mtx" -m fake.toml "$@" -f csv -o "$name.csv" -q >/dev/null || {
    failed=$((failed + 1)); echo "FAIL: $name: rankmap map"; return; }
  if run_launch "$name.launch" "$ranks" "$name.csv" >"$name.out" 2>&1 &&
    grep -q "placement ok: $ranks ranks checked" "$name.out"; then
    passed=$((passed + 1)); echo "ok: $name"
  else
    failed=$((failed + 1)); echo "FAIL: $name"; cat "$name.out"; echo "--- $name.launch:"; cat "$name.launch"
  fi
}

# Interleaved hosts on a partial allocation: ranks alternate fake0, fake1.
scenario rr 4 --nodes "fake[0-1]" --baseline rr
# Seeded random slots over three hosts (one left with a free core).
scenario random 5 --baseline random --seed 5
# Hybrid ranks: each bound to all of its --cpus-per-rank cores (here the
# node's two), one rank a node.
scenario hybrid 3 --cpus-per-rank "$(lstopo-no-graphics --only core | wc -l)"

# caught NAME LAUNCH RANKS CSV WHY: the launch checked against a csv that
# disagrees with it must say so, and why.
caught() {
  run_launch "$2" "$3" "$4" >"$4.out" 2>&1
  if grep -q "placement WRONG: $3 ranks checked" "$4.out" && grep -qF "$5" "$4.out"; then
    passed=$((passed + 1)); echo "ok: $1 is caught"
  else
    failed=$((failed + 1)); echo "FAIL: $1 was not caught"; cat "$4.out"
  fi
}
# The check itself can fail: a csv that disagrees with the launch file ...
sed 's/^0,fake0,/0,fake1,/' rr.csv >wrong.csv
caught "a wrong expectation" rr.launch 4 wrong.csv "on host fake0, expected fake1"
# ... and a rank bound to one core where its block is two (hybrid.csv's
# cores "0-1" cut to "0").
if grep -q '^0,[^,]*,[^,]*,0-' hybrid.csv; then
  sed 's/^\([0-9]*,[^,]*,[^,]*\),0-[0-9]*,/\1,0,/' hybrid.csv >narrow.csv
  caught "a rank's block narrower than its binding" hybrid.launch 3 narrow.csv "expected 0 (core 0 pu )"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
