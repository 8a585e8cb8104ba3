#!/usr/bin/env bash
# Benchmark: the PMPI shim's cost on a ping-pong under Open MPI (2 ranks on
# this machine, shared memory). Targets: at most 5 % slower at 8 bytes and
# 1 % at 64 KiB.
#
# Each job (bench/shim/ab_pingpong.c) alternates blocks of rounds through
# MPI_ (the shim's wrappers when preloaded) and PMPI_ (never wrapped) in the
# same processes, so the cost is measured inside one run, free of the +-8 %
# spread between separate jobs on a shared VM. Three preloads, REPEATS jobs
# each, interleaved:
#   none     - nothing preloaded: both paths are the same code, so its
#              ratio is the method's own error (should be 1.00);
#   forward  - bench/shim/forward_only.c, wrappers that only call PMPI: the
#              interposition floor that no PMPI tool goes below;
#   rankmap  - the shim.
# Prints, per message size and preload, the median, min and max over the
# jobs of each job's median block ratio (MPI_ time / PMPI_ time).
# Usage: bench/shim_overhead.sh [BUILD_DIR] [REPEATS]  (run it on a quiet machine)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
repeats=${2:-9}
out=bench/out/shim
mkdir -p "$out"
mpicc.openmpi -O2 bench/shim/ab_pingpong.c -o "$out/ab_pingpong"
mpicc.openmpi -O2 -shared -fPIC bench/shim/forward_only.c -o "$out/libforward_only.so"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
declare -A preload=([none]="" [forward]="$PWD/$out/libforward_only.so"
                    [rankmap]="$build/lib/librankmap-pmpi-openmpi.so")
run() {  # preload bytes rounds_per_block blocks -> the job's median ratio
  env ${preload[$1]:+LD_PRELOAD=${preload[$1]}} RANKMAP_PROFILE="$out/ab_pingpong.rmp" \
    mpirun.openmpi --bind-to core --mca btl self,vader -np 2 "$out/ab_pingpong" "$2" "$3" "$4" | awk '{print $2}'
}
printf '%-8s %-8s %8s %8s %8s %6s\n' bytes preload median min max jobs
for spec in "8 20000 40" "65536 500 40"; do
  declare -A ratios=()
  for ((i = 0; i < repeats; ++i)); do
    for p in none forward rankmap; do ratios[$p]+="$(run "$p" $spec) "; done
  done
  for p in none forward rankmap; do
    python3 - "${spec%% *}" "$p" "${ratios[$p]}" <<'PY'
import statistics, sys
r = list(map(float, sys.argv[3].split()))
print(f"{sys.argv[1]:<8} {sys.argv[2]:<8} {statistics.median(r):8.3f} {min(r):8.3f} {max(r):8.3f} {len(r):6d}")
PY
  done
  unset ratios
done
