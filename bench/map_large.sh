#!/usr/bin/env bash
# Benchmark: `rankmap map` of a 1,048,576-rank 27-point stencil (128x128x64)
# onto a 16x16x16x16 torus of 16-core nodes, presets fast and default, with
# Scotch's static mapping of the same graph onto the same torus beside them
# (bench/scotch-only.toml); then the same graph with its ranks renumbered
# at random (`gen --renumber 5`), which a mapper must find the grid in
# without the numbering's help. Targets (issue 12): grid order under 5 s for
# the whole command; renumbered, fast under 10 s and default under 30 s;
# under 8 GiB.
#
# Prints, per mapper: wall seconds of the whole command (read, map, write and
# re-check the launch file, score against block), the mapping's own seconds
# (map_seconds), peak MiB, and the scores.
# Usage: bench/map_large.sh [RANKMAP]   (reuses bench/out/eval_large/stencil.mtx)
set -euo pipefail
cd "$(dirname "$0")/.."
rankmap=$(realpath "${1:-build/cli/rankmap}")
machine=bench/machines/torus-16x16x16x16.toml
out=bench/out/map_large
mkdir -p "$out"
graph=bench/out/eval_large/stencil.mtx
mkdir -p "$(dirname "$graph")"
[ -f "$graph" ] || "$rankmap" gen stencil --dims 128x128x64 --points 27 --bytes 1 -o "$graph" -q
renumbered=bench/out/eval_large/stencil-renumbered.mtx
[ -f "$renumbered" ] || "$rankmap" gen stencil --dims 128x128x64 --points 27 --bytes 1 --renumber 5 -o "$renumbered" -q

printf '%-20s %8s %8s %8s %14s %14s %10s\n' mapper wall_s map_s MiB hop_bytes block_hop max_link
for run in fast default scotch renumbered-fast renumbered-default renumbered-scotch; do
  mapper=${run#renumbered-}
  input=$graph
  [ "$run" = "$mapper" ] || input=$renumbered
  case $mapper in
    scotch) opts=(-C bench/scotch-only.toml) ;;
    *) opts=(--preset "$mapper") ;;
  esac
  /usr/bin/time -f '%e %M' -o "$out/time.txt" \
    "$rankmap" map "$input" -m "$machine" "${opts[@]}" -f csv -o "$out/$run.csv" --json "$out/$run.json" -q >/dev/null
  read -r wall kb <"$out/time.txt"
  python3 - "$out/$run.json" "$run" "$wall" "$kb" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]:<20} {float(sys.argv[3]):8.1f} {d['map_seconds']:8.1f} {int(sys.argv[4]) // 1024:8d} "
      f"{d['hop_bytes']:14d} {d['baseline']['hop_bytes']:14d} {d['max_link_bytes']:10d}")
PY
done
