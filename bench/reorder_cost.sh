#!/usr/bin/env bash
# What one MPI_Cart_create with reorder = 1 costs under the shim (issue 31):
# 16 processes on 4 fake hosts and 256 on 16 under Open MPI (oversubscribed:
# two cores here; idle processes yield), the shim's own split of the time (gather, engine,
# broadcast, new communicator); then the engine alone at 4,096 processes
# through `rankmap reorder` (the same library call), round-robin launches.
# Usage: bench/reorder_cost.sh BUILD_DIR
set -eu
build=$(realpath "$1")
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FAKESSH_TMP=$work
mpicc.openmpi -O1 -o cart "$src/bench/reorder_cart.c"
machine() {  # NODES: a switch of NODES hosts of 16 cores
  printf 'name = "fake"\n[network]\nkind = "switch"\nt_hop_ns = 100\nt_inj_ns = 400\nt_ej_ns = 400\n[[nodes]]\nhosts = "fake[0-%d]"\nhwloc = "package:2 core:8 pu:1"\n' "$(($1 - 1))"
}
for n in 16 256; do
  nodes=$([ "$n" = 16 ] && echo 4 || echo 16)
  machine "$nodes" >m$n.toml
  hosts=$(for ((i = 0; i < nodes; ++i)); do printf 'fake%d:%d,' "$i" $((n / nodes)); done)
  for reorder_on in "" "$work/m$n.toml"; do
    RANKMAP_MACHINE=$reorder_on RANKMAP_REORDER_TIMES=1 timeout 900 mpirun.openmpi --mca plm_rsh_agent "$src/tests/launch/fakessh" \
      --mca btl self,tcp --mca mpi_yield_when_idle true --oversubscribe -x LD_PRELOAD="$build/lib/librankmap-pmpi-openmpi.so" -x RANKMAP_MACHINE \
      -x RANKMAP_REORDER_TIMES --host "${hosts%,}" --map-by node -np $n ./cart 2>&1 | grep -E "MPI_Cart_create|rankmap: reorder" |
      sed "s/^/$n processes, $([ -n "$reorder_on" ] && echo rankmap || echo "MPI's own"): /"
  done
done
# The engine alone at 4,096: 256 hosts of 16, round-robin.
machine 256 >m4096.toml
{ echo "rank,host,socket,core,pu"; for ((p = 0; p < 4096; ++p)); do echo "$p,fake$((p % 256)),$(((p / 256) / 8)),$((p / 256)),"; done; } >rr4096.csv
"$build/cli/rankmap" reorder --cart 16x16x16 --periods 1,1,1 -m m4096.toml --mapping rr4096.csv -o new.csv --json r.json -q >/dev/null
python3 -c 'import json; d = json.load(open("r.json")); print("4096 processes, engine alone (rankmap reorder): %.1f ms; inter-node bytes %d against %d in launch order" % (1e3 * d["map_seconds"], d["inter_node_bytes"], d["baseline"]["inter_node_bytes"]))'
farm-bench -n 5 --vs true -- "$build/cli/rankmap" reorder --cart 16x16x16 --periods 1,1,1 -m m4096.toml --mapping rr4096.csv -o new2.csv -q
