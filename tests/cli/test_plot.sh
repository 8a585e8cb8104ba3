#!/usr/bin/env bash
# rankmap plot: every picture opened from its file and checked against
# values worked out by hand. PNGs by an independent reader (png_pixel.py:
# the colours of known cells and links), SVGs by an XML parser
# (check_svg.py: text stays text, labels and hosts exist, the hottest link
# is drawn and ringed, cells and bars carry their titles).
# Usage: test_plot.sh RANKMAP SOURCE_DIR
source "$(dirname "$0")/lib.sh" "$@"
pixel="python3 $src/tests/cli/png_pixel.py"
svg="python3 $src/tests/cli/check_svg.py"
# check NAME COMMAND...: ok when the command passes, else its output.
check() {
  local name=$1 out
  shift
  if out=$("$@" 2>&1); then ok; else bad "$name: $out"; fi
}
# labels JSON: the colour bar's tick labels that --json lists.
labels() { python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))["scale"]["labels"]))' "$1"; }

# Four ranks on two Desmos nodes, 2 a node: 0 -> 1 1000 B (the most),
# 1 -> 2 100 B (the only bytes between nodes under block), 2 -> 3 10 B.
printf '0,1,1000\n1,2,100\n2,3,10\n' >four.csv
two=(-m "$desmos" --nodes 'node[00-01]' --ppn 2)
# A mapping that reverses the ranks: 0, 1 on node01 and 2, 3 on node00,
# each node's second slot (cores 3-5) first.
printf 'rank,host,socket,core,pu\n0,node01,0,3-5,\n1,node01,0,0-2,\n2,node00,0,3-5,\n3,node00,0,0-2,\n' >reversed.csv

# The matrix, PNG: cell (i, j) is sender bin i, receiver bin j, at the
# panel's corner plus (j + 0.5, i + 0.5) cells. Viridis ends: (68,1,84)
# for the fewest bytes, (253,231,36) for the most; 100 B is the middle of
# 10 B..1000 B on the log scale (33,145,140).
"$rankmap" plot four.csv "${two[@]}" -o matrix.png --json matrix.json >/dev/null || bad "plot matrix"
spots=$(python3 -c 'import json
d = json.load(open("matrix.json")); x, y, c = d["panels"][0]["x"], d["panels"][0]["y"], d["cell"]
at = lambda i, j: f"{x + (j + 0.5) * c:.0f},{y + (i + 0.5) * c:.0f}"
print(f"{at(0, 1)}=253,231,36 {at(2, 3)}=68,1,84 {at(1, 2)}=33,145,140 {at(0, 0)}=255,255,255")')
size=$(json matrix.json width)" "$(json matrix.json height)
# shellcheck disable=SC2086
out=$($pixel matrix.png $spots) && [ "$out" = "$size" ] && [ "$(json matrix.json cell)" = 128.0 ] && ok ||
  bad "matrix pixels: $out (size $size)"
# Grouped by node under the reversed mapping: the order is 3 2 1 0 (node00's
# slots, then node01's), so 0 -> 1 lands in row 3, column 2.
"$rankmap" plot four.csv "${two[@]}" --mapping reversed.csv -o grouped.png --json grouped.json >/dev/null ||
  bad "plot grouped"
[ "$(json grouped.json order)" = "[3, 2, 1, 0]" ] && ok || bad "grouped order: $(json grouped.json order)"
spot=$(python3 -c 'import json
d = json.load(open("grouped.json")); x, y, c = d["panels"][0]["x"], d["panels"][0]["y"], d["cell"]
print(f"{x + 2.5 * c:.0f},{y + 3.5 * c:.0f}=253,231,36")')
check "grouped matrix" $pixel grouped.png "$spot"

# The matrix, SVG: hosts and axes as text, a title on every cell naming
# its ranks and hosts, one boundary each way between the two nodes, at
# least 4 labelled ticks (10 B..1000 B: 10, 20, 50 B, ... 1.0 KB).
"$rankmap" plot four.csv "${two[@]}" -o matrix.svg --json matrix-svg.json >/dev/null || bad "plot matrix svg"
check "matrix text" $svg matrix.svg text node00 node01 "sender rank" "receiver rank"
check "matrix cell title" $svg matrix.svg title cell "rank 0 (node00) to rank 1 (node00): 1.0 KB"
check "matrix cell title" $svg matrix.svg title cell "rank 1 (node00) to rank 2 (node01): 100 B"
check "matrix cells" $svg matrix.svg count cell 3
check "matrix boundaries" $svg matrix.svg count boundary 2
mapfile -t ticks < <(labels matrix-svg.json)
check "matrix ticks" $svg matrix.svg ticks 4 "${ticks[@]}"
[ "${#ticks[@]}" -eq 7 ] && ok || bad "ticks of 10 B..1 KB: ${ticks[*]}"
"$rankmap" plot four.csv "${two[@]}" --weight msgs -o msgs.svg >/dev/null &&
  check "--weight msgs" $svg msgs.svg title cell "rank 2 (node01) to rank 3 (node01): 1 message"
"$rankmap" plot four.csv "${two[@]}" --weight mean -o mean.svg >/dev/null &&
  check "--weight mean" $svg mean.svg title cell "rank 0 (node00) to rank 1 (node00): 1.0 KB a message"
# 64 ranks at 2 a node on Desmos's 32 nodes: every boundary drawn (31 each
# way in each of the profile's two panels), every host named.
"$rankmap" plot "$src/data/profiles/lammps-peptide-64.rmp" -m "$desmos" --ppn 2 -o pep.svg --json pep.json >/dev/null ||
  bad "plot peptide"
check "2 ranks a node: boundaries" $svg pep.svg count boundary 124
check "2 ranks a node: hosts" $svg pep.svg text node00 node15 node31

# Hops: 1 -> 2 crosses from node00 to node01, 1 hop apart on Desmos
# (0,0,0,0) and (1,0,0,0), under block; under the reversed mapping too.
"$rankmap" plot four.csv "${two[@]}" --mapping reversed.csv --what hops -o hops.svg --json hops.json >/dev/null ||
  bad "plot hops"
check "hops cell" $svg hops.svg title cell "rank 1 (node00) to rank 2 (node01): 1 hop (bytes-weighted)"
check "hops cell" $svg hops.svg title cell "rank 0 (node00) to rank 1 (node00): 0 hops (bytes-weighted)"
# The mapping's panel names the mapping's hosts (reversed.csv: ranks 0-1 on
# node01, 2-3 on node00), in its cells' titles and its bands, read here
# from the csv itself.
check "hops: the mapping's hosts" $svg hops.svg title cell "rank 1 (node01) to rank 2 (node00): 1 hop (bytes-weighted)"
bands=$(python3 -c 'import csv, itertools, json, sys
rows = sorted(csv.DictReader(open("reversed.csv")), key=lambda r: int(r["rank"]))
want, at = [], 0
for host, group in itertools.groupby(r["host"] for r in rows):
    n = len(list(group)); want.append({"host": host, "first": at, "count": n}); at += n
got = json.load(open("hops.json"))["panels"]
print(got[1]["hosts"] == want and got[0]["hosts"] != want)')
[ "$bands" = True ] && ok || bad "hops panels' hosts: $(json hops.json panels)"
expect_error "hops without a mapping" "--what: hops compares a mapping with block: give --mapping" h.svg -- plot four.csv "${two[@]}" --what hops -o h.svg

# Links of a 4-ring, one rank a node, block: 0 -> 1 loads node 0's +X link
# (100 B, the most), 0 -> 3 its -X link, which wraps (1 B, the fewest).
cat >ring4.toml <<'TOML'
[network]
dims = [4]
t_hop_ns = 100
t_inj_ns = 400
t_ej_ns = 400
[[nodes]]
hosts = "r[0-3]"
hwloc = "core:1"
TOML
printf '0,1,100\n0,3,1\n' >ring.csv
"$rankmap" plot ring.csv -m ring4.toml --what links -o links.png --json links.json >/dev/null || bad "plot links"
spots=$(python3 -c 'import json
d = json.load(open("links.json")); s = d["spacing"]; sl = d["sides"][0]["slices"][0]; x, y = sl["x"], sl["y"]
print(f"{x + 3 + (s - 6) / 4},{y - 3}=253,231,36 {x - 3 - 0.45 * s / 2},{y + 3}=68,1,84 {x + 2 * s + 3 + (s - 6) / 4},{y - 3}=224,224,224")')
# shellcheck disable=SC2086
check "link colours" $pixel links.png $spots
"$rankmap" plot ring.csv -m ring4.toml --what links -o links.svg >/dev/null &&
  check "ring: hottest" $svg links.svg hottest "+X at (0)" "100 B" &&
  check "ring: every link" $svg links.svg links 8
# Link titles to three figures: 40.4 MB and 39.8 MB stay apart.
printf '0,1,40400000\n2,3,39800000\n' >close.csv
"$rankmap" plot close.csv -m ring4.toml --what links -o close.svg >/dev/null &&
  check "three figures" $svg close.svg title link "+X at (0): 40.4 MB" &&
  check "three figures" $svg close.svg title link "+X at (2): 39.8 MB" || bad "plot close links"

# A 2x2x2 torus, block: 0 -> 4 (1000 B) goes +Z from (0,0,0), the
# hottest; 0 -> 1 (10 B) +X. Size-2 rings have one cable a dimension:
# 8 nodes x 3 links.
"$rankmap" machine new -o cube.toml --dims 2x2x2 --hosts 'z[0-7]' --hwloc core:1 >/dev/null
printf '0,4,1000\n0,1,10\n' >cube.csv
"$rankmap" plot cube.csv -m cube.toml --what links -o cube.svg --json cube.json >/dev/null || bad "plot 3D links"
check "3D: the +Z hottest" $svg cube.svg hottest "+Z at (0,0,0)" "1.00 KB"
check "3D: every link" $svg cube.svg links 24
hottest=$(python3 -c 'import json; print(json.load(open("cube.json"))["sides"][0]["hottest"])')
[ "$hottest" = "+Z at (0,0,0)" ] && ok || bad "3D hottest in --json: $hottest"
# A 2x2x3x3 torus: 9 XY slices, 8 drawn. 35 -> 11 is (1,1,2,2) to
# (1,1,2,0): +W, wrapping; each node has 1 + 1 + 2 + 2 links, 32 nodes drawn.
"$rankmap" machine new -o w.toml --dims 2x2x3x3 --hosts 'w[0-35]' --hwloc core:1 >/dev/null
printf '35,11,5000\n0,1,10\n' >w.csv
"$rankmap" plot w.csv -m w.toml --what links -o w.svg >/dev/null || bad "plot 4D links"
check "4D: the +W hottest" $svg w.svg hottest "+W at (1,1,2,2)" "5.00 KB"
check "4D: links of 8 slices" $svg w.svg links 192
check "4D: the legend" $svg w.svg text "X across, Y down; +Z up-right, -Z down-left; +W up-left, -W down-right"

# A fat tree of 2 leaves of 2 nodes, one uplink each: 0 -> 2 (1000 B)
# climbs to the top, 0 -> 1 (100 B) to the leaf: node 0's (h1's) up link
# carries 1100 B, the most. 4 nodes x 2 directions + 2 leaves x 2. The
# top level is one switch.
"$rankmap" machine new -o tree.toml --fattree 2:1,2 --hosts 'h[1-4]' --hwloc core:1 >/dev/null
printf '0,2,1000\n0,1,100\n' >tree.csv
"$rankmap" plot tree.csv -m tree.toml --what links -o tree.svg >/dev/null || bad "plot tree links"
check "tree: hottest" $svg tree.svg hottest "h1 up to level-1 switch" "1.10 KB"
check "tree: every link" $svg tree.svg links 12
check "tree: levels and hosts" $svg tree.svg text nodes "level-1 switches" switch h1 h4
# The JINR cloud's VMs on hosts (a level of hosts) under one switch: every
# picture draws, and the switch is one ("switch").
"$rankmap" plot "$src/data/profiles/lammps-peptide-64.rmp" -m "$src/data/machines/jinr-kvm.toml" --what links \
  -o kvm.svg >/dev/null && check "VMs on hosts" $svg kvm.svg text hosts switch || bad "plot links of VMs"
# A matrix of one weight everywhere still gets at least 4 ticks (README).
printf '0,1,5\n1,0,5\n1,2,5\n2,1,5\n' >uniform.csv
"$rankmap" plot uniform.csv -m "$src/data/machines/jinr-kvm.toml" -o uniform.svg --json uniform.json >/dev/null ||
  bad "plot uniform"
mapfile -t ticks < <(labels uniform.json)
[ "${#ticks[@]}" -ge 4 ] && check "uniform ticks" $svg uniform.svg ticks 4 "${ticks[@]}" || bad "uniform ticks: ${ticks[*]}"

# Bytes: rank 0 sends the most (1000 B): the first of 4 bars is full
# height. Bytes leaving each node, by hand: under block node00 sends 100 B
# (1 -> 2), node01 nothing; under the reversed mapping node01 sends them.
"$rankmap" plot four.csv "${two[@]}" --what bytes -o bytes.png --json bytes.json >/dev/null || bad "plot bytes"
spot=$(python3 -c 'import json
c = json.load(open("bytes.json"))["charts"][0]; x, y, w, h = c["x"], c["y"], c["width"], c["height"]
print(f"{x + w / 8:.0f},{y + h / 2:.0f}=58,82,139")')
check "bytes chart" $pixel bytes.png "$spot"
"$rankmap" plot four.csv "${two[@]}" --mapping reversed.csv --what bytes -o bytes.svg >/dev/null || bad "plot bytes svg"
check "bytes: block's bar" $svg bytes.svg title bar "node00 under block: 100 B"
check "bytes: the mapping's bar" $svg bytes.svg title bar "node01 under reversed.csv: 100 B"
check "bytes: hosts" $svg bytes.svg text node00 node01

"$rankmap" plot four.csv "${two[@]}" -o matrix.pdf >/dev/null && head -c 5 matrix.pdf | grep -q "%PDF" && ok || bad "plot pdf"
expect_error "plot format" "unknown picture format '.gif' (expected .png, .svg or .pdf)" m.gif -- plot four.csv "${two[@]}" -o m.gif
expect_error "plot with unwritable --json" "nodir/p.json: cannot be written: there is no folder 'nodir'" both.png -- plot four.csv "${two[@]}" -o both.png --json nodir/p.json

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
