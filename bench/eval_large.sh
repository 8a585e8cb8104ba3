#!/usr/bin/env bash
# Benchmark: `rankmap eval` of a 1,048,576-rank 27-point stencil (128x128x64)
# on a 16x16x16x16 torus of 16-core nodes, under the block and a random
# mapping. Target: under 10 s and 4 GiB on a 2-core machine.
#
# Peer, in the same run: Scotch's gmtst scores the same mapping of the same
# graph on the same torus (torusXD target). Its cost (sum of load x distance,
# loads = bytes both ways) must equal rankmap's hop-bytes exactly, which
# cross-checks the scores as well as timing them. gmtst prints the cost as a
# 32-bit number (even its -int64 build), so the stencil sends 1 byte to each
# neighbour: the same work, and a cost of about 2.3e8 that fits.
#
# Usage: bench/eval_large.sh [RANKMAP]   (default build/cli/rankmap)
set -euo pipefail
cd "$(dirname "$0")/.."
rankmap=$(realpath "${1:-build/cli/rankmap}")
machine=bench/machines/torus-16x16x16x16.toml
out=bench/out/eval_large
mkdir -p "$out"

"$rankmap" gen stencil --dims 128x128x64 --points 27 --bytes 1 -o "$out/stencil.mtx" -q
"$rankmap" gen stencil --dims 128x128x64 --points 27 --bytes 1 -o "$out/stencil.grf" -q
echo "torusXD 4 16 16 16 16" >"$out/torus.tgt"

# seconds and peak KB of a command, its output kept in $out/last.txt
measure() { /usr/bin/time -f '%e %M' -o "$out/time.txt" "$@" >"$out/last.txt" 2>&1; cat "$out/time.txt"; }

printf '%-8s %10s %10s %10s %10s %18s %18s\n' mapping rm_s rm_MiB scotch_s scotch_MiB rankmap_hop_bytes scotch_cost
for mapping in block random; do
  "$rankmap" map "$out/stencil.mtx" -m "$machine" --baseline "$mapping" --seed 1 -f openmpi -o "$out/$mapping.rank" -q >/dev/null
  "$rankmap" map "$out/stencil.mtx" -m "$machine" --baseline "$mapping" --seed 1 -f csv -o "$out/$mapping.csv" -q >/dev/null
  read -r rm_s rm_kb < <(measure "$rankmap" eval "$out/stencil.mtx" -m "$machine" --mapping "$out/$mapping.rank" --json "$out/$mapping.json" -q)
  hop_bytes=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["hop_bytes"])' "$out/$mapping.json")
  # Scotch's terminals are numbered X fastest, as rankmap's coordinates; host
  # nNNNNN sits at coordinate NNNNN.
  awk -F, 'NR == 1 { next } { sub(/^n0*/, "", $2); print $1, ($2 == "" ? 0 : $2) }' "$out/$mapping.csv" |
    { echo 1048576; cat; } >"$out/$mapping.map"
  read -r sc_s sc_kb < <(measure gmtst-int64 "$out/stencil.grf" "$out/torus.tgt" "$out/$mapping.map")
  cost=$(grep -o 'CommExpan=[0-9.]*[[:space:]]*([0-9]*)' "$out/last.txt" | sed 's/.*(\([0-9]*\))/\1/')
  printf '%-8s %10s %10d %10s %10d %18s %18s\n' "$mapping" "$rm_s" $((rm_kb / 1024)) "$sc_s" $((sc_kb / 1024)) "$hop_bytes" "$cost"
  [ "$hop_bytes" = "$cost" ] || { echo "MISMATCH: rankmap hop_bytes $hop_bytes, Scotch cost $cost"; exit 1; }
done
