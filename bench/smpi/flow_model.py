#!/usr/bin/env python3
"""A reference model of communication time: exchange phases as fair-shared
flows, collectives as sequential rounds. Written to find what the gain
model misses against SMPI (issue 13); slow, plain Python, a second
implementation to test a C++ one against later.

Point-to-point traffic (the profile's p2p and rma kinds) is K exchange
phases, K the median pair's message count. A pair with m messages sends
one of its mean size in each of the first min(m, K) phases, all at once
(past K, its bytes spread over the K). Past 16 distinct counts,
consecutive ones whose pairs fall by under 10 % are simulated once, as
their middle phase. Each message waits its latency
t_inj + t_ej + hops * t_hop (t_local on one node), then streams at a
max-min fair share of every link on its way: the sender node's injection
link, the network links of the machine's routing, the receiver node's
ejection link, each `link_gbps` each way. Shares are recomputed whenever a
message starts streaming or ends (progressive filling). A rank's phase ends
with the last message it receives, or sends when of the eager limit (SMPI's
65,536 bytes) or more.

Collectives, when the profile has call records (version 2), are replayed
round by round: the run is I periods (I the most frequent collective's
calls); in each, a rank spends its share of its phases, from when its
partners are ready too (a message waits for its sender, and from the eager
limit its sender for the receiver: the collectives leave ranks at different
times), then every
collective (algorithm and communicator slot) of at least I / 2 calls runs
once in the order of its first call, weighing calls / I. A round holds one
call's messages of all ranks at once, shared as in a phase; a message
moves once both its ends are ready, and a rank is ready again when its
last message of the round arrives (or, from the eager limit, leaves).
Ready times carry over; three periods are simulated and the rest
extrapolated from the last one's growth. Rarer collectives run apart, each
call from ranks that start together.

Without call records, collective traffic (the coll kind: the partners of
the MPI library's algorithms, e.g. recursive doubling) is a chain of rounds. Each message
waits for the one before, so a rank's collective time is the sum of its
received messages' latency plus size over the bandwidth. All ranks' rounds
run at once and share links, so it is no less than the busiest resource's
collective bytes over the bandwidth (what decides a large all-to-all).

One-way traffic without cycles (a wavefront) is instead a pipeline of K
stages with no compute (`pipeline_time`), an event simulation of every
rank's program: receive from upstream ranks in rank order, send
downstream in rank order; a message moves once its send and its receive
are posted and shares its route as above. It prints "pipeline before ...,
after ..." (rankmap eval's pipeline_model with --p-mpi 1).

A rank's time is the sum of its phase ends plus its collective time. The run's is
the slowest rank's (neighbours wait for each other, so the slowest paces
all), and the gain p_mpi * (T_before - T_after) / T_before.

Usage: flow_model.py PROFILE.rmp MACHINE.toml BEFORE.csv AFTER.csv [--p-mpi P] [--routing ORDER]
  (mappings as `rankmap map -f csv` writes them; needs build/cli/rankmap)
"""
import argparse
import bisect
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EAGER_LIMIT = 65536
# flow_model.cpp's phase grouping: distinct message counts simulated one by
# one, and past that how far a group's pairs may fall.
EXACT_PHASES = 16
PHASE_GROUP_DROP = 0.1


def read_graph(path):
    """(src, dst, bytes, msgs) of a CSV graph."""
    edges = []
    for line in Path(path).read_text().splitlines():
        if not line or line.startswith("#") or line.startswith("src"):
            continue
        s, d, b, k = line.split(",")[:4]
        edges.append((int(s), int(d), int(b), int(k)))
    return edges


def traffic(profile, kind, rankmap):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / f"{kind}.csv"
        subprocess.run([rankmap, "convert", profile, "--traffic", kind, "-o", out], check=True, capture_output=True)
        return read_graph(out)


class Machine:
    def __init__(self, path, routing=None):
        m = tomllib.loads(Path(path).read_text())
        net = m["network"]
        if routing:
            net["routing"] = routing
        self.dims = net["dims"]
        self.wrap = net.get("wrap", [True] * len(self.dims))
        self.t_inj, self.t_ej, self.t_hop = net["t_inj_ns"], net["t_ej_ns"], net["t_hop_ns"]
        self.t_local = net.get("t_local_ns", self.t_inj + self.t_ej)
        self.bw = net["link_gbps"] / 8  # bytes per ns
        text = net.get("routing", "".join(f"+{'XYZWVU'[d]}" for d in range(len(self.dims))) +
                       "".join(f"-{'XYZWVU'[d]}" for d in range(len(self.dims))))
        self.routing = [(+1 if text[i] == "+" else -1, "XYZWVU".index(text[i + 1])) for i in range(0, len(text), 2)]
        hosts = m["nodes"][0]["hosts"]
        self.prefix = hosts.split("[")[0]

    def coords(self, i):
        c = []
        for n in self.dims:
            c.append(i % n)
            i //= n
        return c

    def route(self, a, b):
        """Links from node index a to b: (coordinates, dim, sign) in routing order;
        the shorter way round a ring, half way round going +."""
        cur, cb = self.coords(a), self.coords(b)
        delta = []
        for d, n in enumerate(self.dims):
            dl = cb[d] - cur[d]
            if self.wrap[d]:
                dl %= n
                if n - dl < dl:
                    dl -= n
            delta.append(dl)
        links = []
        for sign, d in self.routing:
            while delta[d] * sign > 0:
                links.append((tuple(cur), d, sign))
                cur[d] = (cur[d] + sign) % self.dims[d]
                delta[d] -= sign
        return links

    def way(self, a, b):
        """A message's latency from node a to b and the resources it
        streams through (None inside a node: a loopback, no sharing)."""
        if a == b:
            return self.t_local, None
        path = self.route(a, b)
        return self.t_inj + self.t_ej + self.t_hop * len(path), [("inj", a), *path, ("ej", b)]


def node_of(mapping_csv, machine):
    lines = Path(mapping_csv).read_text().splitlines()[1:]
    return {int(l.split(",")[0]): int(l.split(",")[1][len(machine.prefix):]) for l in lines if l}


def clipped(edges):
    """The edges with each pair's count cut to K, the (upper) median pair's
    message count: a pair with more sends b / K bytes a phase."""
    counts = sorted(k for s, d, b, k in edges if s != d and k > 0)
    if not counts:
        return edges
    K = counts[len(counts) // 2]
    return [(s, d, b, min(k, K)) for s, d, b, k in edges]


def phase_total(machine, edges, nodes):
    """Each rank's time over all phases (ns): K phases, K the (upper) median
    pair's message count; phase j (from 1) holds every pair with j messages
    or more, a pair with more than K sends its bytes over all K, and past
    EXACT_PHASES counts phases are grouped (phase_group_ends)."""
    edges = clipped(edges)
    by_messages = sorted(k for s, d, b, k in edges if s != d and k > 0)
    total, done = {}, 0
    for count in phase_group_ends(sorted(set(by_messages)), by_messages):
        middle = done + (count - done + 1) // 2  # the group's phases done + 1 to count, as their middle one
        ends = phase_end(machine, [e for e in edges if e[3] >= middle], nodes)
        for r, t in ends.items():
            total[r] = total.get(r, 0.0) + (count - done) * t
        done = count
    return total


def phase_group_ends(counts, by_messages):
    """The last phase of each group of phases simulated once: each distinct
    count its own up to EXACT_PHASES counts; past that, consecutive counts
    whose pairs fall by under PHASE_GROUP_DROP from the group's first."""
    if len(counts) <= EXACT_PHASES:
        return counts
    def pairs_with(at_least):
        return len(by_messages) - bisect.bisect_left(by_messages, at_least)
    ends, i = [], 0
    while i < len(counts):
        first, last = pairs_with(counts[i]), i
        while last + 1 < len(counts) and pairs_with(counts[last + 1]) >= (1 - PHASE_GROUP_DROP) * first:
            last += 1
        ends.append(counts[last])
        i = last + 1
    return ends


def phase_end(machine, edges, nodes):
    """Each rank's end of a phase holding `edges` (ns)."""
    flows = [(s, d, b / k, 0.0) for s, d, b, k in edges if s != d and k != 0]
    done = {}
    for (s, d, size, _), end in zip(flows, flow_ends(machine, flows, nodes)):
        done[d] = max(done.get(d, 0.0), end)
        if size >= EAGER_LIMIT:
            done[s] = max(done.get(s, 0.0), end)
    return done


def flow_ends(machine, messages, nodes):
    """When each message (sender, receiver, bytes, ready time) ends (ns): it
    waits its latency from the ready time, then streams at a max-min fair
    share of its route."""
    bw = machine.bw
    flows = []  # [sender, receiver, bytes, start, links]
    for s, d, size, ready in messages:
        latency, links = machine.way(nodes[s], nodes[d])
        flows.append([s, d, size, ready + latency, links])
    end = [None] * len(flows)
    left = [f[2] for f in flows]
    for i, f in enumerate(flows):
        if f[4] is None or bw <= 0 or f[2] <= 0:
            end[i] = f[3] + (f[2] / bw if bw > 0 else 0)
    t = 0.0
    while True:
        live = [i for i, f in enumerate(flows) if end[i] is None and f[3] <= t + 1e-9]
        waiting = [f[3] for i, f in enumerate(flows) if end[i] is None and f[3] > t + 1e-9]
        if not live and not waiting:
            break
        rate = fair_shares({i: flows[i][4] for i in live}, bw)
        step = min([left[i] / rate[i] for i in live] + [w - t for w in waiting])
        t += step
        for i in live:
            left[i] -= rate[i] * step
            if left[i] <= 1e-6 * flows[i][2]:
                end[i] = t
    return end


def fair_shares(routes, bw):
    """{flow: rate} for streaming flows {flow: its links}, every link `bw`:
    progressive filling, the tightest link fixes its flows' rates. Each
    link's count of unfixed flows is kept, not recounted at every step."""
    users, rate = {}, {}
    for i, links in routes.items():
        for link in links:
            users.setdefault(link, []).append(i)
    room = dict.fromkeys(users, bw)
    unfixed_on = {link: len(u) for link, u in users.items()}
    unfixed = set(routes)
    while unfixed:
        tight = min((link for link in users if unfixed_on[link] > 0), key=lambda link: room[link] / unfixed_on[link])
        share = room[tight] / unfixed_on[tight]
        for i in users[tight]:
            if i in unfixed:
                rate[i] = share
                unfixed.discard(i)
                for link in routes[i]:
                    room[link] -= share
                    unfixed_on[link] -= 1
    return rate


def is_pipeline(edges):
    """Whether every pair goes one way and the pairs close no cycle."""
    pairs = {(s, d) for s, d, b, k in edges if s != d and k > 0}
    if not pairs or any((d, s) in pairs for s, d in pairs):
        return False
    downstream = {}
    for s, d in pairs:
        downstream.setdefault(s, []).append(d)
    state = {}  # 1 on the path, 2 done

    def acyclic(r):
        state[r] = 1
        for d in downstream.get(r, []):
            if state.get(d) == 1 or (d not in state and not acyclic(d)):
                return False
        state[r] = 2
        return True
    sys.setrecursionlimit(100000)
    return all(r in state or acyclic(r) for r in list(downstream))


def pipeline_time(machine, edges, nodes):
    """One-way traffic's run of K stages with no compute (ns), as an event
    simulation of each rank's program: in every stage it receives from its
    upstream ranks in rank order, then sends downstream in rank order (a
    send from the eager limit waits for its receiver). A message moves once
    its send and its receive are both posted: its latency, then its bytes
    (one message's: the pair's over its count) at a fair share of its route,
    inside a node alone at the link rate."""
    pairs = [(s, d, b / k) for s, d, b, k in edges if s != d and k > 0]
    counts = sorted(k for s, d, b, k in edges if s != d and k > 0)
    stages = counts[len(counts) // 2]
    ranks = sorted(nodes)
    up = {r: sorted((i for i, p in enumerate(pairs) if p[1] == r), key=lambda i: pairs[i][0]) for r in ranks}
    down = {r: sorted((i for i, p in enumerate(pairs) if p[0] == r), key=lambda i: pairs[i][1]) for r in ranks}
    stage, step, clock = dict.fromkeys(ranks, 0), dict.fromkeys(ranks, 0), dict.fromkeys(ranks, 0.0)
    sent = {i: [] for i in range(len(pairs))}  # sends posted, oldest first
    posted = {}  # a receive posted before its send: when
    moving = {}  # pair: [streams from (after its latency), bytes left, links or None inside a node]

    def start(i, at):
        s, d, size = pairs[i]
        latency, links = machine.way(nodes[s], nodes[d])
        moving[i] = [at + latency, size, links]

    def advance(r):
        while stage[r] < stages:
            if step[r] < len(up[r]):
                i = up[r][step[r]]
                if sent[i]:
                    start(i, max(clock[r], sent[i].pop(0)))
                else:
                    posted[i] = clock[r]
                return
            j = step[r] - len(up[r])
            if j == len(down[r]):
                stage[r], step[r] = stage[r] + 1, 0
                continue
            i = down[r][j]
            if i in posted:
                start(i, max(clock[r], posted.pop(i)))
            else:
                sent[i].append(clock[r])
            if pairs[i][2] >= EAGER_LIMIT:
                return  # until its receiver has it
            step[r] += 1

    for r in ranks:
        advance(r)
    bw, now = machine.bw, 0.0
    while moving:
        streaming = {i: m[2] for i, m in moving.items() if m[0] <= now + 1e-9 and m[2] is not None}
        rate = fair_shares(streaming, bw)
        ends = {i: (m[0] + m[1] / bw if m[2] is None else None) for i, m in moving.items()}
        nxt = min([e for e in ends.values() if e is not None] + [now + moving[i][1] / rate[i] for i in streaming] +
                  [m[0] for i, m in moving.items() if m[2] is not None and m[0] > now + 1e-9])
        for i in streaming:
            moving[i][1] -= rate[i] * (nxt - now)
        now = nxt
        done = sorted(i for i, m in moving.items()
                      if (ends[i] is not None and ends[i] <= now + 1e-9) or (i in streaming and m[1] <= 1e-9 * pairs[i][2]))
        for i in done:
            del moving[i]
            s, d, size = pairs[i]
            clock[d], step[d] = now, step[d] + 1
            advance(d)
            if size >= EAGER_LIMIT:
                clock[s], step[s] = now, step[s] + 1
                advance(s)
    return max(clock.values())


def collective_time(machine, edges, nodes):
    """Each rank's collective time (ns): its received messages one after
    another, and no less than the busiest resource's collective bytes
    (injection, network link or ejection) over the bandwidth."""
    total, load = {}, {}
    for s, d, b, k in edges:
        if s == d or k == 0:
            continue
        a, c = nodes[s], nodes[d]
        route = machine.route(a, c) if a != c else []
        latency = machine.t_local if a == c else machine.t_inj + machine.t_ej + machine.t_hop * len(route)
        total[d] = total.get(d, 0.0) + k * (latency + b / k / machine.bw)
        if a != c:
            for resource in [("inj", a), *route, ("ej", c)]:
                load[resource] = load.get(resource, 0) + b
    floor = max(load.values(), default=0) / machine.bw
    return {r: max(t, floor) for r, t in total.items()}


def read_calls(profile):
    """A version 2 profile's call records, {(algorithm, slot): [(rank, calls,
    first, [(round, peer, bytes, msgs)])]}, or None (version 1, or
    calls_complete 0)."""
    lines = Path(profile).read_text().splitlines()
    if lines[0] != "rankmap-profile 2":
        return None
    groups, rank, record = {}, None, None
    for line in lines:
        w = line.split()
        if not w:
            continue
        if w[0] == "rank":
            rank = int(w[1])
        elif w[0] == "calls_complete" and w[1] == "0":
            return None
        elif w[0] == "call":
            record = (rank, int(w[3]), int(w[4]), [])
            groups.setdefault((w[1], int(w[2])), []).append(record)
        elif w[0] == "step":
            record[3].append(tuple(map(int, w[1:5])))
    return groups


def median(values):
    return sorted(values)[len(values) // 2]


def rounds_time(machine, groups, p2p, ranks, nodes, edges):
    """The run's time (ns) with collectives replayed by rounds; p2p is each
    rank's phase total, edges the point-to-point pairs (s, d, bytes, msgs)."""
    pairs = [(s, d, b / k) for s, d, b, k in clipped(edges) if s != d and k != 0]  # one phase's message
    order = []  # (first call, key, calls, {round: [(sender, receiver, one call's bytes)]})
    for key, records in groups.items():
        rounds = {}
        for rank, calls, first, steps in records:
            for rnd, peer, nbytes, msgs in steps:
                if peer != rank and msgs:
                    rounds.setdefault(rnd, []).append((rank, peer, nbytes / calls))
        order.append((median([r[2] for r in records]), key, median([r[1] for r in records]), rounds))
    order.sort(key=lambda g: (g[0], g[1]))
    periods = max([1] + [g[2] for g in order])

    def one_call(rounds, ready):
        for rnd in sorted(rounds):
            messages = [(s, d, b, max(ready[s], ready[d])) for s, d, b in rounds[rnd]]
            after = dict(ready)
            for (s, d, b, _), end in zip(messages, flow_ends(machine, messages, nodes)):
                after[d] = max(after[d], end)
                if b >= EAGER_LIMIT:
                    after[s] = max(after[s], end)
            ready = after
        return ready

    apart = sum(calls * max(one_call(rounds, {r: 0.0 for r in ranks}).values())
                for _, _, calls, rounds in order if calls < periods / 2)
    ready = {r: 0.0 for r in ranks}
    last = growth = 0.0
    for _ in range(min(periods, 3)):
        start = dict(ready)
        for s, d, size in pairs:
            start[d] = max(start[d], ready[s])
            if size >= EAGER_LIMIT:
                start[s] = max(start[s], ready[d])
        ready = {r: start[r] + p2p.get(r, 0.0) / periods for r in ranks}
        for _, _, calls, rounds in order:
            if calls < periods / 2:
                continue
            before = ready
            ready = one_call(rounds, ready)
            weight = min(1.0, calls / periods)
            ready = {r: before[r] + weight * (ready[r] - before[r]) for r in ranks}
        end = max(ready.values())
        last, growth = end, end - last
    return last + (periods - min(periods, 3)) * growth + apart


def run_time(machine, p2p, coll, nodes, groups=None):
    """The slowest rank's communication time (ns)."""
    phases = phase_total(machine, p2p, nodes)
    ranks = set(nodes)
    if groups:
        return rounds_time(machine, groups, phases, ranks, nodes, p2p)
    chain = collective_time(machine, coll, nodes)
    return max(phases.get(r, 0.0) + chain.get(r, 0.0) for r in ranks)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("profile")
    ap.add_argument("machine")
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--p-mpi", type=float)
    ap.add_argument("--routing", help="override the machine's routing order, e.g. +X-X+Y-Y+Z-Z")
    ap.add_argument("--build", default=str(ROOT / "build"))
    a = ap.parse_args()
    rankmap = Path(a.build) / "cli" / "rankmap"
    machine = Machine(a.machine, a.routing)
    merged = {}
    for s, d, b, k in traffic(a.profile, "p2p", rankmap) + traffic(a.profile, "rma", rankmap):
        old = merged.get((s, d), (0, 0))
        merged[(s, d)] = (old[0] + b, old[1] + k)
    p2p = [(s, d, b, k) for (s, d), (b, k) in merged.items()]
    coll = traffic(a.profile, "coll", rankmap)
    groups = read_calls(a.profile)
    if is_pipeline(p2p):  # without compute: eval's with --p-mpi 1
        before = pipeline_time(machine, p2p, node_of(a.before, machine))
        after = pipeline_time(machine, p2p, node_of(a.after, machine))
        print(f"pipeline before {before / 1e3:.1f} us, after {after / 1e3:.1f} us")
        return
    before = run_time(machine, p2p, coll, node_of(a.before, machine), groups)
    after = run_time(machine, p2p, coll, node_of(a.after, machine), groups)
    print(f"before {before / 1e3:.1f} us, after {after / 1e3:.1f} us")
    if a.p_mpi is not None:
        print(f"predicted gain {100 * a.p_mpi * (before - after) / before:.2f} %")


if __name__ == "__main__":
    sys.exit(main())
