#!/usr/bin/env python3
"""Whether two mappings put a profile's traffic at the same distances on a
torus: for every pair of ranks that exchange bytes, its hops under each
mapping (each dimension the shorter way round; 0 inside a node). Prints
how many pairs differ, and the bytes and the messages at each distance
under each when they do (a barrier's empty messages cost latency alone).
Two mappings that agree pair by pair differ only in which links and
cores carry the messages: the ones the engine's models cannot tell
apart (issue 55, twenty-sixth session: SMPI's last nanoseconds).

Usage: bench/smpi/same_distances.py PROFILE MACHINE.toml MAPPING_A MAPPING_B [--build DIR]
  PROFILE   a .rmp (its traffic through DIR's rankmap convert) or a csv graph (src,dst,bytes,msgs)
  MAPPING   rankmap's csv, a host per rank (one per line), or a scenario's .hosts
"""
import argparse
import subprocess
import sys
import tempfile
import tomllib
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from validate import expand_hostlist, nodes_of  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent


def pairs_of(profile, build):
    """{(a, b): [bytes, messages]} with a < b, both ways added."""
    path = Path(profile)
    with tempfile.TemporaryDirectory() as tmp:
        if path.suffix == ".rmp":
            csv = Path(tmp) / "traffic.csv"
            subprocess.run([build / "cli" / "rankmap", "convert", path, "-o", csv], check=True, capture_output=True)
            path = csv
        pairs = {}
        for line in path.read_text().splitlines():
            f = line.split(",")
            if len(f) < 3 or not f[0].strip().isdigit():
                continue  # the header, a comment
            a, b = int(f[0]), int(f[1])
            if a != b:
                both = pairs.setdefault((min(a, b), max(a, b)), [0, 0])
                both[0] += int(f[2])
                both[1] += int(f[3]) if len(f) > 3 else 0
    return pairs


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("profile")
    ap.add_argument("machine")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--build", type=Path, default=ROOT / "build")
    args = ap.parse_args()
    machine = tomllib.loads(Path(args.machine).read_text())
    net = machine["network"]
    if net.get("kind", "torus") != "torus":
        sys.exit(f"same_distances.py: {args.machine}: not a torus")
    dims, wrap = net["dims"], net.get("wrap", [True] * len(net["dims"]))
    index = {h: i for i, h in enumerate(h for g in machine["nodes"] for h in expand_hostlist(g["hosts"]))}

    def hops(x, y):
        total = 0
        for n, w in zip(dims, wrap):
            d = abs(x % n - y % n)
            total += min(d, n - d) if w else d
            x //= n
            y //= n
        return total

    nodes = [[index[h] for h in nodes_of(m)] for m in (args.a, args.b)]
    pairs = pairs_of(args.profile, args.build)
    differ = [p for p in pairs if hops(nodes[0][p[0]], nodes[0][p[1]]) != hops(nodes[1][p[0]], nodes[1][p[1]])]
    print(f"{len(pairs)} pairs exchange bytes; {len(differ)} at other hops under the two mappings")
    if differ:
        for name, n in zip((args.a, args.b), nodes):
            by_bytes, by_messages = Counter(), Counter()
            for (a, b), (bytes_, messages) in pairs.items():
                by_bytes[hops(n[a], n[b])] += bytes_
                by_messages[hops(n[a], n[b])] += messages
            print(f"{name}: bytes by hops {dict(sorted(by_bytes.items()))}, messages by hops "
                  f"{dict(sorted(by_messages.items()))}")


if __name__ == "__main__":
    main()
