#!/usr/bin/env bash
# Benchmark (issue 34): a 2,097,152-rank METIS-quotient irregular graph
# (`gen irregular`, 8 cells a rank: a 16.7M-cell mesh cut in two levels)
# mapped onto a 32x32x32x2 torus of 32-core nodes by `rankmap map` (presets
# fast and default, --threads 2) and by Scotch (SCOTCH_graphMap onto the
# torus, through bench/scotch-only.toml), alternating in each round so that
# every mapper sees the same machine. Prints, per run: round, mapper, wall
# seconds of the whole command (read, map, write and re-check the launch
# file, score against block), peak MiB, hop-bytes, max link bytes.
# Usage: bench/irregular_2m.sh [GRAPH] [ROUNDS] [RANKMAP]
set -euo pipefail
cd "$(dirname "$0")/.."
graph=${1:-bench/out/irregular_2m/irregular-2m.graph} rounds=${2:-1} rankmap=$(realpath "${3:-build/cli/rankmap}")
machine=bench/machines/torus-32x32x32x2.toml
out=bench/out/irregular_2m
mkdir -p "$out"
[ -f "$graph" ] || "$rankmap" gen irregular --ranks 2097152 --cells-per-rank 8 --seed 1 -o "$graph" -q
printf '%-6s %-8s %8s %8s %14s %10s\n' round mapper wall_s MiB hop_bytes max_link
for round in $(seq "$rounds"); do
  for mapper in fast default scotch; do
    case $mapper in
      scotch) opts=(-C bench/scotch-only.toml) ;;
      *) opts=(--preset "$mapper" --threads 2) ;;
    esac
    /usr/bin/time -f '%e %M' -o "$out/time.txt" \
      "$rankmap" map "$graph" -m "$machine" "${opts[@]}" -f csv -o "$out/$mapper.csv" --json "$out/$mapper.json" -q >/dev/null
    read -r wall kb <"$out/time.txt"
    python3 - "$out/$mapper.json" "$round" "$mapper" "$wall" "$kb" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]:<6} {sys.argv[3]:<8} {float(sys.argv[4]):8.1f} {int(sys.argv[5]) // 1024:8d} "
      f"{d['hop_bytes']:14d} {d['max_link_bytes']:10d}")
PY
  done
done
