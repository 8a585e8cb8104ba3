#!/usr/bin/env python3
"""Checks a .rmp profile against the traffic a test program is known to make.

Usage: check_profile.py PROFILE PROGRAM MPI
  PROGRAM: traffic | fortran | threads | partitioned  (tests/shim/*.c, *.f90)
  MPI:     openmpi | mpich

The profile is read here, not with rankmap's reader, and the collective
traffic is worked out by a second implementation of the models that
docs/profile-format.md documents (the shim's own is shim/models.c), with
their rounds: each collective call is recorded under its algorithm and the
calling rank's communicator slot (the order of first use), and each send
under its round, as the profile's call records must show.
"""
import sys
from collections import defaultdict

BCAST_SHORT, BCAST_MIN_RANKS, ALLREDUCE_SHORT = 12288, 8, 2048


def read_profile(path):
    lines = open(path).read().split("\n")
    assert lines[0] == "rankmap-profile 2", lines[0]
    header, counts, ranks, rank = {}, defaultdict(lambda: [0, 0]), [], None
    calls, group = {}, None
    for line in lines[1:]:
        if not line:
            continue
        words = line.split()
        if words[0] == "rank":
            rank = int(words[1])
            ranks.append(dict(zip(words[2::2], words[3::2])))
        elif words[0] in ("p2p", "coll", "rma"):
            counts[(rank, words[0], int(words[1]))] = [int(words[2]), int(words[3])]
        elif words[0] == "call":  # ALGORITHM SLOT CALLS FIRST
            group = (rank, int(words[2]), words[1])
            calls[group] = [int(words[3]), int(words[4]), {}]
        elif words[0] == "step":  # ROUND PEER BYTES MSGS
            calls[group][2][(int(words[1]), int(words[2]))] = [int(words[3]), int(words[4])]
        elif words[0] == "end":
            break
        elif rank is None:
            header[words[0]] = line.split(" ", 1)[1]
        else:
            raise SystemExit(f"unexpected line {line!r}")
    assert lines[-2] == "end" or lines[-1] == "end", "no 'end' line"
    return header, ranks, dict(counts), calls


class Expected:
    def __init__(self, p):
        self.p, self.counts = p, defaultdict(lambda: [0, 0])
        # (rank, slot, algorithm) -> [calls, first call number, {(round, peer): [bytes, msgs]}]
        self.calls, self.numbered, self.current = {}, defaultdict(int), None

    def call(self, group, slot, algorithm):
        """A collective call by every rank of `group` (world ranks) on the
        communicator each knows as `slot`: the sends that follow are its."""
        for r in group:
            key = (r, slot, algorithm)
            if key not in self.calls:
                self.calls[key] = [0, self.numbered[r], defaultdict(lambda: [0, 0])]
            self.calls[key][0] += 1
            self.numbered[r] += 1
        self.current = (slot, algorithm)

    def add(self, src, kind, dst, nbytes, msgs=1, rnd=None):
        if dst is None or dst < 0:
            return
        c = self.counts[(src, kind, dst)]
        c[0] += nbytes
        c[1] += msgs
        if kind == "coll":
            assert rnd is not None, "a collective send needs its round"
            step = self.calls[(src, *self.current)][2][(rnd, dst)]
            step[0] += nbytes
            step[1] += msgs

    # Collective models, over a group given as its world ranks.
    def bcast(self, group, slot, root, nbytes):
        p = len(group)
        tree = nbytes < BCAST_SHORT or p < BCAST_MIN_RANKS
        self.call(group, slot, "bcast_binomial" if tree else "bcast_scatter_ring")
        top = (p - 1).bit_length() - 1  # rounds: the root's farthest child first
        chunk = lambda j: max(0, min(nbytes, (j + 1) * -(-nbytes // p)) - j * -(-nbytes // p))
        for r in range(p):
            vr = (r - root) % p
            children = []  # (relative child, ranks it covers)
            mask = 1
            while mask < p and not vr & mask:
                mask <<= 1
            mask >>= 1
            while mask > 0:
                if vr + mask < p:
                    children.append((vr + mask, range(vr + mask, min(vr + 2 * mask, p)), top - mask.bit_length() + 1))
                mask >>= 1
            if tree:
                for child, _, rnd in children:
                    self.add(group[r], "coll", group[(child + root) % p], nbytes, rnd=rnd)
            else:
                for child, covered, rnd in children:
                    part = sum(chunk(j) for j in covered)
                    if part:
                        self.add(group[r], "coll", group[(child + root) % p], part, rnd=rnd)
                for s in range(p - 1):
                    if chunk((vr - s) % p):
                        self.add(group[r], "coll", group[(r + 1) % p], chunk((vr - s) % p), rnd=top + 1 + s)

    def reduce(self, group, slot, root, nbytes):
        p = len(group)
        self.call(group, slot, "reduce_binomial")
        for r in range(p):
            vr = (r - root) % p
            if vr:
                parent = vr - (vr & -vr)
                self.add(group[r], "coll", group[(parent + root) % p], nbytes, rnd=(vr & -vr).bit_length() - 1)

    def allreduce(self, group, slot, nbytes):
        p = len(group)
        self.call(group, slot, "allreduce_rdb" if nbytes <= ALLREDUCE_SHORT else "allreduce_ring")
        if p < 2:
            return
        if nbytes <= ALLREDUCE_SHORT:  # rounds: 0 the pairing, 1 + k over 2^k, then the hand-back
            pof2 = 1 << (p.bit_length() - 1)
            rem = p - pof2
            for r in range(p):
                if r < 2 * rem and r % 2 == 0:
                    self.add(group[r], "coll", group[r + 1], nbytes, rnd=0)
                    continue
                new = r // 2 if r < 2 * rem else r - rem
                mask = 1
                while mask < pof2:
                    nd = new ^ mask
                    self.add(group[r], "coll", group[nd * 2 + 1 if nd < rem else nd + rem], nbytes, rnd=mask.bit_length())
                    mask <<= 1
                if r < 2 * rem:
                    self.add(group[r], "coll", group[r - 1], nbytes, rnd=pof2.bit_length())
            return
        size = -(-nbytes // p)
        chunk = lambda j: max(0, min(nbytes, (j + 1) * size) - j * size)
        for r in range(p):
            for s in range(p - 1):  # reduce-scatter in rounds 0..p-2, allgather in p-1..
                for j, rnd in (((r - s - 1) % p, s), ((r - s) % p, p - 1 + s)):
                    if chunk(j):
                        self.add(group[r], "coll", group[(r + 1) % p], chunk(j), rnd=rnd)

    def ring(self, group, slot, algorithm, blocks, offset):
        p = len(group)
        self.call(group, slot, algorithm)
        for r in range(p):
            for s in range(p - 1):
                self.add(group[r], "coll", group[(r + 1) % p], blocks[(r - s - offset) % p], rnd=s)

    def barrier(self, group, slot):
        """Open MPI 4.1's choice by size: recursive doubling (p < 4, 8 <= p
        < 64), linear (4 <= p < 8), a tree (256-511, 1024-4095), else
        dissemination. Empty messages."""
        p = len(group)
        if p < 4 or 8 <= p < 64:
            algorithm = "recursive_doubling"
        elif p < 8:
            algorithm = "linear"
        elif 256 <= p < 512 or 1024 <= p < 4096:
            algorithm = "tree"
        else:
            algorithm = "dissemination"
        self.call(group, slot, "barrier_" + algorithm)
        for r in range(p):
            if algorithm == "recursive_doubling":
                adj = 1 << (p.bit_length() - 1)  # the largest power of two <= p
                if r >= adj:
                    self.add(group[r], "coll", group[r - adj], 0, rnd=0)
                else:
                    for k in range(adj.bit_length() - 1):
                        self.add(group[r], "coll", group[r ^ (1 << k)], 0, rnd=1 + k)
                if r < p - adj:
                    self.add(group[r], "coll", group[r + adj], 0, rnd=adj.bit_length())
            elif algorithm == "linear":
                if r:
                    self.add(group[r], "coll", group[0], 0, rnd=0)
                else:
                    for i in range(1, p):
                        self.add(group[0], "coll", group[i], 0, rnd=1)
            elif algorithm == "tree":  # fan-in to the rank without the lowest set bit, fan-out back
                top = (p - 1).bit_length()
                if r:
                    low = (r & -r).bit_length() - 1
                    self.add(group[r], "coll", group[r - (1 << low)], 0, rnd=low)
                for k in range(top):
                    child = r + (1 << k)
                    if (r == 0 or (1 << k) < (r & -r)) and child < p:
                        self.add(group[r], "coll", group[child], 0, rnd=2 * top - 1 - k)
            else:
                k = 1
                while k < p:
                    self.add(group[r], "coll", group[(r + k) % p], 0, rnd=k.bit_length() - 1)
                    k <<= 1

    # Open MPI 4.1's fixed decision for Alltoall, as (ranks below, [(block
    # bytes below, algorithm)], algorithm past them); linear_sync and
    # two_proc count as linear.
    A2A = [(3, [(2, "pairwise"), (4, "linear"), (16, "pairwise"), (64, "linear"), (256, "pairwise"),
                (4096, "linear"), (32768, "pairwise"), (1048576, "linear")], "pairwise"),
           (8, [(1048576 // 2, "linear"), (1048576, "pairwise")], "linear"),
           (16, [], "linear"),
           (32, [(4, "linear"), (512, "bruck")], "linear"),
           (64, [(512, "bruck")], "linear"),
           (128, [(1024, "bruck"), (262144, "linear")], "pairwise"),
           (256, [(1024, "bruck"), (262144, "linear")], "pairwise"),
           (512, [(1024, "bruck"), (32768, "linear")], "pairwise"),
           (1024, [(512, "bruck"), (262144, "linear")], "pairwise"),
           (2048, [(512, "bruck")], "linear"),
           (4096, [(1024, "bruck")], "linear"),
           (None, [(2048, "bruck")], "linear")]

    def alltoall(self, group, slot, block):
        p = len(group)
        rule = next(r for r in self.A2A if r[0] is None or p < r[0])
        algorithm = next((a for below, a in rule[1] if block < below), rule[2])
        self.alltoall_as(group, slot, algorithm, lambda r, i: block)

    def alltoallv(self, group, slot, nbytes):
        """nbytes(r, i): what rank r sends rank i (group positions)."""
        p = len(group)
        pairwise = p < 4 or 64 <= p < 128 or 256 <= p < 1024
        self.alltoall_as(group, slot, "pairwise" if pairwise else "linear", nbytes)

    def alltoall_as(self, group, slot, algorithm, nbytes):
        p = len(group)
        self.call(group, slot, "alltoall_" + algorithm)
        for r in range(p):
            if algorithm == "linear":
                for i in range(p):
                    if i != r:
                        self.add(group[r], "coll", group[i], nbytes(r, i), rnd=0)
            elif algorithm == "pairwise":  # step s to r + s
                for s in range(1, p):
                    self.add(group[r], "coll", group[(r + s) % p], nbytes(r, (r + s) % p), rnd=s - 1)
            else:  # modified Bruck: round k to r + 2^k, the blocks with bit k set
                distance = 1
                while distance < p:
                    blocks = sum(1 for i in range(1, p) if i & distance)
                    self.add(group[r], "coll", group[(r + distance) % p], blocks * nbytes(r, 0),
                             rnd=distance.bit_length() - 1)
                    distance <<= 1

    def linear(self, group, slot, algorithm, sends):
        """One round: (src, dst, bytes) triples of world ranks."""
        self.call(group, slot, algorithm)
        for src, dst, nbytes in sends:
            self.add(src, "coll", dst, nbytes, rnd=0)


def traffic(e, p, mpi):
    """Communicator slots: 0 the world, 1 `half`, 2 `inter`, 3 `ring`, in
    the order of their first collective; calls in the program's order."""
    world = list(range(p))
    for r in world:
        right, left = (r + 1) % p, (r - 1) % p
        # 80+12+5+14 + 44+13+17+19 + 21+23 + 3*29 + 2*(31+33)
        e.add(r, "p2p", right, 463, 17)
        if mpi == "mpich":  # MPI 4: Send_c 53, Isendrecv 47
            e.add(r, "p2p", right, 100, 2)
        e.add(r, "p2p", r, 37)
        top = max(x for x in world if x % 2 == r % 2)
        if r != top:
            e.add(r, "p2p", top, 41)
        e.add(r, "p2p", r + p // 2 if r < p // 2 else r - p // 2, 43)
        for dst, nbytes in ((r + 1) % p, 16), ((r + 2) % p, 24), ((r + 3) % p, 8):
            e.add(r, "rma", dst, nbytes)
    e.barrier(world, 0)  # the two barriers that order Rsend and Irsend after their receives
    e.barrier(world, 0)
    for parity in (0, 1):
        half = sorted((x for x in world if x % 2 == parity), reverse=True)
        e.bcast(half, 1, 0, 64)
        e.allreduce(half, 1, 8)
        e.alltoall(half, 1, 1)  # 1 byte: pairwise on 2 ranks (p = 4), linear on 4
    e.linear(world, 2, "inter_linear", [(0, upper, 24) for upper in range(p // 2, p)])
    e.bcast(world, 0, 1, 800)
    e.bcast(world, 0, 0, 200000)
    e.reduce(world, 0, 2, 200)
    e.allreduce(world, 0, 128)
    e.allreduce(world, 0, 80008)
    e.linear(world, 0, "gather_linear", [(r, 0, 16) for r in world if r != 0])
    e.linear(world, 0, "gather_linear", [(r, 3, 4 * (r + 1)) for r in world if r != 3])
    e.linear(world, 0, "scatter_linear", [(3, i, 12) for i in world if i != 3])
    e.linear(world, 0, "scatter_linear", [(1, i, 4 * (i + 1)) for i in world if i != 1])
    e.ring(world, 0, "allgather_ring", [4] * p, 0)
    e.ring(world, 0, "allgather_ring", [i + 1 for i in world], 0)
    e.alltoall(world, 0, 8)
    e.alltoallv(world, 0, lambda r, i: (r + i) % 3 + 1)
    e.ring(world, 0, "reduce_scatter_ring", [12] * p, 1)
    e.ring(world, 0, "reduce_scatter_ring", [4 * (i + 1) for i in world], 1)
    for nbytes in (16, 4):  # scan, exscan: recursive doubling, round k over 2^k
        e.call(world, 0, "scan_rdb")
        for r in world:
            mask = 1
            while r + mask < p:
                e.add(r, "coll", r + mask, nbytes, rnd=mask.bit_length() - 1)
                mask <<= 1
    e.barrier(world, 0)
    e.barrier(world, 0)
    e.allreduce(world, 0, 32)
    for nbytes in (6, 5):  # Neighbor_alltoall, Neighbor_allgather on the periodic ring
        e.linear(world, 3, "neighbour", [(r, d, nbytes) for r in world for d in ((r - 1) % p, (r + 1) % p)])


def fortran(e, p, mpi):
    """Slots: 0 the world, 1 `ring`."""
    assert p == 4, "the Fortran programs' counts are written for 4 ranks"
    world = list(range(p))
    for r in world:
        e.add(r, "p2p", (r + 1) % p, 80 + 12)  # Send 10 double, Isend 3 integer
        e.add(r, "p2p", (r + 1) % p, 0, 1)
        e.add(r, "rma", (r + 1) % p, 24)  # Put 3 doubles
        e.add(r, "rma", (r - 1) % p, 8)  # Get 2 integers
    e.allreduce(world, 0, 32)
    e.bcast(world, 0, 0, 40)
    e.barrier(world, 0)
    e.linear(world, 0, "gather_linear", [(r, 1, 8) for r in world if r != 1])  # Gatherv, linear to the root
    e.linear(world, 0, "scatter_linear", [(2, r, 8 * (r + 1)) for r in world if r != 2])  # Scatterv from the root
    e.ring(world, 0, "allgather_ring", [4 * (i + 2) for i in world], 0)  # Allgatherv
    e.alltoallv(world, 0, lambda r, j: 4 * (j + 1))  # Alltoallw
    e.alltoallv(world, 0, lambda r, j: 12)  # Alltoallv in place
    e.ring(world, 0, "reduce_scatter_ring", [8 * (i + 1) for i in world], 1)  # Reduce_scatter
    e.allreduce(world, 0, 24)  # Iallreduce
    e.linear(world, 1, "neighbour", [(r, d, 8) for r in world for d in ((r - 1) % p, (r + 1) % p)])  # left, right


def threads(e, p, mpi):
    for r in range(p):
        e.add(r, "p2p", (r + 1) % p, 4 * 1000 * 8, 4 * 1000)


def partitioned(e, p, mpi):
    e.add(0, "p2p", 1, 2 * 4 * 100 * 4, 2)


def main():
    path, program, mpi = sys.argv[1:4]
    header, ranks, got, got_calls = read_profile(path)
    p = int(header["ranks"])
    e = Expected(p)
    {"traffic": traffic, "fortran": fortran, "threads": threads, "partitioned": partitioned}[program](e, p, mpi)
    want = {k: v for k, v in e.counts.items() if v != [0, 0]}
    problems = []
    if len(ranks) != p:
        problems.append(f"{len(ranks)} rank blocks for {p} ranks")
    library = header.get("mpi_library", "")
    if ("Open MPI" in library) != (mpi == "openmpi") or ("MPICH" in library) != (mpi == "mpich"):
        problems.append(f"mpi_library {library!r} is not {mpi}")
    if not 0 < float(header["p_mpi"]) <= 1 or header.get("incomplete_ranks") != "0":
        problems.append(f"p_mpi {header['p_mpi']}, incomplete_ranks {header.get('incomplete_ranks')}")
    for r, info in enumerate(ranks):
        if not info.get("host") or float(info["mpi_s"]) > float(info["wall_s"]):
            problems.append(f"rank {r}: {info}")
    for key in sorted(set(want) | set(got)):
        if want.get(key) != got.get(key):
            problems.append(f"rank {key[0]} {key[1]} to {key[2]}: expected {want.get(key)}, profile has {got.get(key)}")
    want_calls = {k: [n, first, {s: v for s, v in steps.items()}] for k, (n, first, steps) in e.calls.items()}
    for key in sorted(set(want_calls) | set(got_calls)):
        if want_calls.get(key) != got_calls.get(key):
            problems.append(f"rank {key[0]} slot {key[1]} {key[2]}: expected [calls, first, steps] "
                            f"{want_calls.get(key)}, profile has {got_calls.get(key)}")
    if problems:
        print(f"{path}: {len(problems)} difference(s)")
        print("\n".join(problems[:40]))
        sys.exit(1)
    print(f"{path}: {len(want)} (rank, kind, peer) counts and {len(want_calls)} call records as expected "
          f"under {mpi}, {p} ranks")


if __name__ == "__main__":
    main()
