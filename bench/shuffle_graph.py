#!/usr/bin/env python3
"""A graph file as another tool might write it: the same graph, its edges
in a seeded random order (issue 55). By extension:
  .mtx, .csv     the data lines shuffled (after the banner, comments and
                 size line; after the '# ranks=' line and the header);
  .graph, .grf   each vertex line's neighbour list shuffled, every
                 neighbour kept with its weight (edge weights expected, as
                 `rankmap gen` writes them; .grf without labels).

Usage: bench/shuffle_graph.py IN OUT [SEED]   (seed 11 by default)
"""
import random
import sys


def header_lines(path, lines):
    """How many lines come before the edges (or the vertex lines)."""
    if path.endswith(".mtx"):
        n = 0
        while lines[n].startswith("%"):
            n += 1
        return n + 1  # the size line
    if path.endswith(".csv"):
        n = 0
        while lines[n].startswith("#"):
            n += 1
        return n + 1  # the column names
    if path.endswith(".graph"):
        n = 0
        while lines[n].startswith("%"):
            n += 1
        return n + 1
    if path.endswith(".grf"):
        return 3
    sys.exit(f"shuffle_graph: {path}: expected .mtx, .csv, .graph or .grf")


def main():
    src, dst = sys.argv[1], sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 11)
    with open(src) as f:
        lines = f.readlines()
    head = header_lines(src, lines)
    body = lines[head:]
    if src.endswith((".mtx", ".csv")):
        rng.shuffle(body)
    else:
        skip = 1 if src.endswith(".grf") else 0  # a .grf vertex line starts with its degree
        shuffled = []
        for line in body:
            t = line.split()
            pairs = [(t[k], t[k + 1]) for k in range(skip, len(t) - 1, 2)]
            rng.shuffle(pairs)
            shuffled.append(" ".join(t[:skip] + [x for p in pairs for x in p]) + "\n")
        body = shuffled
    with open(dst, "w") as f:
        f.writelines(lines[:head])
        f.writelines(body)


if __name__ == "__main__":
    main()
