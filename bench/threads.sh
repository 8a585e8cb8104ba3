#!/usr/bin/env bash
# Benchmark (issue 34): the 1,048,576-rank renumbered 27-point stencil of
# bench/map_large.sh, read from each of .mtx, Scotch .grf and METIS .graph,
# mapped onto the 16^4 torus with --threads 1 and --threads 2, presets fast
# and default; also the grid-order graph (fast, --threads 2). Runs alternate
# 1 and 2 threads so that both see the same machine. Checks that both
# thread counts write the same file, byte for byte.
#
# Prints: round, input, preset, threads, wall s, peak MiB, hop-bytes; the
# speed-ups are the pairs' ratios.
# Usage: bench/threads.sh [RANKMAP] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rankmap=$(realpath "${1:-build/cli/rankmap}")
rounds=${2:-2}
machine=bench/machines/torus-16x16x16x16.toml
graphs=bench/out/eval_large
out=bench/out/threads
mkdir -p "$graphs" "$out"
for ext in mtx grf graph; do
  [ -f "$graphs/stencil-renumbered.$ext" ] ||
    "$rankmap" gen stencil --dims 128x128x64 --points 27 --bytes 1 --renumber 5 -o "$graphs/stencil-renumbered.$ext" -q
done
[ -f "$graphs/stencil.mtx" ] || "$rankmap" gen stencil --dims 128x128x64 --points 27 --bytes 1 -o "$graphs/stencil.mtx" -q

run() {  # input preset threads round
  local tag=$1-$2-t$3
  /usr/bin/time -f '%e %M' -o "$out/time.txt" "$rankmap" map "$graphs/$1" -m "$machine" --preset "$2" \
    --threads "$3" -f csv -o "$out/$tag.csv" --json "$out/$tag.json" -q >/dev/null
  read -r wall kb <"$out/time.txt"
  hop=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['hop_bytes'])" "$out/$tag.json")
  echo "$4 $1 $2 $3 $wall $((kb / 1024)) $hop"
}

echo "round input preset threads wall_s MiB hop_bytes"
for round in $(seq "$rounds"); do
  for ext in mtx grf graph; do
    for preset in fast default; do
      run "stencil-renumbered.$ext" "$preset" 1 "$round"
      run "stencil-renumbered.$ext" "$preset" 2 "$round"
      cmp -s "$out/stencil-renumbered.$ext-$preset-t1.csv" "$out/stencil-renumbered.$ext-$preset-t2.csv" ||
        echo "DIFFERENT FILES: $ext $preset, 1 and 2 threads"
    done
  done
  run stencil.mtx fast 2 "$round"
done
