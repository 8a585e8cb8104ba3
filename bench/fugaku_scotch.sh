#!/usr/bin/env bash
# Benchmark (issue 34): Scotch's static mapping of the 7,630,848-rank
# renumbered 27-point stencil (192x184x216) onto Fugaku, as far as Scotch can
# express Fugaku: its torusXD takes at most 5 dimensions, so the target is
# bench/machines/fugaku-scotch5d.toml (Tofu's a and b as one ring of 6), and
# the mapping is scored on the real 6D machine by `rankmap eval`. Scotch runs
# through the library (bench/scotch-only.toml: SCOTCH_graphMap, over-full
# nodes repaired), under a 1-hour limit and a memory cap, as issue 34 asks.
# Prints Scotch's wall seconds, peak KB and exit code, then eval's table.
# Usage: bench/fugaku_scotch.sh GRAPH [OUT_DIR] [RANKMAP]
#   GRAPH: `rankmap gen stencil --dims 192x184x216 --points 27 --bytes 1
#          --renumber 5 -o st.graph` (1.9 GB)
set -uo pipefail
cd "$(dirname "$0")/.."
graph=$1 out=${2:-bench/out/fugaku_scotch} rankmap=$(realpath "${3:-build/cli/rankmap}")
mkdir -p "$out"
(
  ulimit -v $((20 * 1024 * 1024))  # KB: 20 GiB of this 24 GiB machine
  /usr/bin/time -f 'scotch %e s %M KB' timeout 3600 "$rankmap" map "$graph" -m bench/machines/fugaku-scotch5d.toml \
    -C bench/scotch-only.toml -f csv -o "$out/scotch5d.csv"
)
echo "exit $?"
[ -f "$out/scotch5d.csv" ] && "$rankmap" eval "$graph" -m data/machines/fugaku.toml --mapping "$out/scotch5d.csv"
