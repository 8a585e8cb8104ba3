#!/usr/bin/env python3
"""Lower bounds on what any mapping of a graph can reach, to tell an
instance where no mapper can beat a peer from one where rankmap falls short.

hop-bytes: every byte between ranks on different nodes crosses at least one
link, and a rank shares its node with at most c - 1 others (c = the most
ranks block puts on one node), so the bytes kept inside nodes are at most
half the sum, over ranks, of each rank's c - 1 heaviest pairs (both ways).
Bound = all bytes between distinct ranks - that.

max link: a rank's bytes to ranks off its node leave through one of its
node's 2 x dims outgoing links; and all hop-bytes spread over every link at
best. Bound = the larger of the two.

Usage: bench/lower_bound.py GRAPH.mtx BLOCK.csv DIMS   (DIMS: 4x4x4)
Prints: hop_bytes_bound max_link_bound
"""
import collections
import sys


def read_mtx(path):
    """Directed bytes {(src, dst): bytes} without self-traffic, 0-based."""
    sent = collections.defaultdict(int)
    with open(path) as f:
        header = f.readline().split()
        symmetric = header[4] == "symmetric"
        pattern = header[3] == "pattern"
        line = f.readline()
        while line.startswith("%") or not line.strip():
            line = f.readline()
        for line in f:
            if line.startswith("%") or not line.strip():
                continue
            fields = line.split()
            i, j = int(fields[0]) - 1, int(fields[1]) - 1
            b = 1 if pattern else round(float(fields[2]))
            if i == j:
                continue
            sent[(i, j)] += b
            if symmetric:
                sent[(j, i)] += b
    return sent


def capacity(block_csv):
    per_node = collections.Counter()
    with open(block_csv) as f:
        next(f)
        for line in f:
            per_node[line.split(",")[1]] += 1
    return max(per_node.values())


def bounds(sent, c, dims):
    pairs = collections.defaultdict(lambda: collections.defaultdict(int))
    out = collections.defaultdict(lambda: collections.defaultdict(int))
    for (i, j), b in sent.items():
        pairs[i][j] += b
        pairs[j][i] += b
        out[i][j] += b
    total = sum(sent.values())
    kept = sum(sum(sorted(p.values(), reverse=True)[: c - 1]) for p in pairs.values()) // 2 if c > 1 else 0
    hop_bytes = max(total - kept, 0)
    links_out = 2 * len(dims)
    nodes = 1
    for d in dims:
        nodes *= d
    per_rank = max((sum(o.values()) - sum(sorted(o.values(), reverse=True)[: c - 1])) for o in out.values()) if out else 0
    max_link = max(-(-per_rank // links_out), -(-hop_bytes // (nodes * links_out)))
    return hop_bytes, max_link


def main():
    graph, block_csv, dims = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split("x")]
    hb, ml = bounds(read_mtx(graph), capacity(block_csv), dims)
    print(hb, ml)


if __name__ == "__main__":
    main()
