#!/usr/bin/env bash
# Graph files in any order at the sorted file's speed (issue 55, section 3).
# The 1,048,576-rank renumbered 27-point stencil in each format as rankmap
# writes it (sorted) and as another tool might (bench/shuffle_graph.py:
# .mtx and .csv lines shuffled, .graph and .grf neighbour lists shuffled):
# both map to the same file, and farm-bench times the whole `map --preset
# fast` command, shuffled (A) against sorted (B), in turn. Then the read
# alone, every file in turn, six rounds (bench/read_time.cpp, built against
# the same build's library), and with .mtx the least work the order of the
# lines adds, in memory alone (bench/read_order_bound.cpp).
#
# Usage: bench/read_any_order.sh [RANKMAP] [WORKDIR] [FORMATS...]
#        (build/cli/rankmap, /tmp/rankmap-read-any-order, grf graph mtx csv)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rankmap=$(realpath "${1:-$here/../build/cli/rankmap}")
work=${2:-/tmp/rankmap-read-any-order}
shift $(($# < 2 ? $# : 2))
formats=("$@")
[ ${#formats[@]} -gt 0 ] || formats=(grf graph mtx csv)
machine=$here/machines/torus-16x16x16x16.toml
mkdir -p "$work"
cd "$work"
for ext in "${formats[@]}"; do
  [ -f "st.$ext" ] || "$rankmap" gen stencil --dims 128x128x64 --points 27 --bytes 1 --renumber 5 -o "st.$ext" -q
  [ -f "shuffled.$ext" ] || python3 "$here/shuffle_graph.py" "st.$ext" "shuffled.$ext"
  "$rankmap" map "st.$ext" -m "$machine" --preset fast -o "sorted-$ext.csv" -f csv -q >/dev/null
  "$rankmap" map "shuffled.$ext" -m "$machine" --preset fast -o "shuffled-$ext.csv" -f csv -q >/dev/null
  cmp "sorted-$ext.csv" "shuffled-$ext.csv"
  echo "== .$ext: shuffled (A) against sorted (B), the same mapping"
  farm-bench -n 8 --timeout 900 \
    --vs "$rankmap map st.$ext -m $machine --preset fast --threads 2 -o b.csv -f csv" -- \
    "$rankmap" map "shuffled.$ext" -m "$machine" --preset fast --threads 2 -o a.csv -f csv
done
build=$(dirname "$(dirname "$rankmap")")
g++ -O2 -std=c++20 -I"$here/../libmap/include" "$here/read_time.cpp" -L"$build/libmap" \
  -Wl,-rpath,"$build/libmap" -lrankmap -o read_time
files=()
for ext in "${formats[@]}"; do files+=("st.$ext" "shuffled.$ext"); done
echo "== the read alone, sorted and shuffled in turn"
./read_time 6 "${files[@]}"
if [[ " ${formats[*]} " == *" mtx "* ]]; then
  g++ -O3 -std=c++20 -pthread "$here/read_order_bound.cpp" -o read_order_bound
  echo "== the least the order of .mtx lines adds, in memory"
  ./read_order_bound st.mtx shuffled.mtx
fi
