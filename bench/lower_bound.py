#!/usr/bin/env python3
"""Lower bounds on what any mapping of a graph can reach, to tell an
instance where no mapper can beat a peer from one where rankmap falls short.

hop-bytes, the ball bound: a rank's node holds at most c ranks (c the most
slots any node offers it), and the nodes within j hops of it number at most
|B_j| (the torus's ball of radius j, the subtree a tree climbs to in j
hops, or on a site's tree or a dragonfly the most allocated nodes any one
has within j hops by breadth-first search over its switches and cables;
never more than the nodes allocated). So at most c |B_j| - 1 of its
partners sit within j hops, and the bytes to the rest, at least its total
less its c |B_j| - 1 heaviest pairs, each cross more than j hops. A pair's
hops are the number of radii j >= 0 it lies beyond, so

    hop-bytes >= 1/2 sum over ranks r, radii j of
                 (bytes of r - its c |B_j| - 1 heaviest pairs).

Radius 0 alone is the old bound (every inter-node byte crosses a link); on
a tree every radius below 2 counts twice (up and down), and so on.

max link: a rank's bytes to ranks off its node leave through one of its
node's links (2 x dims on a torus, one on a tree); and all hop-bytes spread
over every link at best. Bound = the larger of the two.

Usage: bench/lower_bound.py GRAPH.mtx MACHINE.toml [--ppn N] [--nodes HOSTLIST|@FILE]
       bench/lower_bound.py GRAPH.mtx BLOCK.csv DIMS      (the old form: a whole torus)
Prints: hop_bytes_bound max_link_bound
"""
import collections
import itertools
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))


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


def torus_balls(dims, wrap, nodes):
    """|B_j| for j = 0, 1, ...: coordinates within j hops of one (capped at
    `nodes`), until the ball holds them all."""
    counts = [1]  # coordinates at each distance, one dimension at a time
    for n, w in zip(dims, wrap):
        # Worst case (most coordinates near) is the middle of a mesh line.
        line = collections.Counter(min(abs(a - n // 2), n - abs(a - n // 2)) if w else abs(a - n // 2)
                                   for a in range(n))
        merged = collections.Counter()
        for d1, c1 in enumerate(counts):
            for d2, c2 in line.items():
                merged[d1 + d2] += c1 * c2
        counts = [merged[d] for d in range(max(merged) + 1)]
    balls = list(itertools.accumulate(counts))
    return [min(b, nodes) for b in balls]


def tree_balls(dims, nodes):
    """A tree: nodes meet 2L hops apart under a level-L switch, so the ball
    of radius j is the subtree of level j // 2."""
    spans = [1, *itertools.accumulate(dims, lambda a, b: a * b)]
    return [min(spans[j // 2], nodes) for j in range(2 * len(dims) + 1)]


def bounds(sent, c, balls, links_out, nodes):
    """balls[j] = |B_j| for every radius j up to the diameter; links_out:
    the links each node sends on (its up link on a tree)."""
    pairs = collections.defaultdict(lambda: collections.defaultdict(int))
    out = collections.defaultdict(lambda: collections.defaultdict(int))
    for (i, j), b in sent.items():
        pairs[i][j] += b
        pairs[j][i] += b
        out[i][j] += b
    twice = off_node = 0
    for p in pairs.values():
        prefix = [0, *itertools.accumulate(sorted(p.values(), reverse=True))]
        for radius, ball in enumerate(balls):
            beyond = prefix[-1] - prefix[min(c * ball - 1, len(prefix) - 1)]
            twice += beyond
            off_node += beyond if radius == 0 else 0
    hop_bytes = twice // 2
    # Every byte leaving a node goes out on one of its links.
    per_rank = max((sum(o.values()) - sum(sorted(o.values(), reverse=True)[: c - 1])) for o in out.values()) if out else 0
    max_link = max(-(-per_rank // links_out), -(-(off_node // 2) // (nodes * links_out)))
    return hop_bytes, max_link


def torus_links_out(dims):
    """A torus node's outgoing links: two a dimension, one where it has 2 coordinates."""
    return sum(1 if n == 2 else 2 for n in dims if n > 1)


def machine_bounds(graph, machine_path, ppn=None, nodes=None):
    """The bounds of GRAPH on an allocation of a machine, as `rankmap map` gets it."""
    import scotch_gmap
    m = scotch_gmap.Machine(machine_path)
    hosts = list(m.hosts)
    if nodes:
        wanted = set(open(nodes[1:]).read().split()) if nodes.startswith("@") else set(scotch_gmap.expand_hostlist(nodes))
        hosts = [h for h in hosts if h in wanted]
    c = ppn or max(m.cores[h] for h in hosts)
    if m.site:  # a site's tree or a dragonfly: the most allocated nodes any one has within j hops
        at = [m.hosts.index(h) for h in hosts]
        top = max(m.distance[a][b] for a in at for b in at)
        balls, links_out = [max(sum(m.distance[a][b] <= j for b in at) for a in at) for j in range(top + 1)], 1
    elif m.tree:
        balls, links_out = tree_balls(m.dims, len(hosts)), 1
    else:
        balls, links_out = torus_balls(m.dims, m.wrap, len(hosts)), torus_links_out(m.dims)
    return bounds(read_mtx(graph), c, balls, links_out, len(hosts))


def capacity(block_csv):
    per_node = collections.Counter()
    with open(block_csv) as f:
        next(f)
        for line in f:
            per_node[line.split(",")[1]] += 1
    return max(per_node.values())


def main():
    if len(sys.argv) >= 4 and sys.argv[2].endswith(".csv"):  # the old form: a whole torus
        dims = [int(x) for x in sys.argv[3].split("x")]
        nodes = math.prod(dims)
        balls = torus_balls(dims, [True] * len(dims), nodes)
        hb, ml = bounds(read_mtx(sys.argv[1]), capacity(sys.argv[2]), balls, torus_links_out(dims), nodes)
    else:
        args = sys.argv[3:]
        ppn = int(args[args.index("--ppn") + 1]) if "--ppn" in args else None
        nodes = args[args.index("--nodes") + 1] if "--nodes" in args else None
        hb, ml = machine_bounds(sys.argv[1], sys.argv[2], ppn, nodes)
    print(hb, ml)


if __name__ == "__main__":
    main()
