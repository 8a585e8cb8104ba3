#!/usr/bin/env bash
# The batch job's allocation, read the same way by map, eval and plot
# (Slurm's and PBS's variables, set here as the batch system sets them);
# eval and plot read --ppn from a launch file's slot widths; the report
# says when the mapping and block use different numbers of nodes.
# Usage: test_allocation.sh RANKMAP SOURCE_DIR
. "$(dirname "$0")/lib.sh"
m=(-m "$desmos")
"$rankmap" gen stencil --dims 4x4x2 -o s32.mtx >/dev/null

# ranks_per_node_of CSV: the distinct ranks-per-node counts, sorted.
hosts_of() { tail -n +2 "$1" | cut -d, -f2 | sort -u | tr '\n' ' '; }
ranks_per_node_of() { tail -n +2 "$1" | cut -d, -f2 | sort | uniq -c | awk '{print $1}' | sort -u | tr '\n' ' '; }

# A Slurm job of 4 nodes, 8 tasks per node: the 32 ranks land on exactly
# those 4 (the machine has 32), 8 a node, and stderr says where from.
SLURM_JOB_NODELIST='node[04-05,20-21]' SLURM_NTASKS=32 SLURM_TASKS_PER_NODE='8(x4)' \
  "$rankmap" map s32.mtx "${m[@]}" --hwthreads -f csv -o slurm.csv --json slurm.json >out.txt 2>err.txt
[ "$(hosts_of slurm.csv)" = "node04 node05 node20 node21 " ] && [ "$(ranks_per_node_of slurm.csv)" = "8 " ] &&
  [ "$(json slurm.json baseline.nodes)" = 4 ] && grep -q "4 nodes (node\[04-05,20-21\]), 8 ranks per node from SLURM_JOB_NODELIST" err.txt &&
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
PBS_NODEFILE=$PWD/missing expect_error "missing PBS_NODEFILE" "missing: cannot open" x.csv -- map s4.mtx "${m[@]}" -f csv -o x.csv

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

# rankmap run says what is wrong before anything runs, in one line.
expect_error "run: a profile of another size" "s4.mtx: has 4 ranks, the job 8 (-np)" x -- \
  run -m "$desmos" --profile s4.mtx -np 8 --dry-run -- mpirun.openmpi ./app
printf '#!/bin/sh\n' >script.sh && chmod +x script.sh
expect_error "run: a program of no known MPI" "cannot tell which MPI './script.sh' links" x -- \
  run -m "$desmos" -np 4 --dry-run -- ./script.sh
expect_error "run: an unknown host of the launcher's" "--host nodeXX:2: unknown host 'nodeXX'" x -- \
  run -m "$desmos" --profile s4.mtx --dry-run -- mpirun.openmpi --host nodeXX:2 -np 4 ./app
expect_error "run: no program after the launcher" "'mpiexec.mpich' is given no program to launch" x -- \
  run -m "$desmos" --profile s4.mtx --dry-run -- mpiexec.mpich -n 4
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

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
