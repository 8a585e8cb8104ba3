#!/usr/bin/env bash
# Command-line behaviour of rankmap: bad input gets a one-line error naming
# the file and line, a non-zero exit and no output file; the same inputs and
# seed give byte-identical output. Usage: test_cli.sh RANKMAP SOURCE_DIR
source "$(dirname "$0")/lib.sh" "$@"

# A good graph and machine to start from.
"$rankmap" gen stencil --dims 8x4x6 -o good.mtx >/dev/null || bad "gen stencil"
printf '%%%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 5\n2 3 5\n' >truncated.mtx
printf '%%%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 7 5\n' >beyond.mtx
printf '%%%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 -5\n' >negative.mtx
printf '%%%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 five\n' >word.mtx
printf '3 2\n2 3\n1\n' >short.graph
printf 'src,dst,bytes\n0,1,12x\n' >bad.csv
sed 's/node\[00-31\]/node[00-30]/' "$desmos" >short.toml
sed 's/hosts = "node\[00-31\]"/hosts = "node[00-31"/' "$desmos" >badlist.toml
sed 's/hosts = "node\[00-31\]"/hosts = "node[00-31]"\ncoords = [[0,0,0,0]]/' "$desmos" >coordcount.toml
cat >dup.toml <<'TOML'
[network]
dims = [2, 1]
t_hop_ns = 1
t_inj_ns = 1
t_ej_ns = 1
[[nodes]]
hosts = "n[0-1]"
hwloc = "core:2"
coords = [[0, 0],
          [0, 0]]
TOML
printf 'rank 0=node00 slot=0:0\nrank 1=nodeXX slot=0:1\n' >unknown-host.rank

m=(-m "$desmos")
expect_error "truncated mtx" "truncated.mtx:4: truncated" out.rank -- map truncated.mtx "${m[@]}" --baseline block -o out.rank
expect_error "rank beyond header" "beyond.mtx:3: rank 7 is outside 1..3" out.rank -- map beyond.mtx "${m[@]}" --baseline block -o out.rank
expect_error "negative bytes" "negative.mtx:3: expected a byte count (non-negative), got '-5'" out.rank -- map negative.mtx "${m[@]}" --baseline block -o out.rank
expect_error "non-numeric bytes" "word.mtx:3: expected a byte count (a whole number), got 'five'" out.rank -- map word.mtx "${m[@]}" --baseline block -o out.rank
expect_error "truncated metis" "short.graph:3: truncated" out.rank -- map short.graph "${m[@]}" --baseline block -o out.rank
expect_error "bad csv" "bad.csv:2: expected a byte count" out.rank -- map bad.csv "${m[@]}" --baseline block -o out.rank
expect_error "missing graph" "none.mtx: cannot open" out.rank -- map none.mtx "${m[@]}" --baseline block -o out.rank
expect_error "unknown host in --nodes" "--nodes: unknown host 'node99'" out.rank -- map good.mtx "${m[@]}" --nodes "node[00-03],node99" --baseline block -o out.rank
expect_error "hostlist that does not parse" "--nodes: bad hostlist 'node[00-03': missing ']'" out.rank -- map good.mtx "${m[@]}" --nodes "node[00-03" --baseline block -o out.rank
expect_error "more ranks than slots" "192 ranks do not fit the 24 slots of 4 nodes" out.rank -- map good.mtx "${m[@]}" --nodes "node[00-03]" --baseline block -o out.rank
expect_error "ppn beyond cores" "--ppn: 7 ranks per node do not fit host 'node00', which has 6 cores and 12 hardware threads (more --nodes, another --ppn or --hwthreads, or --oversubscribe make room)" out.rank -- map good.mtx "${m[@]}" --ppn 7 --baseline block -o out.rank
expect_error "host count short of the torus" "short.toml:15: the [[nodes]] groups list 31 hosts but the network has 32 coordinates" out.rank -- map good.mtx -m short.toml --baseline block -o out.rank
expect_error "machine hostlist" "badlist.toml:16: bad hostlist" out.rank -- map good.mtx -m badlist.toml --baseline block -o out.rank
expect_error "coords count" "has 1 entries for 32 hosts" out.rank -- map good.mtx -m coordcount.toml --baseline block -o out.rank
expect_error "duplicate coordinates" "dup.toml:10: coordinates of 'n1' are used twice" out.rank -- map good.mtx -m dup.toml --baseline block -o out.rank
expect_error "mvapich cannot express" "the openmpi, mpich and slurm formats bind each rank apart" out.hosts -- map good.mtx "${m[@]}" --baseline random -f mvapich -o out.hosts
expect_error "unknown host in a rankfile" "unknown-host.rank:2: unknown host 'nodeXX'" out.json -- eval good.mtx "${m[@]}" --mapping unknown-host.rank --json out.json
expect_error "gen bad points" "--points: a 3D stencil has 7 or 27 points, not 9" g.mtx -- gen stencil --dims 4x4x4 --points 9 -o g.mtx

# Usage errors exit non-zero too (CLI11 prints its own message).
if "$rankmap" map good.mtx >/dev/null 2>&1; then bad "missing --machine accepted"; else ok; fi

# Same inputs and seed: byte-identical output; another seed: a different one.
for f in openmpi mpich slurm mvapich intelmpi csv; do
  b=random
  [ $f = slurm ] || [ $f = mvapich ] || [ $f = intelmpi ] && b=rr
  "$rankmap" map good.mtx "${m[@]}" --baseline $b --seed 3 -f $f -o a.$f --json a.$f.json -q >/dev/null &&
    "$rankmap" map good.mtx "${m[@]}" --baseline $b --seed 3 -f $f -o b.$f --json b.$f.json -q >/dev/null
  if cmp -s a.$f b.$f && grep -v map_seconds a.$f.json | cmp -s - <(grep -v map_seconds b.$f.json); then ok; else bad "determinism $f"; fi
  # What map wrote, eval reads back and scores identically.
  "$rankmap" eval good.mtx "${m[@]}" --mapping a.$f --json e.$f.json >/dev/null || bad "eval $f"
  if [ "$(json a.$f.json hop_bytes)" = "$(json e.$f.json hop_bytes)" ] &&
    [ "$(json a.$f.json max_link_bytes)" = "$(json e.$f.json max_link_bytes)" ]; then ok; else bad "eval of $f disagrees with map"; fi
done
"$rankmap" map good.mtx "${m[@]}" --baseline random --seed 4 -o c.rank -q >/dev/null
# A mapping the gain model calls slower is written, but said to be. Chatty
# pairs (1000 messages of 10 bytes each way) and one heavy pair (one message
# of 1 MB each way, 2 hops apart under block) on a ring of 4 two-core
# nodes: the least hop-bytes put the heavy pair on one node and split two
# chatty pairs 1 hop apart. By hand, T = 800 ns inside a node, 900 at one
# hop, 1000 at two: block's mean message is (8000*800 + 2*1000) / 8002 ns,
# the mapping's (4000*800 + 4000*900 + 2*800) / 8002 ns. The headline is
# the flow model's (no bandwidth in ring4.toml: latencies only), 1,000
# phases. Under block, ranks 0 and 4 wait 1000 ns in the first (their 1 MB
# message, above the eager limit, paces sender and receiver) and 800 in
# the other 999: 800,200 ns. Under the mapping, the split pairs' ranks
# wait 900 ns in every phase: 900,000 ns, 6.24 % slower at p_mpi 0.5.
cat >ring4.toml <<'TOML'
[network]
dims = [4]
wrap = [true]
t_hop_ns = 100
t_inj_ns = 400
t_ej_ns = 400
[[nodes]]
hosts = "n[0-3]"
hwloc = "core:2"
TOML
printf 'src,dst,bytes,msgs\n0,4,1000000,1\n4,0,1000000,1\n' >chatty.csv
for p in 0,1 1,0 2,3 3,2 4,5 5,4 6,7 7,6; do echo "$p,10000,1000" >>chatty.csv; done
"$rankmap" map chatty.csv -m ring4.toml --p-mpi 0.5 -o chatty.rank --json chatty.json -q >/dev/null 2>chatty.err
if [ "$(wc -l <chatty.err)" -eq 1 ] && grep -q "predicts this mapping 6.24 % slower than block, although its hop-bytes are 0\." chatty.err &&
  python3 -c 'import json
d = json.load(open("chatty.json"))
tb, tm = (8000 * 800 + 2 * 1000) / 8002, (4000 * 800 + 4000 * 900 + 2 * 800) / 8002
assert d["predicted_slower"] is True and abs(d["predicted_gain_by_messages"] - 0.5 * (tb - tm) / tb) < 1e-12, d
assert d["gain_model"] == "flow" and abs(d["predicted_gain"] - 0.5 * (800200 - 900000) / 800200) < 1e-12, d
assert d["flow_model"]["baseline"]["slowest_ns"] == 800200 and d["flow_model"]["mapping"]["phases"] == 1000, d
assert d["predicted_comm_ns"] == {"mapping": 900000, "baseline": 800200}, d
assert d["hop_bytes"] == 40000 and d["baseline"]["hop_bytes"] == 4000000, d'; then ok; else bad "no warning when the model predicts a slower mapping: $(cat chatty.err)"; fi
"$rankmap" map chatty.csv -m ring4.toml -o chatty.rank --json chatty-nop.json -q >/dev/null 2>chatty.err
if [ ! -s chatty.err ] && [ "$(json chatty-nop.json predicted_slower)" = None ]; then ok; else bad "predicted_slower without p_mpi"; fi

# eval --against: any two mappings. Against rr, the baseline scores what
# eval scores for rr's own launch file; against a launch file, what the
# named baseline it was written from scores; against itself, the same.
"$rankmap" map good.mtx "${m[@]}" -o eng.rank -q >/dev/null
"$rankmap" map good.mtx "${m[@]}" --baseline rr -o rr.rank -q >/dev/null
"$rankmap" eval good.mtx "${m[@]}" --mapping rr.rank --json rr.json -q >/dev/null
"$rankmap" eval good.mtx "${m[@]}" --mapping eng.rank --against rr --json vs-rr.json -q >/dev/null
if [ "$(json vs-rr.json baseline.hop_bytes)" = "$(json rr.json hop_bytes)" ] &&
  [ "$(json vs-rr.json baseline.max_link_bytes)" = "$(json rr.json max_link_bytes)" ] &&
  [ "$(json vs-rr.json baseline.name)" = rr ] &&
  [ "$(json vs-rr.json hop_bytes)" != "$(json rr.json hop_bytes)" ]; then ok; else bad "eval --against rr"; fi
"$rankmap" eval good.mtx "${m[@]}" --mapping eng.rank --against random --seed 4 --json vs-random.json -q >/dev/null
"$rankmap" eval good.mtx "${m[@]}" --mapping eng.rank --against ./c.rank --json vs-file.json -q >/dev/null
if [ "$(json vs-random.json baseline.hop_bytes)" = "$(json vs-file.json baseline.hop_bytes)" ] &&
  [ "$(json vs-file.json baseline.name)" = ./c.rank ]; then ok; else bad "eval --against a launch file"; fi
"$rankmap" eval good.mtx "${m[@]}" --mapping eng.rank --against eng.rank --json self.json -q >/dev/null
if [ "$(json self.json baseline.hop_bytes)" = "$(json self.json hop_bytes)" ]; then ok; else bad "eval --against itself"; fi
expect_error "unknown host in --against" "unknown-host.rank:2: unknown host 'nodeXX'" out.json -- eval good.mtx "${m[@]}" --mapping eng.rank --against unknown-host.rank --json out.json

# The engine too, in every preset, across separate processes (Scotch included).
for preset in fast default quality; do
  "$rankmap" map good.mtx "${m[@]}" --preset $preset --seed 7 -o p1.rank -q >/dev/null &&
    "$rankmap" map good.mtx "${m[@]}" --preset $preset --seed 7 -o p2.rank -q >/dev/null
  if cmp -s p1.rank p2.rank; then ok; else bad "determinism of preset $preset"; fi
done
# --dump-config writes what -C reads back, and -C changes what map does.
"$rankmap" map --preset quality --seed 9 --dump-config >q.toml
"$rankmap" map -C q.toml --dump-config >q2.toml
if cmp -s q.toml q2.toml && grep -q '^seed = 9$' q.toml; then ok; else bad "dump-config round trip"; fi
printf 'seed = 1\n[placement]\nswap_passes = -1\n' >badctx.toml
expect_error "bad context file" "badctx.toml:3: 'swap_passes' must be a whole number" out.rank -- map good.mtx "${m[@]}" -C badctx.toml -o out.rank
if cmp -s a.openmpi c.rank; then bad "seed 4 gave the same mapping as seed 3"; else ok; fi

# Hand-checked scores: the 8x4x6 stencil in block order on Desmos puts ranks
# 0-5 on node00; rank 0 talks to 1 (same node), 8 (node01, 1 hop) and 32.
"$rankmap" map good.mtx "${m[@]}" --baseline block -o block.rank --json block.json -q >/dev/null
if head -1 block.rank | grep -qx 'rank 0=node00 slot=0:0' && sed -n 7p block.rank | grep -qx 'rank 6=node01 slot=0:0'; then ok; else bad "block rankfile"; fi
if grep -q '"predicted_gain": null' block.json && grep -q '"map_seconds"' block.json; then ok; else bad "json keys"; fi

# The gain model: the seed scenarios, the formula for Desmos, and p_mpi
# taken from a profile (.rmp) when --p-mpi is not given.
"$rankmap" model --table >table.txt
if grep -q 'Desmos 4x2x2x2, MD .* 10.4% .* 5.2% .*no: neither reading gives it' table.txt &&
  grep -q '64 nodes, 2D 8x8, MD .* 14.4% .* 8.6% .*yes, with d = diameter' table.txt; then ok; else bad "model --table"; cat table.txt; fi
"$rankmap" model -m "$desmos" --p-mpi 0.3 --json model.json >/dev/null
if python3 -c 'import json, sys
d = json.load(open("model.json"))
mean = 2.5 * 32 / 31  # per dimension 1 + 0.5 + 0.5 + 0.5, pairs of a node with itself left out
assert abs(d["gain_diameter"] - 0.3 * 129 * 4 / (850 + 129 * 5)) < 1e-12, d
assert abs(d["gain_mean_distance"] - 0.3 * 129 * (mean - 1) / (850 + 129 * mean)) < 1e-12, d'; then ok; else bad "model --json"; fi
if "$rankmap" model >/dev/null 2>&1; then bad "model without --machine or --table"; else ok; fi
python3 - <<'PY'
lines = ["rankmap-profile 1", "mpi_library test", "mpi_version 3.1", "ranks 12", "wall_s 2.0", "p_mpi 0.25",
         "incomplete_ranks 0"]
for r in range(12):
    lines.append(f"rank {r} host node00 wall_s 2.0 mpi_s 0.5")
    lines.append(f"p2p {(r + 1) % 12} {1000 * (r + 1)} 10")
    lines.append(f"p2p {(r + 5) % 12} 64 3")
open("ring.rmp", "w").write("\n".join(lines + ["end"]) + "\n")
PY
"$rankmap" map ring.rmp "${m[@]}" --nodes "node[00-01]" --baseline block -o ring-block.rank -q >/dev/null
"$rankmap" eval ring.rmp "${m[@]}" --nodes "node[00-01]" --mapping ring-block.rank --json ring-block.json -q >/dev/null
"$rankmap" map ring.rmp "${m[@]}" --nodes "node[00-01]" --baseline random --seed 5 -o ring.rank --json ring.json -q >/dev/null
if python3 -c 'import json
b = json.load(open("ring-block.json"))
assert b["p_mpi"] == 0.25 and b["p_mpi_source"] == "ring.rmp" and b["predicted_gain"] == 0, b
d = json.load(open("ring.json"))
t = lambda h: 850 + 129 * h
want = 0.25 * (t(d["baseline"]["avg_hops_by_msgs"]) - t(d["avg_hops_by_msgs"])) / t(d["baseline"]["avg_hops_by_msgs"])
assert abs(d["predicted_gain_by_messages"] - want) < 1e-12 and want != 0, (d["predicted_gain_by_messages"], want)
f = d["flow_model"]
# No collectives: exchanges read as each rank program (gain.hpp), the
# gain the difference of the runs, compute included; the flow model is reported.
p = d["program_model"]
assert d["gain_model"] == "program" and f["mapping"]["phases"] == 10 and p["iterations"] == 10, d
assert abs(d["predicted_gain"] - (p["baseline_ns"] - p["mapping_ns"]) / p["baseline_ns"]) < 1e-12, d
hb, hm = d["baseline"]["avg_dilation"], d["avg_dilation"]
# By bytes, each byte also waits for its message to cross a 75 Gbit/s link:
# the byte-weighted mean message size (100 (r + 1) B and 64 / 3 B) over it.
size = (sum(1000 * (r + 1) * 100 * (r + 1) for r in range(12)) + 12 * 64 * 64 / 3) / (sum(1000 * (r + 1) for r in range(12)) + 12 * 64)
tb = lambda h: t(h) + size * 8 / 75
assert abs(d["predicted_gain_by_bytes"] - 0.25 * (tb(hb) - tb(hm)) / tb(hb)) < 1e-12, d
s = d["slowest_sender_ns"]
assert s["baseline"] >= d["mean_message_ns"]["baseline"] and s["mapping"] >= d["mean_message_ns"]["mapping"], d
assert abs(d["predicted_gain_slowest_sender"] - 0.25 * (s["baseline"] - s["mapping"]) / s["baseline"]) < 1e-12, d'; then ok; else bad "predicted_gain from the profile's p_mpi"; fi

# gen writes CSV too, and inspect reads it.
"$rankmap" gen stencil --dims 3x2 --bytes 10 -o s.csv >/dev/null
if "$rankmap" inspect s.csv | grep -q 'bytes      140 in 14 messages'; then ok; else bad "inspect csv"; fi

# Issue 15's defects.
# A csv mapping may name one hardware thread of a core (desmos: pu:2): it is
# a place on that core, and scores as the core does.
printf '0,1,100\n1,0,100\n' >pair.csv
printf 'rank,host,socket,core,pu\n0,node00,0,0,1\n1,node01,0,0,0\n' >one-pu.csv
printf 'rank,host,socket,core,pu\n0,node00,0,0,\n1,node01,0,0,\n' >whole-core.csv
"$rankmap" eval pair.csv "${m[@]}" --mapping one-pu.csv --json one-pu.json -q >/dev/null 2>err.txt || bad "one PU of a core: $(cat err.txt)"
"$rankmap" eval pair.csv "${m[@]}" --mapping whole-core.csv --json whole-core.json -q >/dev/null
if python3 -c 'import json
a, b = json.load(open("one-pu.json")), json.load(open("whole-core.json"))
assert a["hop_bytes"] == b["hop_bytes"] == 200 and a == b, (a, b)'; then ok; else bad "one PU scored as its core"; fi
# Usage errors exit 1 with one line; a launcher without '--' is told to add it.
expect_error "unknown option" "rankmap map: unknown option '--bogus' (see 'rankmap map --help')" out.rank -- map good.mtx --bogus -o out.rank
# A mistyped command or flag: the nearest one is suggested (issue 32).
expect_error "mistyped command" "rankmap: unknown command 'mapp'; did you mean 'map'? (see 'rankmap --help')" out.rank -- mapp good.mtx
expect_error "mistyped flag" "rankmap map: unknown option '--ppm'; did you mean '--ppn'?" out.rank -- map good.mtx "${m[@]}" --ppm 4 -o out.rank
expect_error "mistyped flag with =" "rankmap eval: unknown option '--mappin'; did you mean '--mapping'?" out.rank -- eval good.mtx --mappin=x
expect_error "mistyped nested command" "rankmap gen: unknown command 'irreguler'; did you mean 'irregular'?" out.rank -- gen irreguler
# "-" (and /dev/stdout) is standard output for a text output (issue 32):
# the same bytes as the file, the command's own lines on stderr, no file
# named "-", nothing left in the temporary folder (one of this test's own:
# other jobs on the machine may hold theirs in /tmp at the time).
outer_tmpdir=${TMPDIR-}
export TMPDIR=$PWD/stdout-tmp
mkdir -p "$TMPDIR"
"$rankmap" map good.mtx "${m[@]}" --seed 3 -o piped.rank -q >/dev/null 2>&1
if "$rankmap" map good.mtx "${m[@]}" --seed 3 -o - -q >stdout.rank 2>stderr.txt && cmp -s stdout.rank piped.rank &&
  grep -q "hop-bytes" stderr.txt && [ ! -e ./- ]; then ok; else bad "map -o -: $(head -c 300 stderr.txt)"; fi
if "$rankmap" map good.mtx "${m[@]}" --seed 3 -o piped2.rank --json - -q 2>/dev/null |
  python3 -c 'import json, sys; assert json.load(sys.stdin)["ranks"] == 192' && cmp -s piped2.rank piped.rank; then ok
else bad "map --json -"; fi
"$rankmap" eval good.mtx "${m[@]}" --mapping piped.rank --json /dev/stdout -q 2>/dev/null |
  python3 -c 'import json, sys; assert json.load(sys.stdin)["ranks"] == 192' && ok || bad "eval --json /dev/stdout"
if "$rankmap" gen stencil --dims 4x4 -o - 2>stderr.txt | head -1 | grep -q "^%%MatrixMarket" &&
  grep -q "^wrote standard output: 16 ranks, 48 edges" stderr.txt; then ok; else bad "gen -o -: $(cat stderr.txt)"; fi
"$rankmap" convert good.mtx -o - 2>/dev/null >piped.mtx && "$rankmap" inspect piped.mtx | grep -q "^ranks      192" &&
  ok || bad "convert -o -"
"$rankmap" plot good.mtx "${m[@]}" -o - 2>/dev/null | grep -q "<svg" && ok || bad "plot -o -"
"$rankmap" machine new -o - --switch --hosts 'n[1-4]' --hwloc core:2 2>/dev/null >piped.toml &&
  "$rankmap" inspect piped.toml | grep -q "4 nodes" && ok || bad "machine new -o -"
expect_error "two outputs on standard output" "--json: standard output already takes another of this command's outputs" out.rank -- map good.mtx "${m[@]}" -o - --json -
expect_error "a three-file format on standard output" "--output: the slurm format writes 3 files; standard output takes one" out.rank -- map good.mtx "${m[@]}" -f slurm -o -
ls "$TMPDIR" | grep -q "^rankmap-stdout-" && bad "a private folder of standard output left behind" || ok
if [ -n "$outer_tmpdir" ]; then export TMPDIR=$outer_tmpdir; else unset TMPDIR; fi

# machine new replaces a file only with --force, and keeps the hostlist as
# given; inspect shows the link rate and the in-node latency (issue 32).
"$rankmap" machine new -o kept.toml --switch --hosts 'h[1-16]' --hwloc core:2 --link-gbps 100 >/dev/null
cp kept.toml kept-before.toml
expect_error "machine new over a file" "kept.toml: exists; rankmap machine new replaces it only with --force" none.toml -- machine new -o kept.toml --switch --hosts 'h[1-4]' --hwloc core:2
cmp -s kept.toml kept-before.toml && ok || bad "machine new changed the file it refused to replace"
grep -qx 'hosts = "h\[1-16\]"' kept.toml && ok || bad "machine new rewrote the hostlist: $(grep hosts kept.toml)"
"$rankmap" machine new -o kept.toml --switch --hosts 'h[1-4]' --hwloc core:2 --force >/dev/null &&
  grep -qx 'hosts = "h\[1-4\]"' kept.toml && ok || bad "machine new --force"
# One comment a line (never "x = 1   # default   # what"); a latency given,
# even at its default's value, is not marked as a default.
"$rankmap" machine new -o marks.toml --switch --hosts 'h[1-4]' --hwloc core:2 --t-hop-ns 100 >/dev/null
awk -F'#' 'NF > 2 { print FILENAME ":" NR ": " $0; bad = 1 } END { exit bad }' marks.toml && ok || bad "a line with two comments"
grep -qx 't_hop_ns = 100   # a hop (router and link)' marks.toml && grep -q '^t_inj_ns = 500 .*a default: measure it' marks.toml &&
  ok || bad "defaults marked wrongly: $(grep _ns marks.toml)"
"$rankmap" inspect kept-before.toml >inspect.txt
grep -q "^links      100 Gbit/s each way (link_gbps)" inspect.txt && grep -q "inside a node 1000 ns" inspect.txt &&
  grep -q "h\[1-16\]" inspect.txt && ok || bad "inspect of a machine: $(cat inspect.txt)"

# machine import (issue 53): Slurm's topology.conf to a machine file that
# maps; what the site's file lacks is marked; a bad file is named with its
# line, and nothing is written.
printf '# two leaves, the second half full\nSwitchName=s0 Nodes=t[0-3]\nSwitchName=s1 Nodes=t[4-5]\nSwitchName=top Switches=s[0-1]\n' >topology.conf
"$rankmap" machine import slurm topology.conf --hwloc core:2 --level-gbps 100,200 -o site.toml >import.txt 2>&1 &&
  grep -q "^wrote site.toml: tree, 6 nodes of 2 cores" import.txt && ok || bad "machine import: $(cat import.txt)"
grep -q '^levels = \[{gbps = 100}, {gbps = 200}\]   # .*assumed' site.toml && grep -q '^\[\[switches\]\]   # topology.conf line 4' site.toml &&
  grep -q '^link_gbps = 100 ' site.toml && ok || bad "machine import: the marks: $(cat site.toml)"
"$rankmap" inspect site.toml >inspect.txt
grep -q "level 1  2 switches, 2 to 4 nodes each" inspect.txt && grep -q "tree of 3 switches (irregular)" inspect.txt &&
  ok || bad "inspect of an imported tree: $(cat inspect.txt)"
"$rankmap" gen stencil --dims 6x2 -o site.mtx >/dev/null 2>&1
"$rankmap" map site.mtx -m site.toml -o site.rank -q >/dev/null 2>&1 && [ "$(grep -c . site.rank)" -ge 6 ] && ok || bad "map on an imported tree"
# The same machine twice: a 2:1 fat tree of 4 leaves of 8 nodes
# written with levels, and as Slurm's topology.conf would hold it (4 spines
# over every leaf: 4 cables up a leaf). Imported, it maps a renumbered
# stencil and an irregular graph to the same bytes, with the same scores.
printf '[network]\nkind = "fattree"\nlevels = [{fanout = 8, uplinks = 4}, {fanout = 4}]\nt_inj_ns = 450\nt_ej_ns = 450\nt_hop_ns = 50\nlink_gbps = 100\n[[nodes]]\nhosts = "ft[00-31]"\nhwloc = "package:1 core:4"\n' >levels.toml
for l in 0 1 2 3; do printf 'SwitchName=s%d Nodes=ft[%02d-%02d]\n' $l $((8 * l)) $((8 * l + 7)); done >ft.conf
for s in 0 1 2 3; do printf 'SwitchName=spine%d Switches=s[0-3]\n' $s; done >>ft.conf
"$rankmap" machine import slurm ft.conf --hwloc 'package:1 core:4' --t-inj-ns 450 --t-ej-ns 450 --t-hop-ns 50 \
  --link-gbps 100 -o ft.toml >/dev/null 2>&1 || bad "machine import of a regular fat tree"
"$rankmap" gen stencil --dims 8x4x4 --renumber 3 -o ft-st.mtx >/dev/null 2>&1
"$rankmap" gen irregular --ranks 128 --seed 9 -o ft-irr.mtx >/dev/null 2>&1
for g in ft-st ft-irr; do
  "$rankmap" map $g.mtx -m levels.toml -o $g-levels.rank --json $g-levels.json -q >/dev/null 2>&1
  "$rankmap" map $g.mtx -m ft.toml -o $g-site.rank --json $g-site.json -q >/dev/null 2>&1
  cmp -s $g-levels.rank $g-site.rank && python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for d in (a, b): d.pop("map_seconds")
sys.exit(a != b)' $g-levels.json $g-site.json && ok || bad "$g: the imported fat tree maps unlike its levels twin"
done
# SLURM_TOPOLOGY_ADDR lines on standard input, as srun -l prints them.
printf '0: top.l0.t0\n1: top.l1.t1\n2: top.l0.t0\n' | "$rankmap" machine import slurm-addr - --hwloc core:2 -o addr.toml \
  >/dev/null 2>&1 && "$rankmap" inspect addr.toml | grep -q "level 1  2 switches, 1 nodes each" &&
  grep -q "as standard input describes them" addr.toml && ok || bad "machine import slurm-addr from standard input"
printf 'SwitchName=a Nodes=t[0-1]\nSwitchName=b Switches=a,c\nSwitchName=c Switches=b\n' >loop.conf
expect_error "machine import of a switch loop" "loop.conf:2: switches form a loop: b -> c -> b" loop.toml -- machine import slurm loop.conf --hwloc core:2 -o loop.toml
printf 'SwitchName=a Nodes=t[0-1]\nSwitchName=b Nodes=t[1-2]\nSwitchName=top Switches=a,b\n' >twice.conf
expect_error "machine import of a node under two switches" "twice.conf:2: node 't1' is under two switches: 'a' (line 1) and 'b'" twice.toml -- machine import slurm twice.conf --hwloc core:2 -o twice.toml
printf 'SwitchName=a Nodes=t[0-1]\nSwitchName=b Nodes=t[2-3]\n' >apart.conf
expect_error "machine import of two trees" "apart.conf:2: nodes 't0' and 't2' share no switch" apart.toml -- machine import slurm apart.conf --hwloc core:2 -o apart.toml
expect_error "machine import of a TOML file" "desmos.toml:4: expected Key=Value, got 'name'" bad.toml -- machine import slurm "$src/data/machines/desmos.toml" --hwloc core:2 -o bad.toml
expect_error "machine import: too many rates" "--level-gbps: gives 3 rates; topology.conf makes 2 levels" many.toml -- machine import slurm topology.conf --hwloc core:2 --level-gbps 1,2,3 -o many.toml
printf -- '- topology: t\n  tree:\n    switches:\n    - switch: "my top"\n      nodes: t1\n' >space.yaml
expect_error "machine import of a name a hostlist cannot hold" "space.yaml:4: the name 'my top' holds a character a hostlist cannot" space.toml -- machine import slurm-yaml space.yaml --hwloc core:2 -o space.toml
expect_error "machine import: an unknown format" "format" fmt.toml -- machine import ibm topology.conf --hwloc core:2 -o fmt.toml

# A mapping the model predicts slower than block is said on stderr, from
# --baseline too (issue 32, defect 7; README "predicted_slower").
"$rankmap" map "$src/data/profiles/lammps-peptide-64.rmp" -m "$desmos" --ppn 2 --baseline random -o slow.rank \
  --json slow.json -q >/dev/null 2>err.txt
if python3 -c 'import json; assert json.load(open("slow.json"))["predicted_slower"] is True' &&
  grep -q "^rankmap: warning: the gain model (flow) predicts this mapping .* slower than block, and its hop-bytes are [1-9]" err.txt; then ok
else bad "map --baseline random: no warning of a slower mapping: $(cat err.txt)"; fi

# model says what predicted_gain is: the flow model's slowest rank, not the
# mean message time (issue 32, defect 8).
"$rankmap" model -m "$desmos" --p-mpi 0.5 >model.txt
grep -q "^predicted_gain (rankmap map and eval): .*slowest rank" model.txt && grep -q "under the flow model" model.txt &&
  ! grep -q "mean message time of" model.txt && ok || bad "model's predicted_gain: $(cat model.txt)"

# The flow model's fallback names the limit it met: here its work budget,
# on a graph far under 131,072 messages a phase (issue 32, defect 5).
"$rankmap" gen stencil --dims 24x24x24 -o big.mtx >/dev/null
"$rankmap" map big.mtx -m "$src/bench/machines/torus-16x8x8.toml" --baseline rr -o big.rank -q >/dev/null 2>&1
"$rankmap" eval big.mtx -m "$src/bench/machines/torus-16x8x8.toml" --mapping big.rank --p-mpi 0.5 --json big.json -q >big.txt
if grep -q "mean message time: the flow model stopped after [0-9.]* s, its work budget of 838,860,800 steps" big.txt &&
  ! grep -q "too many messages" big.txt &&
  python3 -c 'import json; d = json.load(open("big.json")); assert d["gain_model"] == "messages" and "budget" in d["flow_model_stopped"] and d["predicted_comm_ns"] is None'; then ok
else bad "the flow model's fallback: $(tail -1 big.txt)"; fi

# One rule, said where it matters: a mapping kept with more hop-bytes than
# block says the flow model overruled them (issue 32, defect 6).
"$rankmap" map "$src/data/profiles/lammps-melt-16.rmp" -m "$desmos" -o melt.rank --json melt.json -q >melt.txt 2>&1
if python3 -c 'import json; d = json.load(open("melt.json"))
assert d["hop_bytes"] > d["baseline"]["hop_bytes"] and d["predicted_gain"] > 0 and d["model_overruled_hop_bytes"] is True' &&
  grep -q "^the flow model overruled hop-bytes: [0-9.]*x block's hop-bytes, predicted [0-9.]* % faster. Never worse than block:" melt.txt
then ok; else bad "the flow model overruling hop-bytes is not said: $(tail -3 melt.txt)"; fi
"$rankmap" map --help | grep -q "^Never worse than block: rankmap writes no mapping" && ok || bad "map --help states the rule"

# Numeric options say their range in words.
expect_error "--ppn 0" "--ppn: expected a whole number from 1 to 1000000 (ranks per node), got '0'" out.rank -- map good.mtx "${m[@]}" --ppn 0 -o out.rank
expect_error "--ppn 2.5" "--ppn: expected a whole number from 1 to 1000000 (ranks per node), got '2.5'" out.rank -- map good.mtx "${m[@]}" --ppn 2.5 -o out.rank
expect_error "--p-mpi 2" "--p-mpi: expected a number from 0 to 1 (a fraction), got '2'" out.rank -- map good.mtx "${m[@]}" --p-mpi 2 -o out.rank
# An output that cannot be written is refused before any work: profile's
# job never starts.
expect_error "profile into no folder" "nodir/x.rmp: cannot be written: there is no folder 'nodir'" nodir/x.rmp -- profile --mpi openmpi -o nodir/x.rmp -- sh -c 'touch ran'
[ ! -e ran ] && ok || bad "profile ran the job before finding its output cannot be written"
expect_error "map into no folder" "nodir/out.rank: cannot be written: there is no folder 'nodir'" nodir/out.rank -- map good.mtx "${m[@]}" -o nodir/out.rank
"$rankmap" map good.mtx --bogus >/dev/null 2>&1; [ $? -eq 1 ] && ok || bad "a usage error exits 1"
expect_error "launcher without --" "put '--' before the launcher" app.rmp -- profile -o app.rmp mpirun -np 2 ./app
expect_error "no subcommand" "A subcommand is required" out.rank --
"$rankmap" >/dev/null 2>&1; [ $? -eq 1 ] && ok || bad "no subcommand exits 1"
"$rankmap" --version >/dev/null && ok || bad "--version exits 0"
# One version: the command prints the library's, which is the project's.
project_version=$(sed -n 's/^project(rankmap VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[ "$("$rankmap" --version)" = "rankmap $project_version" ] && ok || bad "--version: $("$rankmap" --version), project $project_version"
# --help of map and eval names every graph format, the profile included.
for cmd in map eval; do
  "$rankmap" $cmd --help | grep -qF "(.rmp .mtx .graph .grf .csv)" && ok || bad "$cmd --help lists the formats"
done
# inspect names the formats it reads, and where an hwloc XML belongs.
touch node.xml
expect_error "inspect an XML" "inspect reads a machine (.toml), a profile (.rmp) or a graph (.mtx, .graph, .grf, .csv); an hwloc XML goes into a machine file as hwloc_xml" none -- inspect node.xml
# convert keeps message counts in .csv, and warns that .mtx cannot.
"$rankmap" convert "$src/data/profiles/lammps-melt-16.rmp" -o melt.csv >/dev/null 2>err.txt
[ ! -s err.txt ] && ok || bad "convert to csv warned: $(cat err.txt)"
"$rankmap" convert "$src/data/profiles/lammps-melt-16.rmp" -o melt.mtx >/dev/null 2>err.txt
if [ "$(wc -l <err.txt)" -eq 1 ] && grep -qF "melt.mtx keeps bytes only" err.txt && grep -qF "write .csv to keep them" err.txt; then ok
else bad "convert to mtx: $(cat err.txt)"; fi
profile_msgs=$("$rankmap" inspect "$src/data/profiles/lammps-melt-16.rmp" | sed -n 's/^bytes .* in \([0-9]*\) messages.*/\1/p' | tail -1)
csv_msgs=$("$rankmap" inspect melt.csv | sed -n 's/^bytes .* in \([0-9]*\) messages.*/\1/p')
mtx_msgs=$("$rankmap" inspect melt.mtx | sed -n 's/^bytes .* in \([0-9]*\) messages.*/\1/p')
if [ -n "$profile_msgs" ] && [ "$csv_msgs" = "$profile_msgs" ] && [ "$mtx_msgs" = 100 ]; then ok
else bad "message counts: profile $profile_msgs, csv $csv_msgs, mtx $mtx_msgs (100 pairs)"; fi

# inspect lists a version 2 profile's call records: fft2d 4 x 4, 5
# iterations, is a barrier on the world (slot 0, before and after: recursive
# doubling on 16 ranks) and an
# all-to-all in each rank's row (slot 1) and column (slot 2), 5 calls each,
# on all 16 ranks; a version 1 profile has none.
"$rankmap" inspect "$src/tests/data/fft2d-16.rmp" >calls.txt
if grep -qx "  slot 0  barrier_recursive_doubling  16 ranks, up to 2 calls" calls.txt &&
  grep -qx "  slot 1  alltoall_linear  16 ranks, up to 5 calls" calls.txt &&
  grep -qx "  slot 2  alltoall_linear  16 ranks, up to 5 calls" calls.txt && [ "$(grep -c '^  slot' calls.txt)" = 3 ]; then ok
else bad "inspect's call records: $(cat calls.txt)"; fi
"$rankmap" inspect "$src/data/profiles/lammps-melt-16.rmp" | grep -qx "calls      no records (collectives timed as chains)" &&
  ok || bad "inspect of a version 1 profile"

# machine new writes a file that inspect reads back; a wrong host count
# writes nothing.
"$rankmap" machine new -o new.toml --dims 4x2x2x2 --hosts 'node[00-31]' --hwloc 'package:1 core:6 pu:2' --t-hop-ns 129 \
  --link-gbps 75 >/dev/null || bad "machine new"
if "$rankmap" inspect new.toml >new.txt && grep -q "4x2x2x2 torus, wrap yes yes yes yes" new.txt &&
   grep -q "latency    t_hop 129 ns, t_inj 500 ns" new.txt && grep -q "total      32 nodes, 192 cores, 384 PUs" new.txt; then ok
else bad "machine new read back: $(cat new.txt)"; fi
"$rankmap" map good.mtx -m new.toml -o new.rank -q >/dev/null
"$rankmap" map good.mtx -m "$desmos" -o desmos.rank -q >/dev/null
cmp -s desmos.rank new.rank && ok || bad "the new file maps as desmos.toml does"
expect_error "machine new host count" "--hosts: lists 31 hosts, but --dims 4x2x2x2 has 32 nodes" short.toml.new -- machine new -o short.toml.new --dims 4x2x2x2 --hosts 'node[00-30]' --hwloc core:2
expect_error "machine new without a tree" "give the nodes' tree once" x.toml -- machine new -o x.toml --switch --hosts 'n[1-2]'
"$rankmap" machine new -o here.toml --fattree 2:1,2 --hosts 'h[1-4]' --this-node >/dev/null || bad "machine new --this-node"
if [ -s here.toml.node.xml ] && "$rankmap" inspect here.toml >here.txt && grep -q "fattree, levels from the nodes up" here.txt; then
  if command -v lstopo-no-graphics >/dev/null; then
    pus=$(( $(lstopo-no-graphics --only pu | wc -l) * 4 ))
    grep -q "total      4 nodes, .* cores, $pus PUs" here.txt && ok || bad "this node's PUs: $(cat here.txt), lstopo: $pus"
  else ok; fi
else bad "machine new --this-node read back: $(cat here.txt)"; fi

# Outputs are never written through a symlink, a device or a planted
# temporary name (issue 16): the victim files stay as they were.
echo "victim" >victim.txt
ln -sf victim.txt link.rank
expect_error "output is a symlink" "link.rank: is a symbolic link; refusing to replace it" none -- map good.mtx "${m[@]}" --baseline block -o link.rank
[ "$(cat victim.txt)" = victim ] && [ -L link.rank ] && ok || bad "the symlink's target was written"
for pid in $(seq 1 64); do ln -sf victim.txt "planted.rank.tmp.$pid"; ln -sf victim.txt ".planted.rank.tmp.$pid"; done
"$rankmap" map good.mtx "${m[@]}" --baseline block -o planted.rank -q >/dev/null && [ "$(cat victim.txt)" = victim ] &&
  [ -f planted.rank ] && [ ! -L planted.rank ] && ok || bad "a planted temporary symlink was followed"
rm -f planted.rank.tmp.* .planted.rank.tmp.*
expect_error "output is a device" "/dev/zero: is not a regular file; refusing to replace it" none -- map good.mtx "${m[@]}" --baseline block -o /dev/zero
[ -c /dev/zero ] && ok || bad "/dev/zero was replaced"
ln -sf victim.txt link.json
expect_error "json is a symlink" "link.json: is a symbolic link" none -- eval good.mtx "${m[@]}" --mapping planted.rank --json link.json
[ "$(cat victim.txt)" = victim ] && ok || bad "the json symlink's target was written"
ls -A | grep -q '\.tmp\.' && bad "temporary files left: $(ls -A | grep '\.tmp\.')" || ok

# Issue 16's crashers and runaway inputs: one line, exit 1, no output.
printf '0,40,10\n1,0,5\n# ranks=2\n' >late-ranks.csv
expect_error "ranks= after the edges" "late-ranks.csv:3: ranks=2 but an edge above names rank 40" x.rank -- map late-ranks.csv "${m[@]}" -o x.rank
printf '0,1,5\n0051,2110110617,1\n' >far-rank.csv
expect_error "a rank id of 2*10^9 in a small file" "far-rank.csv:2: rank 2110110617 in a file of 24 bytes: at most 1050112 ranks" x.rank -- map far-rank.csv "${m[@]}" -o x.rank
printf '# ranks=4294967297\n0,1,5\n' >huge-ranks.csv
expect_error "ranks= beyond 2^31" "huge-ranks.csv:1: ranks=4294967297 is out of range (1 to 2147483647)" x.rank -- map huge-ranks.csv "${m[@]}" -o x.rank
printf 'name = "x"\n[network]\ndims = [65536, 65536, 65536, 65536]\nt_hop_ns = 1\nt_inj_ns = 1\nt_ej_ns = 1\n[[nodes]]\nhosts = "n1"\ncoords = [[0,0,0,1]]\nhwloc = "core:1"\n' >overflow.toml
expect_error "coordinates overflow" "overflow.toml:3: 'dims' make more than 16777216 nodes" none -- inspect overflow.toml
expect_error "hostlist to 2^64-1" "unknown host 'node18446744073709551615'" x.rank -- map good.mtx "${m[@]}" --nodes 'node[18446744073709551615]' -o x.rank
expect_error "hostlist of 10^8 hosts" "more than 10000000 hosts" x.rank -- map good.mtx "${m[@]}" --nodes 'a[0-999]b[0-999]c[0-99]' -o x.rank
expect_error "hostlist range to 2^64-1" "is too large" x.rank -- map good.mtx "${m[@]}" --nodes 'n[0-18446744073709551615]' -o x.rank
printf '[network]\ndims = [2]\nt_hop_ns = 1\nt_inj_ns = 1\nt_ej_ns = 1\n[[nodes]]\nhosts = "n[0-1]"\nhwloc = "package:8192 core:1"\n' >wide.toml
expect_error "hwloc of 8,192 packages" "wide.toml:8: hwloc description 'package:8192 core:1' has a level of 8192 objects" none -- inspect wide.toml
python3 -c "print(''.join('node%02d:1 binding=user:%s\\n' % (i, '+'.join(['0-1000000'] * 300)) for i in range(16)), end='')" >wide.mf
expect_error "MPICH binding of 10^6 CPUs" "wide.mf:1: more than 65536 CPU numbers in one list" none -- eval good.mtx -m "$desmos" --mapping wide.mf --mapping-format mpich

# Counts a header claims are checked against the file before any allocation.
printf '%%%%MatrixMarket matrix coordinate integer general\n3 3 4611686018427387904\n1 2 5\n' >claims.mtx
expect_error "mtx claiming 2^62 entries" "claims.mtx:2: the size line announces 4611686018427387904 entries, more than a file of" x.rank -- map claims.mtx "${m[@]}" -o x.rank
printf '%%%%MatrixMarket matrix coordinate integer general\n3 3 1000000000000\n1 2 5\n' >tera.mtx
expect_error "mtx claiming 10^12 entries" "tera.mtx:2: the size line announces 1000000000000 entries" x.rank -- map tera.mtx "${m[@]}" -o x.rank
printf '2147483648 1\n2\n1\n' >huge.graph
expect_error "metis of 2^31 vertices" "huge.graph:1: expected 1 to 2147483647 vertices" x.rank -- map huge.graph "${m[@]}" -o x.rank
printf '3 9223372036854775808\n2\n1 3\n2\n' >wraps.graph
expect_error "metis claiming 2^63 edges" "wraps.graph:1: the header announces 3 vertices and 9223372036854775808 edges" x.rank -- map wraps.graph "${m[@]}" -o x.rank
printf '0\n2 4611686018427387904\n0 000\n1 1\n1 0\n' >arcs.grf
expect_error "grf claiming absurd arcs" "arcs.grf:2: the header announces 2 vertices and 4611686018427387904 arcs" x.rank -- map arcs.grf "${m[@]}" -o x.rank
printf 'rank 2147483647=node00 slot=0:0\n' >big.rf
expect_error "rankfile rank 2^31-1" "big.rf:1: rank 2147483647 in a file of 32 bytes" none -- eval good.mtx "${m[@]}" --mapping big.rf --mapping-format openmpi
printf 'name = "x"\n[network]\ndims = [1000000, 3000]\nt_hop_ns = 1\nt_inj_ns = 1\nt_ej_ns = 1\n[[nodes]]\nhosts = "n1"\ncoords = [[0,0]]\nhwloc = "core:1"\n' >slowdims.toml
expect_error "dims of 10^6 x 3000" "slowdims.toml:3: 'dims' make more than 16777216 nodes" none -- inspect slowdims.toml
printf 'rankmap-profile 1\nranks 2147483647\nrank 0 host a wall_s 1 mpi_s 0\nend\n' >claims.rmp
expect_error "rmp claiming 2^31-1 ranks" "claims.rmp:3: 'ranks 2147483647' in a file of" x.rank -- map claims.rmp "${m[@]}" -o x.rank
# Only regular files are read: /dev/zero and a FIFO would never end.
expect_error "--nodes @/dev/zero" "/dev/zero: not a regular file" x.rank -- map good.mtx "${m[@]}" --nodes @/dev/zero -o x.rank
mkfifo fifo
expect_error "--nodes @FIFO" "fifo: not a regular file" x.rank -- map good.mtx "${m[@]}" --nodes @fifo -o x.rank
expect_error "-C /dev/zero" "/dev/zero: not a regular file" x.rank -- map good.mtx "${m[@]}" -C /dev/zero -o x.rank
sed 's/^t_hop_ns = 129 /t_hop_ns = nan /' "$desmos" >nan.toml
expect_error "NaN latency" "nan.toml:9: 't_hop_ns' must be a non-negative number" x.rank -- map good.mtx -m nan.toml -o x.rank

# Launch files: a rank number the file cannot back, sockets of 2^32.
printf 'rank 2147483646=node00 slot=0:0\n' >far.rank
expect_error "rankfile rank 2^31-2" "far.rank:1: rank 2147483646 in a file of 32 bytes" none -- eval good.mtx "${m[@]}" --mapping far.rank
printf 'rank 0=node00 slot=4294967296:0\n' >sock.rank
expect_error "rankfile socket 2^32" "sock.rank:1: socket 4294967296 does not exist on host 'node00'" none -- eval pair.csv "${m[@]}" --mapping sock.rank
printf 'rank,host,socket,core,pu\n0,node00,4294967296,0,\n1,node01,0,0,\n' >sock.csv
expect_error "csv socket 2^32" "sock.csv:2: socket 4294967296 does not exist on host 'node00'" none -- eval pair.csv "${m[@]}" --mapping sock.csv

# rankmap profile as a supervisor: -o a directory is refused, SIGTERM goes
# on to the job, and nothing is left behind.
mkdir -p outdir
expect_error "profile -o DIR" "outdir: is a directory; expected the profile's file name" outdir/x -- profile --mpi openmpi -o outdir -- true
[ -z "$(ls -A outdir)" ] && ! ls outdir.run-* >/dev/null 2>&1 && ok || bad "profile -o DIR left files"
# The job's sleep is this shell's own (60.PID seconds): another run of
# this script beside it (a second checkout's ctest) sleeps too, and a
# plain "sleep 60" matched that one.
job_sleep="60.$$"
"$rankmap" profile --mpi openmpi -o term.rmp -- sleep "$job_sleep" >/dev/null 2>term.err &
sup=$!
sleep 1
kill -TERM $sup
wait $sup
rc=$?
for _ in $(seq 50); do pgrep -f "^sleep $job_sleep$" >/dev/null || break; sleep 0.2; done  # a busy machine: up to 10 s
if [ $rc -eq 143 ] && ! pgrep -f "^sleep $job_sleep$" >/dev/null && ! ls term.rmp* >/dev/null 2>&1 && grep -q "stopped by signal 15" term.err; then ok
else bad "SIGTERM to profile: exit $rc, $(pgrep -af "sleep $job_sleep"), $(ls term.rmp* 2>&1), $(cat term.err)"; fi

# A command's outputs land together or not at all; --oversubscribe works.
expect_error "unwritable --json" "nodir/x.json: cannot be written: there is no folder 'nodir'" both.rank -- map good.mtx "${m[@]}" -o both.rank --json nodir/x.json
"$rankmap" gen stencil --dims 8x8 -o s64.mtx >/dev/null
if "$rankmap" map s64.mtx "${m[@]}" --nodes 'node[00-03]' --oversubscribe -o over.rank --json over.json -q >/dev/null &&
   "$rankmap" eval s64.mtx "${m[@]}" --nodes 'node[00-03]' --mapping over.rank -q >/dev/null &&
   python3 -c 'import json; d = json.load(open("over.json")); assert d["ranks"] == 64 and d["baseline"]["ranks"] == 64, d'; then ok
else bad "map --oversubscribe"; fi

# Messages stay one printable line of bounded length whatever the input.
"$rankmap" map good.mtx "${m[@]}" --nodes "$(printf 'node00\nnode01\n\033[31mnode99')" -o x.rank 2>err.txt
[ $? -eq 1 ] && [ "$(wc -l <err.txt)" -eq 1 ] && ! grep -q "$(printf '\033')" err.txt && ok || bad "a hostlist with newlines and escapes: $(cat -v err.txt)"
"$rankmap" map good.mtx "${m[@]}" --nodes "n$(head -c 20000 /dev/zero | tr '\0' x)" -o x.rank 2>err.txt
[ $? -eq 1 ] && [ "$(wc -l <err.txt)" -eq 1 ] && [ "$(wc -c <err.txt)" -lt 1000 ] && ok || bad "a 20 KB host name: $(wc -c <err.txt) bytes"

# convert never writes a graph its own reader would read differently.
printf '0,0,5\n1,1,3\n0,1,2\n' >self.csv
expect_error "self-traffic as .grf" "self.grf: .grf cannot hold this graph: it would read back with 2 ranks and 4 bytes, not 2 and 10" self.grf -- convert self.csv -o self.grf
printf '0,1,2\n1,0,7\n' >oneway.csv
expect_error "unequal directions as .graph" "oneway.graph: .graph cannot hold this graph: it would read back with 2 ranks and 18 bytes, not 2 and 9" oneway.graph -- convert oneway.csv -o oneway.graph
# Equal bytes both ways (a stencil) go to Scotch and METIS and read back the same.
"$rankmap" gen stencil --dims 4x3 --periodic -o st.csv -q
for ext in grf graph; do
  "$rankmap" convert st.csv -o "st.$ext" >/dev/null && "$rankmap" convert "st.$ext" -o "back-$ext.csv" >/dev/null &&
    cmp -s st.csv "back-$ext.csv" && ok || bad "a stencil through .$ext reads back the same"
done

# One entry's bytes stay far inside 64 bits.
printf '2 1 001\n2 9223372036854775808\n1 9223372036854775808\n' >heavy.graph
expect_error "metis weight 2^63" "heavy.graph:2: an edge weight of 9223372036854775808 is beyond the 281474976710656 bytes" x.rank -- map heavy.graph "${m[@]}" -o x.rank

# An unknown host in a --nodes @file is blamed on the file and its line.
printf 'node00\n# a comment\nnode01\nnode99\n' >nodes.txt
expect_error "unknown host in @file" "nodes.txt:4: unknown host 'node99'" x.rank -- map good.mtx "${m[@]}" --nodes @nodes.txt -o x.rank

# Hybrid ranks (issue 32): Angara-K1's A nodes (2 packages x 6 cores x 2
# PUs, PUs 0-11 on package 0), 4 ranks of 6 hardware threads: every rank's
# block is 6 PUs of one package, checked from the csv by hand's rule.
angara=$src/data/machines/angara-k1.toml
"$rankmap" map "$src/data/profiles/lammps-melt-16.rmp" -m "$angara" --nodes 'a[01-04]' --ppn 4 --cpus-per-rank 6 \
  --hwthreads -f csv -o hybrid.csv 2>hybrid.err >/dev/null || bad "map --cpus-per-rank: $(cat hybrid.err)"
awk -F, 'NR > 1 {
    n = 0; lo = 1e9; hi = -1; split($5, items, ";")
    for (i in items) { split(items[i], ab, "-"); b = ab[2] == "" ? ab[1] : ab[2]
      for (p = ab[1]; p <= b; ++p) { ++n; lo = p < lo ? p : lo; hi = p > hi ? p : hi } }
    if (n != 6 || int(lo / 12) != int(hi / 12) || int(lo / 12) != $3) { print "rank " $1 ": " $0; bad = 1 }
    ++ranks; per[$2]++ }
  END { for (h in per) if (per[h] != 4) bad = 1; exit bad || ranks != 16 }' hybrid.csv &&
  ok || bad "hybrid blocks: $(cat hybrid.csv)"
grep -q "OMP_NUM_THREADS=6 OMP_PLACES=threads" hybrid.err && ok || bad "no OMP_* line: $(cat hybrid.err)"
"$rankmap" map "$src/data/profiles/lammps-melt-16.rmp" -m "$angara" --nodes 'a[01-08]' --cpus-per-rank 6 -f slurm \
  -o hybrid.hosts -q >/dev/null && grep -qx "SRUN_CPUS_PER_TASK=12" hybrid.hosts.env && ok ||
  bad "slurm .env of 6-core ranks (12 CPUs): $(cat hybrid.hosts.env)"
expect_error "--cpus-per-rank too wide" "--cpus-per-rank: 4 ranks of 6 cores do not fit host 'a01', which has 12 cores and 24 hardware threads (more --nodes, fewer --ppn, fewer --cpus-per-rank or --hwthreads" \
  x.rank -- map "$src/data/profiles/lammps-melt-16.rmp" -m "$angara" --nodes 'a[01-04]' --ppn 4 --cpus-per-rank 6 -o x.rank

# A dragonfly from `machine new --dragonfly` (issue 54): 3 groups of 2
# chassis of 3 routers, 2 nodes a router, 2 cables between two groups. A
# random mapping's groups, bytes between groups, busiest global link and
# the adaptive reading's, recomputed here from the mapping and the graph:
# node n is in group n / 12; the pair (a, b) crosses on cable b mod 2;
# adaptively, half a group pair's bytes stay on its 2 cables, the other
# half crosses the third group.
"$rankmap" machine new --dragonfly '3,2;2,1;3,1;2' --hosts 'n[00-35]' --hwloc 'package:1 core:2 pu:1' -o df.toml \
  >/dev/null && "$rankmap" inspect df.toml | grep -q "dragonfly, 3 groups of 2 chassis of 3 routers (2 nodes each)" &&
  ok || bad "machine new --dragonfly"
"$rankmap" gen stencil --dims 6x6 --renumber 5 -o s36.mtx -q >/dev/null
"$rankmap" map s36.mtx -m df.toml --ppn 1 --baseline random --seed 3 -f csv -o df-random.csv -q >/dev/null
"$rankmap" eval s36.mtx -m df.toml --ppn 1 --mapping df-random.csv --mapping-format csv --json df.json -q >/dev/null
if python3 -c 'import json, collections
node = {int(r): int(h[1:]) for r, h, *_ in (l.split(",") for l in open("df-random.csv").read().split()[1:])}
cable, pair, inter = collections.Counter(), collections.Counter(), 0
for line in [l for l in open("s36.mtx") if not l.startswith("%")][1:]:  # after the size line
    i, j, b = map(int, line.split()); a, c = node[i - 1], node[j - 1]
    if a // 12 != c // 12:
        inter += b; cable[a // 12, c // 12, c % 2] += b; pair[a // 12, c // 12] += b
adaptive = collections.Counter()
for (g, h), b in pair.items():
    third = 3 - g - h
    for j in (0, 1):
        adaptive[g, h, j] += b / 4; adaptive[g, third, j] += b / 4; adaptive[third, h, j] += b / 4
d = json.load(open("df.json"))
assert d["groups"] == 3 and d["inter_group_bytes"] == inter > 0, (d, inter)
assert d["max_global_link_bytes"] == max(cable.values()), (d, cable)
assert d["adaptive"]["max_global_link_bytes"] == round(max(adaptive.values())), (d, adaptive)'; then ok; else bad "dragonfly scores"; fi
"$rankmap" plot s36.mtx -m df.toml --ppn 1 --what links --mapping df-random.csv --mapping-format csv -o df.svg \
  --json df-plot.json -q >/dev/null
if [ "$(grep -c 'class="group"' df.svg)" = 6 ] && python3 -c 'import json
p, d = json.load(open("df-plot.json")), json.load(open("df.json"))
assert p["kind"] == "dragonfly" and p["groups"] == 3, p
assert [s["hottest_bytes"] for s in p["sides"]] == [d["baseline"]["max_link_bytes"], d["max_link_bytes"]], (p, d)'; then
  ok; else bad "plot --what links on a dragonfly"; fi
# Fewer ranks than slots: the engine's nodes fill whole groups. 4,096 ranks
# at 4 a node on the Frontier-like machine need 1,024 nodes, 8 groups of
# 128 (by hops alone they took all 74).
"$rankmap" gen stencil --dims 16x16x16 -o st4k.mtx -q >/dev/null
"$rankmap" map st4k.mtx -m "$src/data/machines/frontier-like.toml" --ppn 4 -o fr.rank --json fr.json -q >/dev/null
python3 -c 'import json, sys; d = json.load(open("fr.json")); sys.exit(d["groups"] != 8)' && ok ||
  bad "frontier-like: $(grep '"groups"' fr.json | head -1)"
# 12 ranks, one a node, fit one group of 12 nodes: nothing crosses groups,
# and map says so rather than a ratio of zeros.
"$rankmap" gen stencil --dims 4x3 -o s12.mtx -q >/dev/null
"$rankmap" map s12.mtx -m df.toml --ppn 1 -o s12.csv -f csv -q | grep -q "^dragonfly: bytes between groups none, as block's" &&
  ok || bad "dragonfly line for one group"
expect_error "dragonfly too large" "--dragonfly: '65536,1;65536,1;65536,1;65536' makes more than 16777216 nodes" \
  x.toml -- machine new --dragonfly '65536,1;65536,1;65536,1;65536' --hosts 'n[00-35]' --hwloc 'core:2' -o x.toml
expect_error "dragonfly shape" "--dragonfly: expected 74,4;1,1;32,1;4 (groups,cables;chassis,cables;routers,cables;nodes a router); got '3,2;2,1'" \
  x.toml -- machine new --dragonfly '3,2;2,1' --hosts 'n[00-35]' --hwloc 'core:2' -o x.toml

# The man pages (built where help2man is) name the variables rankmap reads.
man_page=$(dirname "$rankmap")/man/rankmap-run.1
if [ -f "$man_page" ]; then
  missing=$(for v in '^\.SH ENVIRONMENT' SLURM_CPUS_PER_TASK SLURM_TASKS_PER_NODE PBS_NODEFILE RANKMAP_MACHINE \
    RANKMAP_HOST RANKMAP_CACHE_DIR TMPDIR; do grep -q "$v" "$man_page" || echo "$v"; done)
  [ -z "$missing" ] && ok || bad "man page without: $missing"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
