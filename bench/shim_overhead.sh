#!/usr/bin/env bash
# Benchmark: the PMPI shim's cost on a ping-pong under Open MPI (2 ranks on
# this machine, shared memory), with and without the shim, alternating runs
# in the same session. Targets: at most 5 % slower at 8 bytes, 1 % at 64 KiB.
# Prints the median round trip of each, and the ratio.
# Usage: bench/shim_overhead.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
repeats=${2:-7}
out=bench/out/shim
mkdir -p "$out"
mpicc.openmpi -O2 apps/pingpong.c -o "$out/pingpong"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
shim=$build/lib/librankmap-pmpi-openmpi.so
run() {  # bytes rounds with_shim
  local env=()
  [ "$3" = yes ] && env=(env LD_PRELOAD="$shim" RANKMAP_PROFILE="$out/pingpong.rmp")
  "${env[@]}" mpirun.openmpi --bind-to core --mca btl self,vader -np 2 "$out/pingpong" "$1" "$2" | awk '{print $2}'
}
printf '%-8s %12s %12s %8s\n' bytes plain_us shim_us ratio
for spec in "8 200000" "65536 20000"; do
  set -- $spec
  plain=() shimmed=()
  for ((i = 0; i < repeats; ++i)); do
    plain+=("$(run "$1" "$2" no)")
    shimmed+=("$(run "$1" "$2" yes)")
  done
  python3 - "$1" "${plain[*]}" "${shimmed[*]}" <<'PY'
import statistics, sys
p = statistics.median(map(float, sys.argv[2].split()))
s = statistics.median(map(float, sys.argv[3].split()))
print(f"{sys.argv[1]:<8} {p:12.4f} {s:12.4f} {s / p:8.3f}")
PY
done
