#!/usr/bin/env bash
# Golden outputs: what `rankmap inspect` and the report tables print, whole,
# for an 8-rank ring on a 4-node ring (golden/ring8.mtx, golden/ring4.toml),
# against files written from the hand computation below, not copied from
# rankmap. A change of layout or of a number shows as a diff.
#
# Rank r sends (r+1)*100 bytes to r+1 mod 8: 3600 bytes, 8 messages. Each
# node has two one-core packages; the ring's nodes are 1 hop apart, or 2.
#  - block (ranks 2k, 2k+1 on node k): pairs 01, 23, 45, 67 stay inside a
#    node, across its packages (100+300+500+700 = 1600 cross-socket); 12,
#    34, 56 and 70 go 1 hop each (200+400+600+800 = 2000 hop-bytes, every
#    link one flow, the most 800); avg dilation 2000/3600 = 0.5556.
#  - rr (rank r on node r mod 4): every pair 1 hop, 3600 hop-bytes, none
#    across packages; link n0->n1 carries 0->1 and 4->5 (600), n1->n2 800,
#    n2->n3 1000, n3->n0 3->4 and 7->0 (1200).
#  - the optimum keeps the heavier matching 12, 34, 56, 70 inside nodes
#    (2000 cross-socket) and places those pairs around the ring in order:
#    100+300+500+700 = 1600 hop-bytes, the most loaded link 700, avg
#    dilation 1600/3600 = 0.4444. The quality preset finds it.
# Usage: test_golden.sh RANKMAP SOURCE_DIR
set -uo pipefail
rankmap=$(realpath "$1")
golden=$(realpath "$2")/tests/cli/golden
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0

# check NAME COMMAND...: stdout must equal golden/NAME.txt byte for byte.
check() {
  local name=$1
  shift
  "$rankmap" "$@" >"$name.out" 2>"$name.err"
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL $name: exit $rc: $(cat "$name.err")"
    failures=$((failures + 1))
  elif ! diff -u "$golden/$name.txt" "$name.out"; then
    echo "FAIL $name: output differs from golden/$name.txt"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

m=(-m "$golden/ring4.toml")
check inspect-machine inspect "$golden/ring4.toml"
check inspect-graph inspect "$golden/ring8.mtx"
check map-rr map "$golden/ring8.mtx" "${m[@]}" --baseline rr -o rr.rank -q
check map-quality map "$golden/ring8.mtx" "${m[@]}" --preset quality -o best.rank -q
check eval-against-rr eval "$golden/ring8.mtx" "${m[@]}" --mapping best.rank --against rr -q
[ "$failures" -eq 0 ] || { echo "$failures golden outputs differ"; exit 1; }
echo "all golden outputs match"
