#!/usr/bin/env python3
"""rankmap alone on the instances of an earlier bench/peers.py run, scored
against that run's peers: a minute instead of an hour, for trying engine
settings. Hop-bytes and link loads do not depend on the machine's load, so
the peers' figures of the earlier run still hold; times are not compared.

Usage: bench/peers_again.py RANKMAP [RESULTS.json] [--preset P] [--tag T]
  RESULTS.json: default bench/out/peers/results.json
Writes bench/out/peers-again/T-*.{csv,json} and T.json ([name, hop-bytes /
best peer, max link / Scotch's best] per instance); prints the losses and
both geometric means.
"""
import json
import os
import subprocess
import sys

from instances import geomean

here = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]


def option(name, default):
    if name not in args:
        return default
    value = args[args.index(name) + 1]
    del args[args.index(name):args.index(name) + 2]
    return value


preset, tag = option("--preset", "default"), option("--tag", "again")
if not args:
    sys.exit(__doc__)
rankmap = args[0]
results = args[1] if len(args) > 1 else os.path.join(here, "out", "peers", "results.json")
out = os.path.join(here, "out", "peers-again")
os.makedirs(out, exist_ok=True)
try:
    with open(results) as f:
        earlier = json.load(f)
except (OSError, ValueError) as e:
    sys.exit(f"peers_again: {results}: {e} (run bench/peers.py first)")

rows = []
for index, r in enumerate(earlier):
    stem = os.path.join(out, f"{tag}-{index:02d}")
    subprocess.run([rankmap, "map", r["graph"], "-m", r["machine"], *r["extra"], "--preset", preset, "-f", "csv",
                    "-o", stem + ".csv", "--json", stem + ".json", "-q"], check=True, stdout=subprocess.DEVNULL)
    with open(stem + ".json") as f:
        ours = json.load(f)
    peers = [r[p] for p in ("Scotch", "Mt-KaHyPar", "KaHIP") if r.get(p) and "hop_bytes" in r[p]]
    best = min(p["hop_bytes"] for p in peers)
    link = (r.get("Scotch") or {}).get("max_link_bytes")
    rows.append([r["name"], ours["hop_bytes"] / best if best else 1.0,
                 ours["max_link_bytes"] / link if link else 1.0])
    print(f"{r['name']}: {rows[-1][1]:.4f} of the best peer's hop-bytes, "
          f"{rows[-1][2]:.3f} of Scotch's max link", file=sys.stderr)

with open(os.path.join(out, tag + ".json"), "w") as f:
    json.dump(rows, f, indent=1)



losses = [f"{name} ({h:.4f})" for name, h, _ in rows if h > 1.0]
print(f"{tag}: behind the best peer on {len(losses)} of {len(rows)}" + (": " + ", ".join(losses) if losses else ""))
print(f"{tag}: hop-bytes / best peer, geometric mean {geomean([h for _, h, _ in rows]):.4f}; "
      f"max link / Scotch's best {geomean([m for _, _, m in rows]):.4f}")
