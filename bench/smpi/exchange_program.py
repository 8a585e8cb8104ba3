#!/usr/bin/env python3
"""Iterated exchanges as each rank's program, not as phases in lockstep: a
reading beside flow_model.py's, to find what the lockstep phases miss
against SMPI (issue 55, sixteenth session).

Every iteration a rank computes COMPUTE_US, posts all its receives and
sends at once, and waits for its receives (a send under SMPI's 65,536-byte
eager limit leaves at once; this reading holds no larger ones). A message
moves once both its ranks have posted that iteration: its latency
t_inj + t_ej + hops * t_hop (t_local inside a node), then its bytes at a
max-min fair share of its route (flow_model.py's links, recomputed at every
start and end). A rank's next iteration starts when its last receive ends,
plus COMPUTE_US. So ranks drift apart as they do in SMPI, and a link's
peak is spread over time; flow_model.py and the C++ flow model start every
message of a phase together. Prints the last rank's end (no barrier).

Tori only (flow_model.Machine). Slow: plain Python, one fair share a step.

Usage: exchange_program.py GRAPH MACHINE.toml MAPPING ITERATIONS COMPUTE_US [--build DIR]
  GRAPH    a profile (.rmp: its point-to-point traffic, through DIR's
           rankmap convert) or a graph as csv (src,dst,bytes,msgs)
  MAPPING  rankmap's csv, or a host per rank (one per line)
  --build  the build with cli/rankmap (default: ./build of the source)
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import flow_model as fm  # noqa: E402


def run_ns(machine, edges, nodes, iterations, compute_ns):
    """The last rank's end of its last iteration (ns), from time 0."""
    pairs = [(s, d, b / k) for s, d, b, k in edges if s != d and k > 0]
    if any(size >= fm.EAGER_LIMIT for _, _, size in pairs):
        sys.exit("exchange_program.py: a message of the eager limit or more (this reading has no rendezvous)")
    ranks = sorted(nodes)
    touching = {r: [] for r in ranks}
    receives = dict.fromkeys(ranks, 0)
    for i, (s, d, _) in enumerate(pairs):
        touching[s].append(i)
        touching[d].append(i)
        receives[d] += 1
    posted = {r: [None] * iterations for r in ranks}  # when a rank posts an iteration
    waiting = {r: [receives[r]] * iterations for r in ranks}  # receives not yet ended
    finished = dict.fromkeys(ranks, 0.0)
    moving = {}  # (pair, iteration): [streams from, bytes left, links or None inside a node]

    def post(r, k, at):
        posted[r][k] = at
        if receives[r] == 0:  # nothing to wait for
            finished[r] = at
            if k + 1 < iterations:
                post(r, k + 1, at + compute_ns)
        for i in touching[r]:
            s, d, size = pairs[i]
            if posted[s][k] is None or posted[d][k] is None or (i, k) in moving:
                continue
            latency, links = machine.way(nodes[s], nodes[d])
            moving[(i, k)] = [max(posted[s][k], posted[d][k]) + latency, size, links]

    for r in ranks:
        post(r, 0, compute_ns)
    bw, now = machine.bw, 0.0
    while moving:
        streaming = {m: v[2] for m, v in moving.items() if v[0] <= now + 1e-9 and v[2] is not None}
        rate = fm.fair_shares(streaming, bw)
        now_next = min([now + moving[m][1] / rate[m] for m in streaming] +
                       [v[0] for v in moving.values() if v[0] > now + 1e-9] +
                       [v[0] + v[1] / bw for v in moving.values() if v[2] is None])
        for m in streaming:
            moving[m][1] -= rate[m] * (now_next - now)
        now = now_next
        ended = sorted(m for m, v in moving.items()
                       if (v[2] is None and v[0] + v[1] / bw <= now + 1e-9)
                       or (m in streaming and v[1] <= 1e-9 * pairs[m[0]][2]))
        for i, k in ended:
            del moving[(i, k)]
            d = pairs[i][1]
            waiting[d][k] -= 1
            if waiting[d][k] == 0:
                finished[d] = now
                if k + 1 < iterations:
                    post(d, k + 1, now + compute_ns)
    return max(finished.values())


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    for name in ("graph", "machine", "mapping"):
        ap.add_argument(name)
    ap.add_argument("iterations", type=int)
    ap.add_argument("compute_us", type=float)
    ap.add_argument("--build", type=Path, default=fm.ROOT / "build")
    a = ap.parse_args()
    machine, mapping = fm.Machine(a.machine), a.mapping
    if a.graph.endswith(".csv"):
        p2p = fm.read_graph(a.graph)
    else:
        p2p = fm.traffic(a.graph, "p2p", str(a.build / "cli" / "rankmap"))
    if mapping.endswith(".csv"):
        nodes = fm.node_of(mapping, machine)
    else:
        hosts = Path(mapping).read_text().split()
        nodes = {r: int(h[len(machine.prefix):]) for r, h in enumerate(hosts)}
    t = run_ns(machine, fm.clipped(p2p), nodes, a.iterations, a.compute_us * 1000)
    print(f"{Path(mapping).name} {a.iterations} iterations, {a.compute_us:g} us compute: {t / 1000:.3f} us")


if __name__ == "__main__":
    main()
