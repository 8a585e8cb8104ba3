#!/usr/bin/env bash
# Benchmark: two builds of rankmap on bench/map_large.sh's 1M-rank stencil
# (grid order and renumbered, presets fast and default), alternating run by
# run so that both see the same machine: this VM's speed drifts by 1.5x
# within minutes. Prints: round, graph, preset, build, wall s, peak KB,
# hop-bytes.
# Usage: bench/map_large_compare.sh OLD_DIR NEW_DIR [ROUNDS]
#   each DIR holds a copy of build/cli/rankmap and build/libmap/librankmap.so*
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1") new=$(realpath "$2") rounds=${3:-2}
machine=bench/machines/torus-16x16x16x16.toml
out=bench/out/map_large_compare
mkdir -p "$out"
[ -f bench/out/eval_large/stencil.mtx ] || bench/map_large.sh >/dev/null  # makes both graphs
for round in $(seq "$rounds"); do
  for input in stencil stencil-renumbered; do
    for preset in fast default; do
      for dir in "$old" "$new"; do
        tag=$(basename "$dir")-$input-$preset
        /usr/bin/time -f '%e %M' -o "$out/time.txt" env LD_LIBRARY_PATH="$dir" "$dir/rankmap" map \
          "bench/out/eval_large/$input.mtx" -m "$machine" --preset "$preset" -f csv -o "$out/$tag.csv" \
          --json "$out/$tag.json" -q >/dev/null
        hop=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['hop_bytes'])" "$out/$tag.json")
        echo "$round $input $preset $(basename "$dir") $(cat "$out/time.txt") $hop"
      done
    done
  done
done
