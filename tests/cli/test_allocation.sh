#!/usr/bin/env bash
# The batch job's allocation, read the same way by map, eval and plot
# (Slurm's and PBS's variables, set here as the batch system sets them);
# eval and plot read --ppn from a launch file's slot widths; the report
# says when the mapping and block use different numbers of nodes.
# Usage: test_allocation.sh RANKMAP SOURCE_DIR
. "$(dirname "$0")/lib.sh"
m=(-m "$desmos")
"$rankmap" gen stencil --dims 4x4x2 -o s32.mtx >/dev/null
# The program the dry runs below name: rankmap run refuses one that is not there.
printf '#!/bin/sh\n' >app && chmod +x app

# ranks_per_node_of CSV: the distinct ranks-per-node counts, sorted.
hosts_of() { tail -n +2 "$1" | cut -d, -f2 | sort -u | tr '\n' ' '; }
ranks_per_node_of() { tail -n +2 "$1" | cut -d, -f2 | sort | uniq -c | awk '{print $1}' | sort -u | tr '\n' ' '; }

# A Slurm job of 4 nodes, 8 tasks per node: the 32 ranks land on exactly
# those 4 (the machine has 32), 8 a node, and stderr says where from.
SLURM_JOB_NODELIST='node[04-05,20-21]' SLURM_NTASKS=32 SLURM_TASKS_PER_NODE='8(x4)' \
  "$rankmap" map s32.mtx "${m[@]}" --hwthreads -f csv -o slurm.csv --json slurm.json >out.txt 2>err.txt
[ "$(hosts_of slurm.csv)" = "node04 node05 node20 node21 " ] && [ "$(ranks_per_node_of slurm.csv)" = "8 " ] &&
  [ "$(json slurm.json baseline.nodes)" = 4 ] && grep -q "4 nodes (node\[04-05,20-21\]) from SLURM_JOB_NODELIST, 8 ranks per node from SLURM_TASKS_PER_NODE" err.txt &&
  ok || bad "Slurm allocation: $(hosts_of slurm.csv) / $(ranks_per_node_of slurm.csv) / $(cat err.txt)"

# --nodes and --ppn override the job's.
SLURM_JOB_NODELIST='node[04-05,20-21]' SLURM_NTASKS_PER_NODE=8 \
  "$rankmap" map s32.mtx "${m[@]}" --nodes 'node[00-07]' --ppn 4 -f csv -o override.csv -q >/dev/null 2>err.txt
[ "$(hosts_of override.csv)" = "node00 node01 node02 node03 node04 node05 node06 node07 " ] && [ ! -s err.txt ] &&
  ok || bad "--nodes overrides the job: $(hosts_of override.csv) $(cat err.txt)"

# PBS: a host a line per slot, full names; hosts the machine knows by
# their short names.
printf 'node09.cluster\nnode09.cluster\nnode08.cluster\nnode08.cluster\n' >pbs_nodes
"$rankmap" gen stencil --dims 2x2 -o s4.mtx >/dev/null
PBS_NODEFILE=$PWD/pbs_nodes "$rankmap" map s4.mtx "${m[@]}" -f csv -o pbs.csv -q >/dev/null
[ "$(hosts_of pbs.csv)" = "node08 node09 " ] && [ "$(ranks_per_node_of pbs.csv)" = "2 " ] && ok ||
  bad "PBS_NODEFILE: $(cat pbs.csv)"

# A host of the job the machine does not have is blamed on the variable.
SLURM_JOB_NODELIST='node[00-01],gpu7' expect_error "unknown host from Slurm" \
  "SLURM_JOB_NODELIST: unknown host 'gpu7'" x.csv -- map s4.mtx "${m[@]}" -f csv -o x.csv
SLURM_JOB_NODELIST='node00' SLURM_NTASKS=4 SLURM_TASKS_PER_NODE='4(x' expect_error "malformed task counts" \
  "SLURM_TASKS_PER_NODE: expected counts like 4(x2),3, got '4(x'" x.csv -- map s4.mtx "${m[@]}" -f csv -o x.csv
PBS_NODEFILE=$PWD/missing expect_error "missing PBS_NODEFILE" "PBS_NODEFILE: $PWD/missing: cannot open" x.csv -- map s4.mtx "${m[@]}" -f csv -o x.csv
# A host's lines are its ranks: 7 lines of node00 (6 cores) blame the file,
# not --ppn, which the user never gave.
printf 'node00\n%.0s' 1 2 3 4 5 6 7 >pbs_seven
PBS_NODEFILE=$PWD/pbs_seven expect_error "PBS lines past a host's cores" \
  "PBS_NODEFILE $PWD/pbs_seven: 7 ranks per node do not fit host 'node00', which has 6 cores" x.csv -- map s4.mtx "${m[@]}" -f csv -o x.csv

# srun -c 4 (SLURM_CPUS_PER_TASK, hardware threads; desmos has 2 a core):
# 2 cores a rank, said with the variable; SLURM_NTASKS unlike the graph's
# 4 ranks gets a warning, and ranks per node come from SLURM_NTASKS_PER_NODE.
SLURM_JOB_NODELIST='node[00-01]' SLURM_NTASKS=6 SLURM_NTASKS_PER_NODE=2 SLURM_TASKS_PER_NODE='2(x2)' \
  SLURM_CPUS_PER_TASK=4 "$rankmap" map s4.mtx "${m[@]}" -f csv -o cpt.csv >/dev/null 2>err.txt
cores_per_rank=$(tail -n +2 cpt.csv | cut -d, -f4 | awk -F- '{ print $2 - $1 + 1 }' | sort -u)
[ "$cores_per_rank" = 2 ] && grep -q "2 ranks per node from SLURM_NTASKS_PER_NODE, 2 cores a rank from SLURM_CPUS_PER_TASK=4" err.txt &&
  grep -q "warning: the batch job has SLURM_NTASKS=6 tasks, but s4.mtx has 4 ranks" err.txt && ok ||
  bad "SLURM_CPUS_PER_TASK and SLURM_NTASKS: $(cat cpt.csv err.txt)"

# eval and plot in the same job read the same allocation: no flag needed.
SLURM_JOB_NODELIST='node[04-05,20-21]' SLURM_NTASKS=32 SLURM_TASKS_PER_NODE='8(x4)' \
  "$rankmap" eval s32.mtx "${m[@]}" --hwthreads --mapping slurm.csv --json eval.json -q >/dev/null &&
  [ "$(json eval.json hop_bytes)" = "$(json slurm.json hop_bytes)" ] &&
  [ "$(json eval.json baseline.hop_bytes)" = "$(json slurm.json baseline.hop_bytes)" ] && ok ||
  bad "eval in the same job: $(cat eval.json 2>/dev/null | head -5)"

# eval and plot without --ppn read it from the slot widths: a rankfile of
# 2 ranks a node (3-core slots on the 6-core nodes) scores as map did.
"$rankmap" map s32.mtx "${m[@]}" --ppn 2 -o ppn2.rank --json ppn2.json -q >/dev/null
"$rankmap" eval s32.mtx "${m[@]}" --mapping ppn2.rank --json ppn2-eval.json >/dev/null 2>err.txt &&
  [ "$(json ppn2-eval.json baseline.hop_bytes)" = "$(json ppn2.json baseline.hop_bytes)" ] &&
  [ "$(json ppn2-eval.json hop_bytes)" = "$(json ppn2.json hop_bytes)" ] && grep -q -- "--ppn 2: the slot widths of ppn2.rank" err.txt &&
  ok || bad "eval reads --ppn from the slots: $(cat err.txt)"
"$rankmap" plot s32.mtx "${m[@]}" --mapping ppn2.rank --what links -o ppn2.svg >/dev/null 2>err.txt && ok ||
  bad "plot reads --ppn from the slots: $(cat err.txt)"

# The CPMD cluster of the issue: 16 ranks at --ppn 4 on 16 nodes; block
# packs 4 nodes, and the report says how many the mapping uses and why.
cpmd=$src/data/machines/cpmd-ib-16.toml
"$rankmap" map "$src/tests/data/fft2d-16.rmp" -m "$cpmd" --ppn 4 -o cpmd.rank --json cpmd.json -q >cpmd.txt
nodes=$(json cpmd.json nodes)
base=$(json cpmd.json baseline.nodes)
if [ "$base" = 4 ] && [ "$(json cpmd.json nodes_differ)" = "$([ "$nodes" != 4 ] && echo True || echo False)" ]; then
  if [ "$nodes" != 4 ]; then
    grep -q "^nodes: $nodes used by rankmap default, 4 by block: the flow model predicts" cpmd.txt &&
      grep -q "flow model" <<<"$(json cpmd.json nodes_why)" && ok || bad "CPMD: no line on the node counts: $(cat cpmd.txt)"
  else
    ! grep -q "^nodes:" cpmd.txt && ok || bad "CPMD: a node-count line for equal counts"
  fi
else
  bad "CPMD node counts: mapping $nodes, block $base, nodes_differ $(json cpmd.json nodes_differ)"
fi

# rankmap run says what is wrong before anything runs, in one line, and
# leaves no folder behind in $TMPDIR (a dry run's stays only once its
# command is printed).
export RANKMAP_CACHE_DIR=$PWD/cache TMPDIR=$PWD/tmp  # here, not in /tmp
mkdir tmp
expect_error "run: a profile of another size" "s4.mtx: has 4 ranks, the job 8 (-np)" x -- \
  run -m "$desmos" --profile s4.mtx -np 8 --dry-run -- mpirun.openmpi ./app
printf '#!/bin/sh\n' >script.sh && chmod +x script.sh
expect_error "run: a program of no known MPI" "cannot tell which MPI './script.sh' links" x -- \
  run -m "$desmos" -np 4 --dry-run -- ./script.sh
expect_error "run: an unknown host of the launcher's" "--host nodeXX:2: unknown host 'nodeXX'" x -- \
  run -m "$desmos" --profile s4.mtx --dry-run -- mpirun.openmpi --host nodeXX:2 -np 4 ./app
expect_error "run: no program after the launcher" "'mpiexec.mpich' is given no program to launch" x -- \
  run -m "$desmos" --profile s4.mtx --dry-run -- mpiexec.mpich -n 4
[ -z "$(ls -A tmp)" ] && ok || bad "run's failed dry runs left folders in \$TMPDIR: $(ls -A tmp)"
# --dry-run prints the launcher's command; --keep has every file; the
# launcher's own placement options give way to the machinefile's; 32
# ranks of a 4x4x2 stencil on 4 nodes of 12 hardware threads take 8 a
# node (2x2x2 boxes: 32,768 hop-bytes, against 36,864 filling 3 nodes).
"$rankmap" run -q -m "$desmos" --profile s32.mtx --nodes 'node[00-03]' --hwthreads -np 32 --keep kept --dry-run \
  -- mpiexec.mpich -bind-to core -n 32 ./app arg >dry.txt 2>err.txt
[ "$(cat dry.txt)" = "mpiexec.mpich -f $PWD/kept/machinefile -n 32 ./app arg" ] && [ ! -s err.txt ] &&
  [ "$(tail -n +2 kept/mapping.csv | wc -l)" = 32 ] && [ -s kept/report.json ] && [ -s kept/report.txt ] &&
  [ "$(cut -d: -f1 kept/machinefile | sort -u | grep -c '^node0[0-3]$')" = 4 ] &&
  [ "$(cut -d: -f1 kept/machinefile | sort -u | wc -l)" = 4 ] && ok ||
  bad "run --dry-run: $(cat dry.txt err.txt)"

# Issue 50: the application's options are the application's, each
# launcher's options with values pass through, and -np given twice must
# agree. A bare program's "-n 3" is its own: the 32 ranks are -np's.
"$rankmap" run -q -m "$desmos" --profile s32.mtx --nodes 'node[00-03]' --hwthreads -np 32 --mpi openmpi --dry-run \
  -- ./app -n 3 >bare.txt 2>err.txt
grep -q -- "-np 32 --rankfile .* ./app -n 3$" bare.txt && [ -s "$(sed 's/.*--rankfile \([^ ]*\) .*/\1/' bare.txt)" ] &&
  ok || bad "run -- ./app -n 3 (its rankfile kept): $(cat bare.txt err.txt)"
expect_error "run: -np against the launcher's" "32 ranks, but the launcher's own options ask for 4" x -- \
  run -m "$desmos" --profile s32.mtx --nodes 'node[00-03]' --hwthreads -np 32 --dry-run -- mpirun.openmpi -np 4 ./app
"$rankmap" run -q -m "$desmos" --profile s32.mtx --nodes 'node[00-03]' --hwthreads --dry-run \
  -- mpirun.openmpi --timeout 60 -wd /tmp -rank-by core -np 32 ./app -f input >ompi.txt 2>err.txt
grep -q -- "^mpirun.openmpi --timeout 60 -wd /tmp -np 32 --rankfile [^ ]* ./app -f input$" ompi.txt && ok ||
  bad "run -- mpirun --timeout 60: $(cat ompi.txt err.txt)"
# Issue 52: the launcher's placement options the launch file replaces are
# named; a hybrid run's threads get the OMP_* variables map prints, passed
# to every node (-x); a program that is not there is refused before any
# launch, and a dry run says so.
"$rankmap" gen stencil --dims 2x2x2 -o s8.mtx >/dev/null
env -u OMP_NUM_THREADS -u OMP_PLACES -u OMP_PROC_BIND "$rankmap" run -m "$desmos" --profile s8.mtx \
  --nodes 'node[00-03]' --cpus-per-rank 2 --dry-run -- mpirun.openmpi --map-by ppr:2:node --bind-to core -np 8 ./absent \
  >hybrid.txt 2>err.txt
grep -q "^OMP_NUM_THREADS=2 OMP_PLACES=cores OMP_PROC_BIND=close mpirun.openmpi -x OMP_NUM_THREADS -x OMP_PLACES -x OMP_PROC_BIND -np 8 --rankfile [^ ]* ./absent$" hybrid.txt &&
  grep -q "left out of the launcher's options: --map-by ppr:2:node --bind-to core$" err.txt &&
  grep -q "warning: ./absent: no such file" err.txt && ok || bad "run --cpus-per-rank, dropped options: $(cat hybrid.txt err.txt)"
expect_error "run: no such program" "./nonexist: no such file" x -- \
  run -m "$desmos" --profile s8.mtx --nodes 'node[00-03]' --mpi openmpi -np 8 -- ./nonexist
printf 'node00:12\nnode01:12\nnode02:12\nnode03:12\n' >hosts.txt
"$rankmap" run -q -m "$desmos" --profile s32.mtx --hwthreads --dry-run \
  -- mpiexec.mpich -genvlist A,B -hostfile hosts.txt -outfile-pattern out.%r -n 32 ./app >hydra.txt 2>err.txt
grep -q -- "^mpiexec.mpich -genvlist A,B -outfile-pattern out.%r -f [^ ]*/machinefile -n 32 ./app$" hydra.txt && ok ||
  bad "run -- mpiexec -hostfile: $(cat hydra.txt err.txt)"
# mpirun's own --oversubscribe: 32 ranks on the 12 threads of 2 nodes.
"$rankmap" run -q -m "$desmos" --profile s32.mtx --nodes 'node[00-01]' --dry-run \
  -- mpirun.openmpi --oversubscribe -np 32 ./app >over.txt 2>err.txt && grep -q -- "--oversubscribe -np 32" over.txt &&
  ok || bad "run -- mpirun --oversubscribe: $(cat over.txt err.txt)"
# A host file's "@file" is no host (the @file form is --nodes's only).
printf '@/etc/hostname slots=2\n' >at.txt
expect_error "run: @file in a host file" "at.txt:1: expected a host name, got '@/etc/hostname'" x -- \
  run -m "$desmos" --profile s32.mtx --dry-run -- mpirun.openmpi --hostfile at.txt -np 2 ./app
# A host name ending in 22 digits: a mapping, no "internal error".
"$rankmap" machine new -o long.toml --switch --hosts 'n1234567890123456789012[0-3]' --hwloc 'package:1 core:8' \
  >/dev/null 2>&1
"$rankmap" run -q -m long.toml --profile s32.mtx --dry-run -- mpirun.openmpi -np 32 ./app >long.txt 2>err.txt &&
  grep -q -- "-np 32 --rankfile" long.txt && ok || bad "run: long host numbers: $(cat long.txt err.txt)"

# The cache: never changed when it is not a private folder of this user's
# own (lstat first, dry runs too), refused in one line; made 0700 when
# missing.
mkdir -m 1777 shared && mkdir -m 0755 theirs && chown nobody theirs && mkdir -m 0700 target && ln -s target link
for bad_dir in shared theirs link; do
  RANKMAP_CACHE_DIR=$PWD/$bad_dir expect_error "cache $bad_dir" "$bad_dir: " x -- \
    run -m "$desmos" --profile s32.mtx --nodes 'node[00-03]' --hwthreads --dry-run -- mpirun.openmpi -np 32 ./app
done
[ "$(stat -c %a shared theirs target)" = "$(printf '1777\n755\n700')" ] && [ "$(stat -c %U theirs)" = nobody ] && ok ||
  bad "the cache changed a folder: $(stat -c '%n %a %U' shared theirs target)"
[ "$(stat -c %a cache)" = 700 ] && ok || bad "a new cache is not 0700: $(stat -c %a cache)"
# A damaged mapping entry (its JSON emptied) is said and made again; the
# next run hits. Another --ppn is another entry, and so is another
# SLURM_NTASKS_PER_NODE (each hits the --ppn run of its own count).
cached_run() { "$rankmap" run -m "$desmos" --profile s32.mtx --hwthreads --dry-run "$@" \
  -- mpirun.openmpi -np 32 ./app 2>&1 >/dev/null; }
cached_run --nodes 'node[00-07]' --ppn 4 >c1.txt
for f in cache/map-*.json; do : >"$f"; done
cached_run --nodes 'node[00-07]' --ppn 4 >c2.txt
cached_run --nodes 'node[00-07]' --ppn 4 >c3.txt
cached_run --nodes 'node[00-07]' --ppn 8 >c4.txt
SLURM_JOB_ID=1 SLURM_JOB_NODELIST='node[00-07]' SLURM_NTASKS_PER_NODE=8 cached_run >c5.txt
SLURM_JOB_ID=1 SLURM_JOB_NODELIST='node[00-07]' SLURM_NTASKS_PER_NODE=4 cached_run >c6.txt
! grep -q "cache hit" c1.txt && grep -q "mapping: the cached entry cannot be read" c2.txt &&
  ! grep -q "cache hit" c2.txt && grep -q "mapping: cache hit" c3.txt && ! grep -q "cache hit" c4.txt &&
  grep -q "mapping: cache hit" c5.txt && grep -q "mapping: cache hit" c6.txt &&
  [ "$(grep -o 'cache hit .*' c5.txt)" != "$(grep -o 'cache hit .*' c6.txt)" ] && ok ||
  bad "the mapping cache: $(cat c1.txt c2.txt c3.txt c4.txt c5.txt c6.txt)"
# The CPUs a task (srun -c 2) are part of the allocation the key holds:
# not c6's entry, and its own the next time.
SLURM_JOB_ID=1 SLURM_JOB_NODELIST='node[00-07]' SLURM_NTASKS_PER_NODE=4 SLURM_CPUS_PER_TASK=2 cached_run >c7.txt
SLURM_JOB_ID=1 SLURM_JOB_NODELIST='node[00-07]' SLURM_NTASKS_PER_NODE=4 SLURM_CPUS_PER_TASK=2 cached_run >c8.txt
! grep -q "mapping: cache hit" c7.txt && grep -q "mapping: cache hit" c8.txt && ok ||
  bad "the mapping cache and SLURM_CPUS_PER_TASK: $(cat c7.txt c8.txt)"

# A TMPDIR that does not exist: one line naming it.
TMPDIR=$PWD/none expect_error "run: TMPDIR missing" "TMPDIR=$PWD/none: is not a directory" x -- \
  run -m "$desmos" --profile s32.mtx --nodes 'node[00-03]' --hwthreads -- mpirun.openmpi -np 32 ./app
TMPDIR=$PWD/none expect_error "map -o -: TMPDIR missing" "TMPDIR=$PWD/none: is not a directory" x -- \
  map s32.mtx -m "$desmos" --nodes 'node[00-03]' --hwthreads -o -

# SIGHUP or SIGTERM while `run` maps, or while `map -o -` works: their
# private folders go with the process (the library's signal-safe cleanup),
# which ends as the signal ends it, also inside METIS (whose own SIGTERM
# trap once turned the signal into an error, or on two threads into a
# SIGSEGV that left the folder). The mapping of 16,384 geometric ranks
# takes seconds: the signal comes once the folder is there; the launcher is
# none, should it ever be reached.
"$rankmap" gen geometric --ranks 16384 -o geo.mtx -q >/dev/null
"$rankmap" machine new -o big.toml --dims 8x8x8 --hosts 'n[000-511]' --hwloc 'package:1 core:32' >/dev/null
signal_while_working() {
  local sig=$1 want=$2 folder=$3
  shift 3
  rm -rf sig && mkdir sig
  TMPDIR=$PWD/sig "$rankmap" "$@" >/dev/null 2>&1 &
  local pid=$! i
  for i in $(seq 200); do compgen -G "sig/$folder*" >/dev/null && break; sleep 0.05; done
  kill -"$sig" $pid
  wait $pid
  local status=$?
  [ $status = "$want" ] && [ -z "$(ls -A sig)" ] && ok ||
    bad "SIG$sig with $folder: status $status, left: $(ls -A sig)"
}
mkdir -p fakebin && printf '#!/bin/sh\n' >fakebin/mpirun && chmod +x fakebin/mpirun  # a launcher never reached
run_big=(run -m big.toml --profile geo.mtx --mpi openmpi -- "$PWD/fakebin/mpirun" -np 16384 ./app)
signal_while_working HUP 129 rankmap-run- "${run_big[@]}"
signal_while_working TERM 143 rankmap-run- "${run_big[@]}"
signal_while_working HUP 129 rankmap-stdout- map geo.mtx -m big.toml -o -
signal_while_working TERM 143 rankmap-stdout- map geo.mtx -m big.toml -o -

# A mapping whose local ranks sit on different CPUs on different nodes is
# written for Slurm all the same: srun binds nothing (.env), FILE.bind
# gives each rank's CPUs, and it reads back as the csv of the same mapping
# says (their readers share no code): the same hop-bytes and socket split.
"$rankmap" map s32.mtx "${m[@]}" --nodes 'node[00-05]' --baseline random --seed 3 -f csv -o random.csv -q >/dev/null
"$rankmap" map s32.mtx "${m[@]}" --nodes 'node[00-05]' --baseline random --seed 3 -f slurm -o random.hosts \
  >/dev/null 2>err.txt
"$rankmap" eval s32.mtx "${m[@]}" --nodes 'node[00-05]' --mapping random.csv --json from_csv.json -q >/dev/null
"$rankmap" eval s32.mtx "${m[@]}" --nodes 'node[00-05]' --mapping random.hosts --json from_slurm.json -q >/dev/null
[ "$(grep -c . random.hosts.bind)" = 32 ] && grep -q "^SLURM_CPU_BIND=none$" random.hosts.env &&
  grep -q "rankmap bind-task random.hosts.bind -- ./app" err.txt &&
  [ "$(json from_slurm.json hop_bytes)" = "$(json from_csv.json hop_bytes)" ] &&
  [ "$(json from_slurm.json cross_socket_bytes)" = "$(json from_csv.json cross_socket_bytes)" ] && ok ||
  bad "slurm with .bind: $(cat random.hosts.env err.txt)"

# -o /dev/null: the work is done and checked, and nothing is left beside.
before=$(ls | wc -l)
"$rankmap" map s32.mtx "${m[@]}" -f slurm -o /dev/null --json /dev/null >/dev/null 2>err.txt &&
  [ "$(ls | wc -l)" = "$before" ] && [ -c /dev/null ] && ok || bad "-o /dev/null: $(cat err.txt)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
