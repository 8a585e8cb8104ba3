#!/usr/bin/env bash
# rankmap run under a real launcher on fake hosts (fakessh, as
# run_launch_test.sh): the first run profiles the job then launches it
# mapped; the second maps from the cached profile; every rank checks its
# host and CPU binding against the csv of the mapping rankmap kept; a
# failing job's exit status comes back unchanged; SIGINT and SIGTERM reach
# the job, rankmap returns 130 and 143, and no temporary folder is left;
# the other MPI's launcher is refused.
# Two fake nodes of this machine's C cores, 2C ranks; the program passes
# 64 KiB to rank + C (CHECK_STRIDE=C): r and r + C talk, so block (0..C-1
# on one node, C..2C-1 on the other) sends every byte across nodes and the
# mapping none of them (only MPI_Init's and the check's few bytes stay:
# under 1 % of block's hop-bytes, worked by hand).
# Usage: run_rankmap_run_test.sh openmpi|mpich RANKMAP
set -u
mpi=$1
rankmap=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
unset PBS_NODEFILE
for v in ${!SLURM_@}; do unset "$v"; done
cores=$(lstopo-no-graphics --only core | wc -l)
[ "$cores" -ge 2 ] || { echo "SKIP: fewer than 2 cores"; exit 77; }
n=$((2 * cores))
export FAKESSH_TMP=$work RANKMAP_CACHE_DIR=$work/cache TMPDIR=$work/tmp CHECK_STRIDE=$cores
mkdir -p "$TMPDIR"

case $mpi in
  openmpi)
    mpicc=mpicc.openmpi
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # Idle processes yield the CPU: 16 processes polling on 2 cores took
    # 30x longer (bench/RESULTS.md, issue 51).
    export OMPI_MCA_mpi_yield_when_idle=1
    # The launcher named with its options, hosts from its --host.
    job=(mpirun.openmpi --mca plm_rsh_agent "$here/fakessh" --mca btl self,tcp -np $n --host fake0:$cores,fake1:$cores)
    # Without a launcher: rankmap picks mpirun.openmpi; fakessh through
    # Open MPI's environment.
    export OMPI_MCA_plm_rsh_agent=$here/fakessh OMPI_MCA_btl=self,tcp
    ;;
  mpich)
    mpicc=mpicc.mpich
    job=(mpiexec.mpich -launcher ssh -launcher-exec "$here/fakessh" -hosts fake0:$cores,fake1:$cores -n $n)
    export HYDRA_LAUNCHER=ssh HYDRA_LAUNCHER_EXEC=$here/fakessh
    ;;
  *) echo "usage: $0 openmpi|mpich RANKMAP" >&2; exit 2 ;;
esac
$mpicc -O1 -o app "$here/check_placement.c" -lhwloc || { echo "cannot build the test program"; exit 1; }
lstopo-no-graphics --of xml >node.xml || { echo "lstopo failed"; exit 1; }
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

# run NAME ARGS...: rankmap run, bounded in time; stdout+stderr in NAME.out.
run() {
  local name=$1
  shift
  timeout 120 "$rankmap" run -m fake.toml "$@" >"$name.out" 2>&1
}

# 1. First run: profile, then the mapped run.
run first --keep kept -- "${job[@]}" ./app kept/mapping.csv --if-mapped
rc=$?
if [ $rc -eq 0 ] && grep -q "profiling first" first.out && grep -q "no mapping to check yet: $n ranks" first.out &&
  grep -q "placement ok: $n ranks checked" first.out && [ "$(grep -c 'as the file says' first.out)" -eq $n ]; then
  ok "first run: profiled, mapped, $n ranks where the csv says"
else
  bad "first run (rc $rc)"; cat first.out
fi
hop=$(python3 -c 'import json; d = json.load(open("kept/report.json")); b = d["baseline"]["hop_bytes"]
print(d["hop_bytes"] * 100 < b and b >= '"$n"' * 10 * 65536)' 2>/dev/null)
[ "$hop" = True ] && ok "the mapping keeps each talking pair on a node (hop-bytes under 1 % of block's)" ||
  bad "hop-bytes of the mapping and block: '$hop'"
# r and r + C share a node.
pairs=$(awk -F, -v c="$cores" 'NR > 1 { host[$1] = $2 } END { for (r = 0; r < c; ++r) if (host[r] != host[r + c]) print r }' kept/mapping.csv)
[ -z "$pairs" ] && ok "kept csv pairs rank r with r + $cores" || bad "kept csv: $(cat kept/mapping.csv)"

# 2. Second run: the cached profile, no profiling run.
run second --keep kept -- "${job[@]}" ./app kept/mapping.csv --if-mapped
rc=$?
if [ $rc -eq 0 ] && grep -q "profile: cache hit" second.out && grep -q "mapping: cache hit" second.out &&
  ! grep -q "no mapping to check yet" second.out &&
  grep -q "placement ok: $n ranks checked" second.out; then
  ok "second run: profile and mapping from the cache, mapped run only"
else
  bad "second run (rc $rc)"; cat second.out
fi

grep -q "profile: cache hit .* (made [0-9-]* [0-9:]*; --profile-first profiles the job again)" second.out &&
  ok "the hit line says when the profile was made and how to profile again" || bad "hit line: $(grep 'cache hit' second.out)"

# 2b. An argument naming a file (an input deck) keys the profile by the
# file's size and time: changed, the job is profiled again.
# (The --keep folder's files, rewritten every run, are not keyed; the
# folder is named with a slash, as README writes it. The profiling run
# checks no placement while deck/mapping.csv is missing.)
echo "region box block 0 10" >deck.in
run deck1 --keep deck/ -- "${job[@]}" ./app deck/mapping.csv --if-mapped deck.in
run deck2 --keep deck/ -- "${job[@]}" ./app deck/mapping.csv --if-mapped deck.in
echo "region box block 0 40" >deck.in
rm -f deck/mapping.csv
run deck3 --keep deck/ -- "${job[@]}" ./app deck/mapping.csv --if-mapped deck.in
grep -q "profiling first" deck1.out && grep -q "profile: cache hit" deck2.out && grep -q "profiling first" deck3.out &&
  ! grep -q "profile: cache hit" deck3.out && ok "an input file: a hit unchanged, profiled again once changed" ||
  { bad "a changed input file"; cat deck1.out deck2.out deck3.out; }

# 3. No launcher named: rankmap chooses the one of the MPI the program links,
# hosts from --nodes; the files go to a private folder removed afterwards.
run bare --nodes 'fake[0-1]' -np $n -- ./app "$work/bare.csv" --if-mapped
rc=$?
grep -q "no mapping to check yet: $n ranks" bare.out && [ $rc -eq 0 ] && [ -z "$(ls "$TMPDIR" | grep rankmap-run)" ] &&
  ok "bare program: profiled with the chosen launcher, no folder left" || { bad "bare program (rc $rc)"; cat bare.out; }
run bare-dry --nodes 'fake[0-1]' -np $n --dry-run -- ./app "$work/bare.csv" --if-mapped
launcher=$([ "$mpi" = openmpi ] && echo "mpirun.openmpi -np $n --rankfile" || echo "mpiexec.mpich -f")
grep -q "^$launcher .*/rankmap-run-[^ ]*/\(rankfile\|machinefile\).* ./app $work/bare.csv --if-mapped" bare-dry.out &&
  ok "--dry-run prints the launcher's command" || { bad "--dry-run"; cat bare-dry.out; }
rm -rf "$TMPDIR"/rankmap-run-*  # a dry run keeps its files, for the command it printed

# 4. A failing job's status comes back unchanged.
CHECK_EXIT=7 run failing --keep kept -- "${job[@]}" ./app kept/mapping.csv --if-mapped
rc=$?
[ $rc -eq 7 ] && ok "exit status 7 passed through" || { bad "exit status: $rc, expected 7"; tail -5 failing.out; }

# 5. SIGINT and SIGTERM to rankmap reach the job, rankmap returns 128 +
# the signal whatever the launcher returned (a shell loop stops), and no
# temporary folder is left. A background job of a script ignores SIGINT:
# the wrapper gives rankmap, and so the job, the default back. The first
# run's profile is given: the csv named as an argument has changed since.
# The job's processes of this run alone: a second checkout's test runs the
# same command beside it, and its processes must neither count nor be
# killed here (their working folder is not ours).
ours() {
  for p in $(pgrep -f "^./app kept/mapping.csv --if-mapped"); do
    [ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$(pwd -P)" ] && echo "$p"
  done
}
for sig in INT TERM; do
  want=$([ $sig = INT ] && echo 130 || echo 143)
  CHECK_SLEEP=60 timeout 120 python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$rankmap" run -m fake.toml --profile kept/profile.rmp \
    -- "${job[@]}" ./app kept/mapping.csv --if-mapped >sig.out 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    grep -q "placement ok" sig.out && break
    sleep 0.2
  done
  sleep 0.5
  kill -$sig $pid
  start=$(date +%s)
  wait $pid
  rc=$?
  took=$(($(date +%s) - start))
  for _ in $(seq 50); do [ -n "$(ours)" ] || break; sleep 0.2; done  # busy: up to 10 s
  left=$(ours | wc -l)
  if grep -q "placement ok" sig.out && [ $rc -eq "$want" ] && [ "$took" -lt 30 ] && [ "$left" -eq 0 ] &&
    [ -z "$(ls "$TMPDIR" | grep rankmap-run)" ]; then
    ok "SIG$sig: the job stopped in ${took} s, rankmap exit $rc"
  else
    bad "SIG$sig: rc $rc (want $want) after ${took} s, $left processes left, tmp: $(ls "$TMPDIR")"; cat sig.out
    kill $(ours) 2>/dev/null
  fi
done

# 6. The program links this MPI; the other MPI's launcher is refused in
# one line before anything starts (its shim would kill the program).
other=$([ "$mpi" = openmpi ] && echo mpiexec.mpich || echo mpirun.openmpi)
run wrong -- "$other" -n 2 ./app kept/mapping.csv
rc=$?
linked=$([ "$mpi" = openmpi ] && echo "Open MPI" || echo "MPICH")
[ $rc -eq 1 ] && [ "$(wc -l <wrong.out)" = 1 ] && grep -q "./app links $linked" wrong.out && ok "the other MPI's launcher refused: $(cat wrong.out)" ||
  { bad "the other MPI's launcher (rc $rc)"; cat wrong.out; }

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
