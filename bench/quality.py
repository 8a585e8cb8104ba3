#!/usr/bin/env python3
"""Mapping quality: rankmap's presets against the launcher's block mapping
and Scotch's static mapping, on the same instances in one run. Scotch runs
as its users run it (bench/peers/scotch_gmap.py): Debian's `scotch_gmap`
with its default, quality and balance strategy strings, at node level and,
for one rank a core, at core level; each metric takes Scotch's best run.
Instances: stencils, irregular graphs from two generators (METIS quotients
of random meshes, random geometric graphs), row all-to-all, and real
profiles from data/profiles (LAMMPS, HPCC). Instances marked "renumbered"
are their twin with the ranks renumbered at random (`rankmap gen ...
--renumber 7`, or a seeded permutation of a profile's graph): the same
graph, so a mapper that finds structure in the graph, not in the
numbering, scores both the same.

Usage: bench/quality.py [RANKMAP]    (default build/cli/rankmap)
Writes the instances and reports to bench/out/quality/ and prints a
Markdown table. Targets (bench/RESULTS.md): never worse than block on any
instance in any preset; each renumbered twin within 5 % of its natural
order; on the non-grid instances, as geometric means, hop-bytes at most
0.85x and max link load at most 0.75x Scotch's best.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scotch_gmap  # noqa: E402
from instances import Instances, geomean, machine  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
rankmap = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build/cli/rankmap"))
out = os.path.join(here, "out", "quality")
os.makedirs(out, exist_ok=True)
m444, m888, angara, desmos = machine("torus-4x4x4"), machine("torus-8x8x8"), machine("angara-k1"), machine("desmos")
m444x16, m1688x16 = machine("torus-4x4x4-2x8"), machine("torus-16x8x8")


bench = Instances(rankmap, out)
run, graph = bench.run, bench.graph


def renumbered(name, *gen_args):
    return graph(name + "-renumbered", *gen_args, "--renumber", "7")


random_nodes, permuted = bench.random_nodes, bench.permuted


# name, kind, graph, machine, extra map options
instances = [
    ("stencil 32x32 on 4^3", "stencil", graph("st32x32", "stencil", "--dims", "32x32"), m444, []),
    ("stencil 64x16 periodic on 4^3", "stencil", graph("st64x16p", "stencil", "--dims", "64x16", "--periodic"), m444, []),
    ("stencil 10x10x10 27-pt on 4^3", "stencil", graph("st10c", "stencil", "--dims", "10x10x10", "--points", "27"), m444, []),
    ("stencil 8x8x6 on Angara-K1", "stencil", graph("st886", "stencil", "--dims", "8x8x6"), angara, []),
    ("irregular 1024 #1 on 4^3", "irregular", graph("irr1", "irregular", "--ranks", "1024", "--seed", "1"), m444, []),
    ("irregular 1024 #2 on 4^3", "irregular", graph("irr2", "irregular", "--ranks", "1024", "--seed", "2"), m444, []),
    ("irregular 1024 #3 on 4^3", "irregular", graph("irr3", "irregular", "--ranks", "1024", "--seed", "3"), m444, []),
    ("irregular 384 on Angara-K1", "irregular", graph("irr384", "irregular", "--ranks", "384", "--seed", "4"), angara, []),
    ("irregular 1024 on 64 random of 8^3", "irregular", graph("irr1", "irregular", "--ranks", "1024", "--seed", "1"), m888,
     ["--nodes", random_nodes(64, 1)]),
    ("irregular 2048 on 128 random of 8^3", "irregular", graph("irr2048", "irregular", "--ranks", "2048", "--seed", "5"), m888,
     ["--nodes", random_nodes(128, 2)]),
    ("geometric 1024 #1 on 4^3", "irregular", graph("geo1", "geometric", "--ranks", "1024", "--seed", "1"), m444, []),
    ("geometric 1024 #2 on 4^3", "irregular", graph("geo2", "geometric", "--ranks", "1024", "--seed", "2"), m444, []),
    ("geometric 768 on 48 random of 8^3", "irregular", graph("geo768", "geometric", "--ranks", "768", "--seed", "3"), m888,
     ["--nodes", random_nodes(48, 4)]),
    ("geometric 384 on Angara-K1", "irregular", graph("geo384", "geometric", "--ranks", "384", "--seed", "4"), angara, []),
    ("LAMMPS melt 128 on 4^3, 2 a node", "profile", profile("lammps-melt-128"), m444, ["--ppn", "2"]),
    ("LAMMPS peptide 64 on Desmos, 2 a node", "profile", profile("lammps-peptide-64"), desmos, ["--ppn", "2"]),
    ("LAMMPS melt 16 on Desmos, 1 a node", "profile", profile("lammps-melt-16"), desmos, ["--ppn", "1"]),
    ("HPCC 64 on 4^3, 1 a node", "profile", profile("hpcc-64"), m444, ["--ppn", "1"]),
    ("alltoall rows 16x64 on 4^3", "alltoall", graph("a2a16x64", "alltoall", "--grid", "16x64"), m444, []),
    ("alltoall rows 32x32 on 4^3", "alltoall", graph("a2a32x32", "alltoall", "--grid", "32x32"), m444, []),
    ("stencil 16x8x8 on 64 random of 8^3", "stencil", graph("st16x8x8", "stencil", "--dims", "16x8x8"), m888,
     ["--nodes", random_nodes(64, 3)]),
    ("stencil 16x8x8 on 4^3 x 16 cores", "stencil", graph("st16x8x8", "stencil", "--dims", "16x8x8"), m444x16, []),
    ("4x2x2 on Desmos, 1 rank a node", "stencil", graph("st4x2x2", "stencil", "--dims", "4x2x2"), desmos, ["--ppn", "1"]),
    # The 16K scale: 1,024 nodes of 16 cores.
    ("geometric 16384 on 16x8x8 x 16 cores", "irregular", graph("geo16k", "geometric", "--ranks", "16384", "--seed", "11"),
     m1688x16, []),
    ("irregular 16384 on 16x8x8 x 16 cores", "irregular", graph("irr16k", "irregular", "--ranks", "16384", "--seed", "12"),
     m1688x16, []),
]
# The renumbered twin of each instance above (same graph, ranks permuted).
twins = []
for name, kind, g, machine, extra in instances:
    base = os.path.basename(g)[:-4]
    with open(g) as f:
        header = f.readline(), f.readline()
    if kind == "profile":
        twins.append((name + " (renumbered)", kind, permuted(g), machine, extra))
        continue
    gen_args = header[1].split("rankmap gen ", 1)[1].split()
    twins.append((name + " (renumbered)", kind, renumbered(base, *gen_args), machine, extra))
instances += twins

mappers = {
    "rankmap": ["--preset", "default"],
    "fast": ["--preset", "fast"],
    "quality": ["--preset", "quality"],
    "block": ["--baseline", "block"],
}

rows = []
for name, kind, g, machine, extra in instances:
    result = {}
    for mapper, opts in mappers.items():
        tag = f"{os.path.basename(g)}-{os.path.basename(machine)}-{len(rows)}-{mapper}"
        report = os.path.join(out, tag + ".json")
        run("map", g, "-m", machine, *extra, *opts, "-f", "csv", "-o", os.path.join(out, tag + ".csv"), "--json", report, "-q")
        with open(report) as f:
            result[mapper] = json.load(f)
    nodes = extra[extra.index("--nodes") + 1] if "--nodes" in extra else None
    ppn = int(extra[extra.index("--ppn") + 1]) if "--ppn" in extra else None
    work = os.path.join(out, "scotch")
    os.makedirs(work, exist_ok=True)
    best = scotch_gmap.scotch_best(rankmap, g, machine, nodes, ppn, work)
    best["map_seconds"] = best["seconds"]
    result["scotch"] = best
    rows.append((name, kind, result))
    print(f"done: {name}", file=sys.stderr)

print("| instance | block hop-bytes | Scotch's best hop-bytes | rankmap hop-bytes | rankmap/block | rankmap/Scotch | "
      "rankmap/Scotch max link | fast/block | quality/block | rankmap s | slowest Scotch run s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
geo_hop, geo_link, worse_than_block = [], [], []
natural = {}
for name, kind, r in rows:
    ours, block, scotch = r["rankmap"], r["block"], r["scotch"]
    ratio = lambda a, b: a / b if b else 1.0
    hop_b = ratio(ours["hop_bytes"], block["hop_bytes"])
    hop_s = ratio(ours["hop_bytes"], scotch["hop_bytes"])
    link_s = ratio(ours["max_link_bytes"], scotch["max_link_bytes"])
    for preset in ("rankmap", "fast", "quality"):
        if r[preset]["hop_bytes"] > block["hop_bytes"]:
            worse_than_block.append(f"{name} ({preset})")
    if kind != "stencil":
        geo_hop.append(hop_s)
        geo_link.append(link_s)
    if not name.endswith("(renumbered)"):
        natural[name] = ours["hop_bytes"]
    print(f"| {name} | {block['hop_bytes']} | {scotch['hop_bytes']} | {ours['hop_bytes']} | {hop_b:.3f} | {hop_s:.3f} | "
          f"{link_s:.3f} | {ratio(r['fast']['hop_bytes'], block['hop_bytes']):.3f} | "
          f"{ratio(r['quality']['hop_bytes'], block['hop_bytes']):.3f} | {ours['map_seconds']:.2f} | {scotch['map_seconds']:.2f} |")



print()
print(f"non-grid instances (irregular, geometric, application profiles, all-to-all; natural and renumbered), geometric mean vs Scotch's best: hop-bytes {geomean(geo_hop):.3f}, max link {geomean(geo_link):.3f}")
print("worse than block on: " + (", ".join(worse_than_block) if worse_than_block else "no instance in any preset"))
print("renumbered / natural hop-bytes (default preset):")
for name, kind, r in rows:
    if name.endswith("(renumbered)"):
        base = natural[name[: -len(" (renumbered)")]]
        print(f"  {name[: -len(' (renumbered)')]}: {r['rankmap']['hop_bytes'] / base if base else 1.0:.3f}")
