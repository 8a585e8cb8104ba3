#!/usr/bin/env python3
"""rankmap on dragonflies against block, the launcher's round-robin,
Mt-KaHyPar and Scotch (issue 54), under both readings of the routes.

Each instance is mapped by `rankmap map` (default preset), by block and
rr (`--baseline`), by Mt-KaHyPar with the dragonfly as its target graph
(every allocated pair joined by its hop distance, from a breadth-first
search over the routers and cables the machine file describes: a second
way to rankmap's wiring; steiner_tree objective, default and quality
presets x 3 seeds, bench/peers/mtkahypar.py) and by Scotch (amk_grf over
the same router graph, node level, its 4 strategies x 3 draws,
bench/peers/scotch_gmap.py). Every mapping is scored by `rankmap eval`:
  minimal reading   hop-bytes, the busiest link;
  adaptive reading  the busiest link when each group pair's bytes are
                    spread as UGAL would under load (metrics.hpp);
and the bytes between groups. A peer's figure is its best run per
figure, as its users keep their best seed.

Usage: bench/dragonfly.py [RANKMAP] [--only SUBSTRING]
       [--held-out | --third-set | --fourth-set | --fifth-set | --sixth-set |
        --seventh-set | --eighth-set | --ninth-set]
(default build/cli/rankmap)
--held-out runs nine other instances instead (other seeds, generators and
numberings), for choices tuned on the first fourteen; --third-set nine more,
made after the cut into groups (issue 54, fourth session) had been tuned on
the first 23; --fourth-set nine more, made after the refined draws and the
dragonfly's link allowance (issue 54, seventh session) had been tuned on all
32, with two real application profiles; --fifth-set nine more, made after
the fourth set had been looked at; --sixth-set nine more, made after the
swaps of two for two (issue 54, eighth session) had been tuned on #88;
--seventh-set nine more, made before the iterated cut into groups (issue
54, tenth session) was tuned on the others; --eighth-set nine more, made
before the split of a peak node's pool (issue 54, eleventh session) was
tuned on the others; --ninth-set six of Quantum ESPRESSO's profile, whose
all-to-alls stay inside k-point pools (issue 54, fifteenth session).
Writes bench/out/dragonfly/ (results.json) and prints Markdown tables.
"""
import json
import os
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "peers"))
sys.path.insert(0, here)
import mtkahypar  # noqa: E402
import scotch_gmap  # noqa: E402
from instances import DRAGONFLY_FIGURES as FIGURES  # noqa: E402
from instances import Instances, dragonfly_figures, geomean, machine  # noqa: E402

root = os.path.dirname(here)
args = sys.argv[1:]
only = args[args.index("--only") + 1] if "--only" in args else ""
if "--only" in args:
    del args[args.index("--only"):args.index("--only") + 2]
# The held-out sets, by flag: which instances run, and where they go.
SETS = {"--held-out": "held-out", "--third-set": "third", "--fourth-set": "fourth", "--fifth-set": "fifth",
        "--sixth-set": "sixth", "--seventh-set": "seventh", "--eighth-set": "eighth", "--ninth-set": "ninth"}
chosen = [SETS[a] for a in args if a in SETS]
args = [a for a in args if a not in SETS]
which = chosen[0] if chosen else None
rankmap = os.path.abspath(args[0] if args else os.path.join(root, "build/cli/rankmap"))
out = os.path.join(here, "out", f"dragonfly-{which}" if which else "dragonfly")
work = os.path.join(out, "work")
os.makedirs(work, exist_ok=True)
bench = Instances(rankmap, out)
graph, profile, permuted = bench.graph, bench.profile, bench.permuted

slingshot, plus, simgrid = machine("dragonfly-4x8x4"), machine("dragonfly-plus-4x4x4x8"), \
    machine("simgrid-dragonfly-3x4x5x2")
simgrid4 = machine("simgrid-dragonfly-4x1x8x4")


def seeded(kind, ranks, seed):
    """`rankmap gen KIND` (geometric or irregular) of `ranks` ranks from
    `seed`, as out/geoRANKSsSEED.mtx or out/irrRANKSsSEED.mtx."""
    return graph(f"{kind[:3]}{ranks}s{seed}", kind, "--ranks", str(ranks), "--seed", str(seed))


# 1,024 slots on 128 nodes (960 on SimGrid's 120): Mt-KaHyPar's steiner_tree
# over a complete target graph of 256 nodes took 100 s a run.
instances = []
for name, g, m, extra in [
    ("stencil 16x8x8 on dragonfly 4x8x4", graph("st16x8x8", "stencil", "--dims", "16x8x8"), slingshot, []),
    ("alltoall rows 8x128 on dragonfly 4x8x4", graph("a2a8x128", "alltoall", "--grid", "8x128"), slingshot, []),
    ("irregular 1024 #71 on dragonfly 4x8x4", seeded("irregular", 1024, 71), slingshot, []),
    ("LAMMPS melt 128 on dragonfly 4x8x4, 2 a node (fewer ranks than slots)", profile("lammps-melt-128"),
     slingshot, ["--ppn", "2"]),
    ("irregular 1024 #72 on Dragonfly+ 4x4x4x8", seeded("irregular", 1024, 72), plus, []),
    ("stencil 16x8x8 on Dragonfly+ 4x4x4x8", graph("st16x8x8", "stencil", "--dims", "16x8x8"), plus, []),
    ("geometric 960 #73 on SimGrid's 3,4;4,3;5,1;2", seeded("geometric", 960, 73), simgrid, []),
]:
    instances += [(name, g, m, extra), (name + " (renumbered)", permuted(g), m, extra)]
if which == "held-out":
    instances = [
        ("geometric 960 #74 on SimGrid's 3,4;4,3;5,1;2", seeded("geometric", 960, 74), simgrid, []),
        ("geometric 960 #75 on SimGrid's 3,4;4,3;5,1;2 (renumbered)",
         permuted(seeded("geometric", 960, 75)), simgrid, []),
        ("irregular 1024 #76 on dragonfly 4x8x4 (renumbered)", permuted(seeded("irregular", 1024, 76)), slingshot, []),
        ("geometric 1024 #77 on dragonfly 4x8x4 (renumbered)", permuted(seeded("geometric", 1024, 77)), slingshot, []),
        ("geometric 1024 #77 on Dragonfly+ 4x4x4x8 (renumbered)", permuted(seeded("geometric", 1024, 77)), plus, []),
        ("irregular 1024 #78 on Dragonfly+ 4x4x4x8", seeded("irregular", 1024, 78), plus, []),
        # Added after the first six had been looked at (issue 54, third session).
        ("geometric 1024 #79 on SimGrid's 4,2;1,1;8,1;4 (renumbered, second set)",
         permuted(seeded("geometric", 1024, 79)), simgrid4, []),
        ("irregular 1024 #80 on Dragonfly+ 4x4x4x8 (renumbered, second set)",
         permuted(seeded("irregular", 1024, 80)), plus, []),
        ("geometric 960 #81 on SimGrid's 3,4;4,3;5,1;2 (second set)", seeded("geometric", 960, 81), simgrid, []),
    ]
if which == "third":
    instances = [
        ("geometric 960 #82 on SimGrid's 3,4;4,3;5,1;2 (renumbered)",
         permuted(seeded("geometric", 960, 82)), simgrid, []),
        ("irregular 960 #83 on SimGrid's 3,4;4,3;5,1;2", seeded("irregular", 960, 83), simgrid, []),
        ("stencil 8x8x15 on SimGrid's 3,4;4,3;5,1;2 (renumbered)",
         permuted(graph("st8x8x15", "stencil", "--dims", "8x8x15")), simgrid, []),
        ("geometric 1024 #84 on SimGrid's 4,2;1,1;8,1;4", seeded("geometric", 1024, 84), simgrid4, []),
        ("stencil 16x8x8 on SimGrid's 4,2;1,1;8,1;4 (renumbered)",
         permuted(graph("st16x8x8", "stencil", "--dims", "16x8x8")), simgrid4, []),
        ("irregular 1024 #85 on dragonfly 4x8x4 (renumbered)", permuted(seeded("irregular", 1024, 85)), slingshot, []),
        ("alltoall rows 16x64 on dragonfly 4x8x4 (renumbered)",
         permuted(graph("a2a16x64", "alltoall", "--grid", "16x64")), slingshot, []),
        ("geometric 1024 #86 on Dragonfly+ 4x4x4x8", seeded("geometric", 1024, 86), plus, []),
        ("irregular 1024 #87 on Dragonfly+ 4x4x4x8 (renumbered)", permuted(seeded("irregular", 1024, 87)), plus, []),
    ]
if which == "fourth":
    instances = [
        ("geometric 1024 #88 on dragonfly 4x8x4", seeded("geometric", 1024, 88), slingshot, []),
        ("geometric 960 #89 on SimGrid's 3,4;4,3;5,1;2 (renumbered)",
         permuted(seeded("geometric", 960, 89)), simgrid, []),
        ("irregular 1024 #90 on SimGrid's 4,2;1,1;8,1;4 (renumbered)",
         permuted(seeded("irregular", 1024, 90)), simgrid4, []),
        ("geometric 1024 #91 on Dragonfly+ 4x4x4x8 (renumbered)", permuted(seeded("geometric", 1024, 91)), plus, []),
        ("stencil 8x16x8 on dragonfly 4x8x4 (renumbered)",
         permuted(graph("st8x16x8", "stencil", "--dims", "8x16x8")), slingshot, []),
        ("alltoall rows 32x32 on Dragonfly+ 4x4x4x8", graph("a2a32x32", "alltoall", "--grid", "32x32"), plus, []),
        ("LAMMPS peptide 64 on Dragonfly+ 4x4x4x8, 1 a node (fewer ranks than slots)",
         profile("lammps-peptide-64"), plus, ["--ppn", "1"]),
        ("HPCC 64 on dragonfly 4x8x4, 4 a node (fewer ranks than slots)", profile("hpcc-64"), slingshot,
         ["--ppn", "4"]),
        ("irregular 1024 #92 on Dragonfly+ 4x4x4x8", seeded("irregular", 1024, 92), plus, []),
    ]
if which == "fifth":
    instances = [
        ("geometric 1024 #93 on Dragonfly+ 4x4x4x8", seeded("geometric", 1024, 93), plus, []),
        ("irregular 1024 #94 on dragonfly 4x8x4 (renumbered)", permuted(seeded("irregular", 1024, 94)), slingshot, []),
        ("geometric 960 #95 on SimGrid's 3,4;4,3;5,1;2", seeded("geometric", 960, 95), simgrid, []),
        ("geometric 1024 #96 on SimGrid's 4,2;1,1;8,1;4 (renumbered)",
         permuted(seeded("geometric", 1024, 96)), simgrid4, []),
        ("stencil 32x8x4 on Dragonfly+ 4x4x4x8 (renumbered)",
         permuted(graph("st32x8x4", "stencil", "--dims", "32x8x4")), plus, []),
        ("irregular 960 #97 on SimGrid's 3,4;4,3;5,1;2 (renumbered)",
         permuted(seeded("irregular", 960, 97)), simgrid, []),
        ("LAMMPS melt 128 on Dragonfly+ 4x4x4x8, 1 a node", profile("lammps-melt-128"), plus, ["--ppn", "1"]),
        ("geometric 1024 #98 on dragonfly 4x8x4 (renumbered)", permuted(seeded("geometric", 1024, 98)), slingshot, []),
        ("alltoall rows 4x256 on SimGrid's 4,2;1,1;8,1;4 (renumbered)",
         permuted(graph("a2a4x256", "alltoall", "--grid", "4x256")), simgrid4, []),
    ]
if which == "sixth":
    instances = [
        ("geometric 1024 #99 on dragonfly 4x8x4 (renumbered)", permuted(seeded("geometric", 1024, 99)), slingshot, []),
        ("irregular 1024 #100 on Dragonfly+ 4x4x4x8 (renumbered)",
         permuted(seeded("irregular", 1024, 100)), plus, []),
        ("geometric 960 #101 on SimGrid's 3,4;4,3;5,1;2 (renumbered)",
         permuted(seeded("geometric", 960, 101)), simgrid, []),
        ("geometric 1024 #102 on Dragonfly+ 4x4x4x8", seeded("geometric", 1024, 102), plus, []),
        ("irregular 1024 #103 on SimGrid's 4,2;1,1;8,1;4", seeded("irregular", 1024, 103), simgrid4, []),
        ("stencil 4x16x16 on SimGrid's 4,2;1,1;8,1;4 (renumbered)",
         permuted(graph("st4x16x16", "stencil", "--dims", "4x16x16")), simgrid4, []),
        ("HPCC 64 on Dragonfly+ 4x4x4x8, 2 a node (fewer ranks than slots)", profile("hpcc-64"), plus,
         ["--ppn", "2"]),
        ("geometric 1024 #104 on SimGrid's 4,2;1,1;8,1;4", seeded("geometric", 1024, 104), simgrid4, []),
        ("LAMMPS peptide 64 on dragonfly 4x8x4, 2 a node (fewer ranks than slots)", profile("lammps-peptide-64"),
         slingshot, ["--ppn", "2"]),
    ]
if which == "seventh":
    instances = [
        ("geometric 1024 #105 on Dragonfly+ 4x4x4x8 (renumbered)",
         permuted(seeded("geometric", 1024, 105)), plus, []),
        ("irregular 1024 #106 on dragonfly 4x8x4", seeded("irregular", 1024, 106), slingshot, []),
        ("geometric 960 #107 on SimGrid's 3,4;4,3;5,1;2", seeded("geometric", 960, 107), simgrid, []),
        ("geometric 1024 #108 on SimGrid's 4,2;1,1;8,1;4 (renumbered)",
         permuted(seeded("geometric", 1024, 108)), simgrid4, []),
        ("irregular 960 #109 on SimGrid's 3,4;4,3;5,1;2 (renumbered)",
         permuted(seeded("irregular", 960, 109)), simgrid, []),
        ("geometric 1024 #110 on dragonfly 4x8x4", seeded("geometric", 1024, 110), slingshot, []),
        ("irregular 1024 #111 on Dragonfly+ 4x4x4x8", seeded("irregular", 1024, 111), plus, []),
        ("stencil 8x8x16 on dragonfly 4x8x4 (renumbered)",
         permuted(graph("st8x8x16", "stencil", "--dims", "8x8x16")), slingshot, []),
        ("geometric 1024 #112 on Dragonfly+ 4x4x4x8", seeded("geometric", 1024, 112), plus, []),
    ]
if which == "eighth":
    instances = [
        ("geometric 1024 #113 on dragonfly 4x8x4 (renumbered)", permuted(seeded("geometric", 1024, 113)), slingshot, []),
        ("irregular 1024 #114 on SimGrid's 4,2;1,1;8,1;4 (renumbered)",
         permuted(seeded("irregular", 1024, 114)), simgrid4, []),
        ("geometric 960 #115 on SimGrid's 3,4;4,3;5,1;2 (renumbered)",
         permuted(seeded("geometric", 960, 115)), simgrid, []),
        ("irregular 1024 #116 on Dragonfly+ 4x4x4x8 (renumbered)", permuted(seeded("irregular", 1024, 116)), plus, []),
        ("geometric 1024 #117 on Dragonfly+ 4x4x4x8", seeded("geometric", 1024, 117), plus, []),
        ("irregular 960 #118 on SimGrid's 3,4;4,3;5,1;2", seeded("irregular", 960, 118), simgrid, []),
        ("geometric 1024 #119 on SimGrid's 4,2;1,1;8,1;4", seeded("geometric", 1024, 119), simgrid4, []),
        ("stencil 32x32 on Dragonfly+ 4x4x4x8 (renumbered)",
         permuted(graph("st32x32", "stencil", "--dims", "32x32")), plus, []),
        ("alltoall rows 16x64 on dragonfly 4x8x4 (renumbered)",
         permuted(graph("a2a16x64", "alltoall", "--grid", "16x64")), slingshot, []),
    ]
if which == "ninth":
    # A real application's all-to-alls inside sub-communicators: Quantum
    # ESPRESSO's FFTs in 4 k-point pools of 16 ranks (98 % of its bytes).
    qe = profile("qe-si-64-nk4")
    instances = [
        ("QE 64 (4 pools) on dragonfly 4x8x4, 1 a node (two groups)", qe, slingshot, ["--ppn", "1"]),
        ("QE 64 (4 pools) on dragonfly 4x8x4, 2 a node", qe, slingshot, ["--ppn", "2"]),
        ("QE 64 (4 pools) on dragonfly 4x8x4, 8 a node", qe, slingshot, ["--ppn", "8"]),
        ("QE 64 (4 pools) on Dragonfly+ 4x4x4x8, 1 a node (two groups)", qe, plus, ["--ppn", "1"]),
        ("QE 64 (4 pools) on Dragonfly+ 4x4x4x8, 4 a node", qe, plus, ["--ppn", "4"]),
        ("QE 64 (4 pools) on dragonfly 4x8x4, 2 a node (renumbered)", permuted(qe), slingshot, ["--ppn", "2"]),
    ]
instances = [i for i in instances if only in i[0]]
if mtkahypar.binary() is None:
    print("dragonfly: Mt-KaHyPar skipped: set MTKAHYPAR to its binary (../shared/peers/README.md)", file=sys.stderr)


def rankmap_map(g, m, extra, opts, tag):
    report = os.path.join(work, tag + ".json")
    start = time.perf_counter()
    bench.run("map", g, "-m", m, *extra, *opts, "-f", "csv", "-o", os.path.join(work, tag + ".csv"), "--json",
              report, "-q")
    seconds = time.perf_counter() - start
    with open(report) as f:
        r = dragonfly_figures(json.load(f))
    r["seconds"] = seconds
    return r


def best_of(runs):
    """A peer's best run per figure."""
    return {k: min(r[k] for r in runs) for k in FIGURES}


results = []
for index, (name, g, m, extra) in enumerate(instances):
    ppn = int(extra[extra.index("--ppn") + 1]) if "--ppn" in extra else None
    tag = f"{index:02d}-{os.path.basename(g)[:-4]}-{os.path.basename(m)[:-5]}"
    r = {"name": name, "graph": g, "machine": m, "extra": extra}
    for mapper, opts in {"block": ["--baseline", "block"], "rr": ["--baseline", "rr"],
                         "default": ["--preset", "default"]}.items():
        r[mapper] = rankmap_map(g, m, extra, opts, f"{tag}-{mapper}")
    try:
        mtk = mtkahypar.mtkahypar_best(rankmap, g, m, None, ppn, work)
    except subprocess.CalledProcessError as e:  # asked for more blocks than vertices, it may abort
        print(f"dragonfly: Mt-KaHyPar left out of {name}: {os.path.basename(e.cmd[0])} exited with {e.returncode}",
              file=sys.stderr)
        mtk = None
    r["Mt-KaHyPar"] = best_of(mtk["runs"]) if mtk else None
    scotch = scotch_gmap.scotch_best(rankmap, g, m, None, ppn, work, levels=("node",))
    r["Scotch"] = best_of(scotch["runs"])
    results.append(r)
    print(f"done: {name}", file=sys.stderr)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)

MAPPERS = ("block", "rr", "Scotch", "Mt-KaHyPar", "default")
for figure, title in [("hop_bytes", "minimal reading: hop-bytes"),
                      ("max_link_bytes", "minimal reading: the busiest link (bytes)"),
                      ("adaptive_max_link_bytes", "adaptive reading: the busiest link (bytes)"),
                      ("inter_group_bytes", "bytes between groups")]:
    print(f"\n### {title}\n")
    print("| instance | " + " | ".join(MAPPERS) + " | default / best of the others |")
    print("|---|" + "---|" * (len(MAPPERS) + 1))
    ratios, ahead, behind = [], 0, []
    for r in results:
        others = [r[p][figure] for p in MAPPERS[:-1] if r.get(p)]
        best = min(others)
        ratio = r["default"][figure] / best if best else 1.0
        ratios.append(max(ratio, 1e-9))
        ahead += ratio < 1
        if ratio > 1:
            behind.append(f"{r['name']} ({ratio:.3f})")
        cells = [f"{r[p][figure]:,}" if r.get(p) else "-" for p in MAPPERS]
        print(f"| {r['name']} | " + " | ".join(cells) + f" | {ratio:.3f} |")
    print(f"\ndefault ahead of every other on {ahead} of {len(results)}, geometric mean of default / best other "
          f"{geomean(ratios):.3f}; behind on: " + (", ".join(behind) or "none"))
