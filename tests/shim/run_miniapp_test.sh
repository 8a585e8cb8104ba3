#!/usr/bin/env bash
# A mini-app of the team's (apps/), profiled under a real MPI, checked for
# its decomposition's pattern, then mapped end to end from the profile.
# Usage: run_miniapp_test.sh RANKMAP MPI halo3d|wavefront|fft2d
set -euo pipefail
rankmap=$1 mpi=$2 app=$3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Idle processes yield the CPU: 16 processes polling on 2 cores took
# 30x longer (bench/RESULTS.md, issue 51).
export OMPI_MCA_mpi_yield_when_idle=1
case $mpi in
  openmpi) launch=(mpirun.openmpi --oversubscribe --mca btl self,vader) ;;
  mpich) launch=(mpiexec.mpich) ;;
esac
case $app in
  halo3d) np=12 args=(3 2 2 1024 10) nodes="node[00-01]" ppn=6 ;;
  wavefront) np=8 args=(4 2 512 10) nodes="node[00-03]" ppn=2 ;;
  # 32-byte blocks among 16 ranks: Open MPI 4.1 runs the modified Bruck
  fft2d) np=16 args=(1 16 4 3) nodes="node[00-03]" ppn=4 ;;
esac
mpicc."$mpi" -O2 -I "$root/apps" "$root/apps/$app.c" -o "$work/$app"
cd "$work"
timeout 120 "$rankmap" profile -o app.rmp -- "${launch[@]}" -np "$np" "./$app" "${args[@]}"
python3 "$here/check_miniapp.py" app.rmp "$app" "${args[@]}"
"$rankmap" inspect app.rmp --top 3
"$rankmap" map app.rmp -m "$root/data/machines/desmos.toml" --nodes "$nodes" --ppn "$ppn" \
  -f openmpi -o app.rankfile --json app.json
[ "$(grep -c '^rank ' app.rankfile)" -eq "$np" ]
# The mapping must not put more bytes between nodes than the block mapping.
python3 -c "import json,sys; d=json.load(open('app.json')); sys.exit(d['inter_node_bytes'] > d['baseline']['inter_node_bytes'])"
