#!/usr/bin/env python3
"""The least busiest node cable any mapping can reach when a graph's ranks
sit one a node, and when they sit two on every node used (issue 54: the
profiles at 2 ranks a node on the dragonflies, where the launcher's
round-robin spreads them one a node).

One a node, a node's cable carries its rank's whole traffic each way: the
bound is the busiest rank's. Two a node, a node of ranks a and b carries
each way their traffic less what they exchange; the least possible
busiest cable is a bottleneck perfect matching of the ranks, found by
bisection over the pairs' figures, each tried with a maximum-cardinality
matching (networkx: Debian's python3-networkx, not installed by
scripts/setup.sh, as no test needs it). A bound on node cables only: a mapping's busiest link
may be another link, higher.

Usage: bench/pair_cable_bound.py GRAPH.mtx
"""
import collections
import sys

import networkx as nx


def read_mtx(path):
    """(ranks, {(from, to): bytes}) of a Matrix Market graph, self-loops left out."""
    ranks, bytes_between = None, collections.Counter()
    with open(path) as f:
        for line in f:
            if line.startswith("%"):
                continue
            if ranks is None:
                ranks = int(line.split()[0])
                continue
            a, b, x = line.split()
            if a != b:
                bytes_between[(int(a) - 1, int(b) - 1)] += int(float(x))
    return ranks, bytes_between


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    n, w = read_mtx(sys.argv[1])
    out, into = collections.Counter(), collections.Counter()
    for (a, b), x in w.items():
        out[a] += x
        into[b] += x
    one = max(max(out[r], into[r]) for r in range(n))

    def pair(a, b):
        inside = w[(a, b)] + w[(b, a)]
        return max(out[a] + out[b] - inside, into[a] + into[b] - inside)

    figures = sorted({pair(a, b) for a in range(n) for b in range(a + 1, n)})

    def matched(limit):
        g = nx.Graph()
        g.add_nodes_from(range(n))
        g.add_edges_from((a, b) for a in range(n) for b in range(a + 1, n) if pair(a, b) <= limit)
        return 2 * len(nx.max_weight_matching(g, maxcardinality=True)) == n

    lo, hi = 0, len(figures) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if matched(figures[mid]) else (mid + 1, hi)
    two = figures[lo] if n % 2 == 0 and matched(figures[lo]) else None
    print(f"{sys.argv[1]}: {n} ranks; busiest node cable one a node >= {one}, "
          f"two on every node used >= {two if two is not None else 'none (odd ranks)'}")


if __name__ == "__main__":
    main()
