#!/usr/bin/env python3
"""The least max link any known mapping reaches per instance, against
Scotch's best, on the geometric mean: over every run of every peer and
rankmap's columns in a bench/peers.py results file, and every
bench/peers_again.py output beside it (bench/out/peers-again/T.json, one
per setting tried). Printed twice: among the mappings whose hop-bytes are
at most the best peer's, and among all of them (issue 33: what max link
the hop-bytes target leaves reachable).

Usage: bench/best_link.py [RESULTS.json] [AGAIN.json ...]
  default: bench/out/peers/results.json and every T.json of
  bench/out/peers-again/ whose rows match it
"""
import glob
import json
import os
import sys

from instances import geomean

here = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
results = args[0] if args else os.path.join(here, "out", "peers", "results.json")
try:
    with open(results) as f:
        runs = json.load(f)
except (OSError, ValueError) as e:
    sys.exit(f"best_link: {results}: {e} (run bench/peers.py first)")
names = [r["name"] for r in runs]
settings = []
for path in args[1:] or sorted(glob.glob(os.path.join(here, "out", "peers-again", "*.json"))):
    try:
        with open(path) as f:
            rows = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"best_link: {path}: {e}")
    # Only a T.json ([name, hop-bytes / best peer, max link / Scotch's]) of these instances.
    if isinstance(rows, list) and [row[0] for row in rows if isinstance(row, list)] == names:
        settings.append(rows)

within, anywhere = [], []
for i, r in enumerate(runs):
    scotch = r["Scotch"].get("max_link_bytes")
    if not scotch:
        continue
    best = min(r[p]["hop_bytes"] for p in ("Scotch", "Mt-KaHyPar", "KaHIP") if r.get(p) and "hop_bytes" in r[p])
    points = [(r[k]["hop_bytes"], r[k]["max_link_bytes"]) for k in ("default", "quality", "before") if k in r]
    for peer in ("Scotch", "Mt-KaHyPar", "KaHIP"):
        points += [(run["hop_bytes"], run["max_link_bytes"]) for run in (r.get(peer) or {}).get("runs") or []
                   if "hop_bytes" in run and "max_link_bytes" in run]
    points += [(rows[i][1] * best, rows[i][2] * scotch) for rows in settings]
    within.append(min(m for h, m in points if h <= best * (1 + 1e-12)) / scotch)
    anywhere.append(min(m for _, m in points) / scotch)



print(f"best_link: {len(within)} instances, {len(settings)} peers_again settings")
print(f"least max link / Scotch's best, within the best peer's hop-bytes: {geomean(within):.3f}")
print(f"least max link / Scotch's best, any hop-bytes: {geomean(anywhere):.3f}")
