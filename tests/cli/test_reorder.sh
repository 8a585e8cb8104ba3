#!/usr/bin/env bash
# rankmap reorder: the renumbering the shim gives MPI's topology calls,
# without MPI, against facts worked by hand (tests/launch/run_reorder_test.sh
# runs the same cases under real MPIs).
# Usage: test_reorder.sh RANKMAP SOURCE_DIR
. "$(dirname "$0")/lib.sh"
cp "$src/tests/data/fake-switch-4.toml" four.toml
# A round-robin launch of 16 processes: process p on fake(p mod 4).
{ echo "rank,host,socket,core,pu"; for p in $(seq 0 15); do echo "$p,fake$((p % 4)),0,$((p / 4)),"; done; } >rr.csv
# cut_edges CSV KIND: topology edges whose ends are on different hosts (by hand).
cut_edges() {
  awk -F, -v kind="$2" 'NR > 1 { host[$1] = $2 }
    END { c = 0; for (r = 0; r < 16; ++r) {
      if (kind == "cart") { c += host[r] != host[int(r / 8) * 8 + (r % 8 + 1) % 8]; if (r < 8) c += host[r] != host[r + 8] }
      else c += host[r] != host[(r + 1) % 16] }
      print c }' "$1"
}
# 2x8 periodic: round-robin cuts 16 of 24 edges; the fewest is 8.
"$rankmap" reorder --cart 2x8 --periods 1,1 -m four.toml --mapping rr.csv -o cart.csv --json cart.json -q >cart.txt
[ "$(cut_edges rr.csv cart)" = 16 ] && [ "$(cut_edges cart.csv cart)" = 8 ] && [ "$(json cart.json inter_node_bytes)" = 16 ] &&
  [ "$(json cart.json baseline.inter_node_bytes)" = 32 ] && [ "$(json cart.json baseline.name)" = identity ] &&
  [ "$(cut -d, -f2 cart.csv | tail -n +2 | sort | uniq -c | awk '{print $1}' | sort -u)" = 4 ] && ok ||
  bad "reorder --cart: $(cut_edges cart.csv cart) edges cut; $(cat cart.txt)"
# A ring of 16 as a graph file: round-robin cuts all 16; the fewest is 4.
for r in $(seq 0 15); do echo "$r,$(((r + 1) % 16)),1"; echo "$(((r + 1) % 16)),$r,1"; done >ring.csv
"$rankmap" reorder --graph ring.csv -m four.toml --mapping rr.csv -f openmpi -o ring.rank -q >/dev/null
"$rankmap" reorder --graph ring.csv -m four.toml --mapping rr.csv -o ring.out.csv -q >/dev/null
[ "$(cut_edges ring.out.csv ring)" = 4 ] && [ -s ring.rank ] && ok || bad "reorder --graph: $(cut_edges ring.out.csv ring) cut"
# Already the best order: the identity, said so.
{ echo "rank,host,socket,core,pu"; for p in $(seq 0 15); do echo "$p,fake$((p / 4)),0,$((p % 4)),"; done; } >block.csv
"$rankmap" reorder --graph ring.csv -m four.toml --mapping block.csv -o same.csv --json same.json -q >/dev/null
cmp -s same.csv block.csv && [ "$(json same.json kept)" = identity ] && ok || bad "reorder of the best order"
expect_error "reorder: periods of another length" "--periods: expected 2 values, got 1" x.csv -- \
  reorder --cart 2x8 --periods 1 -m four.toml --mapping rr.csv -o x.csv
expect_error "reorder: no topology" "give the topology: --cart DIMS or --graph FILE" x.csv -- \
  reorder -m four.toml --mapping rr.csv -o x.csv
expect_error "reorder: a topology of another size" "16 ranks" x.csv -- \
  reorder --cart 4x8 -m four.toml --mapping rr.csv -o x.csv
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
