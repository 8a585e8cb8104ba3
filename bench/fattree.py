#!/usr/bin/env python3
"""Mapping quality on a fat tree: rankmap against the launcher's block
mapping and Scotch's static mapping onto its `tleaf` target with the same
levels (bench/peers/scotch_gmap.py: Debian's `scotch_gmap`, every strategy
string and seed, the best run per metric), on the same instances in one run.

Machine: bench/machines/fattree-8x16.toml, 8 leaves of 16 nodes, 8 uplinks
a leaf, 16 cores a node (2,048 slots). Instances from four generators with
their own seeds (none tuned on), each also with its ranks renumbered at
random, and a real profile (LAMMPS, 128 ranks, one a node).

Usage: bench/fattree.py [RANKMAP]    (default build/cli/rankmap)
Writes to bench/out/fattree/ and prints a Markdown table.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scotch_gmap  # noqa: E402
from instances import Instances, geomean  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
rankmap = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build/cli/rankmap"))
out = os.path.join(here, "out", "fattree")
tree = os.path.join(here, "machines/fattree-8x16.toml")


bench = Instances(rankmap, out)
run, graph, profile = bench.run, bench.graph, bench.profile


generated = [
    ("stencil 16x16x8", ("stencil", "--dims", "16x16x8")),
    ("irregular 2048 #31", ("irregular", "--ranks", "2048", "--seed", "31")),
    ("geometric 2048 #32", ("geometric", "--ranks", "2048", "--seed", "32")),
    ("alltoall rows 32x64", ("alltoall", "--grid", "32x64")),
]
instances = []
for name, args in generated:
    tag = name.replace(" ", "-").replace("#", "s")
    instances.append((name, graph(tag, *args), []))
    instances.append((name + " (renumbered)", graph(tag + "-renumbered", *args, "--renumber", "7"), []))
instances.append(("LAMMPS melt 128, 1 a node", profile("lammps-melt-128"), ["--ppn", "1"]))

rows = []
for name, g, extra in instances:
    result = {}
    for mapper, opts in {"rankmap": ["--preset", "default"], "block": ["--baseline", "block"]}.items():
        tag = f"{os.path.basename(g)[:-4]}-{mapper}"
        report = os.path.join(out, tag + ".json")
        start = time.perf_counter()
        run("map", g, "-m", tree, *extra, *opts, "-f", "csv", "-o", os.path.join(out, tag + ".csv"), "--json", report, "-q")
        seconds = time.perf_counter() - start
        with open(report) as f:
            result[mapper] = json.load(f)
        result[mapper]["command_seconds"] = seconds
    ppn = int(extra[extra.index("--ppn") + 1]) if "--ppn" in extra else None
    work = os.path.join(out, "scotch")
    os.makedirs(work, exist_ok=True)
    result["scotch"] = scotch_gmap.scotch_best(rankmap, g, tree, None, ppn, work, levels=("node",))
    rows.append((name, result))
    print(f"done: {name}", file=sys.stderr)


def ratio(a, b):
    return a / b if b else 1.0


print("| instance | block hop-bytes | Scotch tleaf best | rankmap | rankmap/block | rankmap/Scotch | "
      "max link: rankmap/Scotch | max link: rankmap/block | rankmap map s (whole command) | Scotch runs s (sum of 12) |")
print("|---|---|---|---|---|---|---|---|---|---|")
geo_hop, geo_link, worse = [], [], []
for name, r in rows:
    ours, block, scotch = r["rankmap"], r["block"], r["scotch"]
    if ours["hop_bytes"] > block["hop_bytes"]:
        worse.append(name)
    geo_hop.append(ratio(ours["hop_bytes"], scotch["hop_bytes"]))
    geo_link.append(ratio(ours["max_link_bytes"], scotch["max_link_bytes"]))
    scotch_seconds = sum(run_["seconds"] for run_ in scotch["runs"])
    print(f"| {name} | {block['hop_bytes']} | {scotch['hop_bytes']} | {ours['hop_bytes']} | "
          f"{ratio(ours['hop_bytes'], block['hop_bytes']):.3f} | {geo_hop[-1]:.3f} | {geo_link[-1]:.3f} | "
          f"{ratio(ours['max_link_bytes'], block['max_link_bytes']):.3f} | {ours['command_seconds']:.2f} | {scotch_seconds:.2f} |")



print(f"\nGeometric means against Scotch's best: hop-bytes {geomean(geo_hop):.3f}, max link {geomean(geo_link):.3f}.")
print("Worse than block: " + (", ".join(worse) if worse else "none") + ".")
