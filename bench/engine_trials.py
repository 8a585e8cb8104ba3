#!/usr/bin/env python3
"""Engine settings tried on instances of my own, not bench/'s (issue 33):
irregular 1024 seeds 101 and 102 with renumbered twins on 4^3, irregular
1536 seed 103 on 96 random nodes of 8^3, geometric 1024 seed 104, and
all-to-all rows 8x128 with its twin. Each is scored against Mt-KaHyPar's
best of six runs (bench/peers/mtkahypar.py, cached in OUT/mtk.json).

Usage: MTKAHYPAR=... bench/engine_trials.py RANKMAP CONFIG.toml [CONFIG.toml ...]
  (CONFIG: a `rankmap map --dump-config`, edited)
Prints, per instance and config, hop-bytes / Mt-KaHyPar's best and the
command's seconds, then the geometric means. Writes to bench/out/trials/.
"""
import json
import math
import os
import random
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "peers"))
import mtkahypar  # noqa: E402
from instances import machine  # noqa: E402

rankmap, configs = sys.argv[1], sys.argv[2:]
out = os.path.join(here, "out", "trials")
os.makedirs(out, exist_ok=True)
m444, m888 = machine("torus-4x4x4"), machine("torus-8x8x8")


def gen(name, *args):
    path = os.path.join(out, name + ".mtx")
    if not os.path.exists(path):
        subprocess.run([rankmap, "gen", *args, "-o", path, "-q"], check=True, stdout=subprocess.DEVNULL)
    return path


nodes96 = os.path.join(out, "nodes96.txt")
with open(nodes96, "w") as f:
    f.write("\n".join(random.Random(9).sample([f"n{i:03d}" for i in range(512)], 96)) + "\n")
instances = [
    ("irr101", gen("irr101", "irregular", "--ranks", "1024", "--seed", "101"), m444, []),
    ("irr101r", gen("irr101r", "irregular", "--ranks", "1024", "--seed", "101", "--renumber", "3"), m444, []),
    ("irr102", gen("irr102", "irregular", "--ranks", "1024", "--seed", "102"), m444, []),
    ("irr102r", gen("irr102r", "irregular", "--ranks", "1024", "--seed", "102", "--renumber", "3"), m444, []),
    ("irr103p", gen("irr103", "irregular", "--ranks", "1536", "--seed", "103"), m888, ["--nodes", "@" + nodes96]),
    ("geo104", gen("geo104", "geometric", "--ranks", "1024", "--seed", "104"), m444, []),
    ("a2a8x128", gen("a2a8x128", "alltoall", "--grid", "8x128"), m444, []),
    ("a2a8x128r", gen("a2a8x128r", "alltoall", "--grid", "8x128", "--renumber", "3"), m444, []),
]
cache = os.path.join(out, "mtk.json")
best = json.load(open(cache)) if os.path.exists(cache) else {}
for name, g, m, extra in instances:
    if name not in best:
        best[name] = mtkahypar.mtkahypar_best(rankmap, g, m, extra[1] if extra else None, None, out)["hop_bytes"]
        with open(cache, "w") as f:
            json.dump(best, f)
print("instance", *configs)
ratios = {c: [] for c in configs}
report = os.path.join(out, "report.json")
for name, g, m, extra in instances:
    row = []
    for c in configs:
        start = time.perf_counter()
        subprocess.run([rankmap, "map", g, "-m", m, *extra, "-C", c, "-o", os.path.join(out, "x.csv"), "-f", "csv",
                        "--json", report, "-q"], check=True, stdout=subprocess.DEVNULL)
        with open(report) as f:
            ratio = json.load(f)["hop_bytes"] / best[name]
        ratios[c].append(ratio)
        row.append(f"{ratio:.3f}/{time.perf_counter() - start:.1f}s")
    print(name, *row, flush=True)
print("geomean", *[f"{math.exp(sum(map(math.log, v)) / len(v)):.3f}" for v in ratios.values()])
