#!/usr/bin/env python3
"""Checks a .rmp profile against the traffic a test program is known to make.

Usage: check_profile.py PROFILE PROGRAM MPI
  PROGRAM: traffic | fortran | threads | partitioned  (tests/shim/*.c, *.f90)
  MPI:     openmpi | mpich

The profile is read here, not with rankmap's reader, and the collective
traffic is worked out by a second implementation of the models that
docs/profile-format.md documents (the shim's own is shim/models.c).
"""
import sys
from collections import defaultdict

BCAST_SHORT, BCAST_MIN_RANKS, ALLREDUCE_SHORT = 12288, 8, 2048


def read_profile(path):
    lines = open(path).read().split("\n")
    assert lines[0] == "rankmap-profile 1", lines[0]
    header, counts, ranks, rank = {}, defaultdict(lambda: [0, 0]), [], None
    for line in lines[1:]:
        if not line:
            continue
        words = line.split()
        if words[0] == "rank":
            rank = int(words[1])
            ranks.append(dict(zip(words[2::2], words[3::2])))
        elif words[0] in ("p2p", "coll", "rma"):
            counts[(rank, words[0], int(words[1]))] = [int(words[2]), int(words[3])]
        elif words[0] == "end":
            break
        elif rank is None:
            header[words[0]] = line.split(" ", 1)[1]
        else:
            raise SystemExit(f"unexpected line {line!r}")
    assert lines[-2] == "end" or lines[-1] == "end", "no 'end' line"
    return header, ranks, dict(counts)


class Expected:
    def __init__(self, p):
        self.p, self.counts = p, defaultdict(lambda: [0, 0])

    def add(self, src, kind, dst, nbytes, msgs=1):
        if dst is None or dst < 0:
            return
        c = self.counts[(src, kind, dst)]
        c[0] += nbytes
        c[1] += msgs

    # Collective models, over a group given as its world ranks.
    def bcast(self, group, root, nbytes):
        p = len(group)
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
                    children.append((vr + mask, range(vr + mask, min(vr + 2 * mask, p))))
                mask >>= 1
            if nbytes < BCAST_SHORT or p < BCAST_MIN_RANKS:
                for child, _ in children:
                    self.add(group[r], "coll", group[(child + root) % p], nbytes)
            else:
                for child, covered in children:
                    part = sum(chunk(j) for j in covered)
                    if part:
                        self.add(group[r], "coll", group[(child + root) % p], part)
                for s in range(p - 1):
                    if chunk((vr - s) % p):
                        self.add(group[r], "coll", group[(r + 1) % p], chunk((vr - s) % p))

    def reduce(self, group, root, nbytes):
        p = len(group)
        for r in range(p):
            vr = (r - root) % p
            if vr:
                parent = vr - (vr & -vr)
                self.add(group[r], "coll", group[(parent + root) % p], nbytes)

    def allreduce(self, group, nbytes):
        p = len(group)
        if p < 2:
            return
        if nbytes <= ALLREDUCE_SHORT:
            pof2 = 1 << (p.bit_length() - 1)
            rem = p - pof2
            for r in range(p):
                if r < 2 * rem and r % 2 == 0:
                    self.add(group[r], "coll", group[r + 1], nbytes)
                    continue
                new = r // 2 if r < 2 * rem else r - rem
                mask = 1
                while mask < pof2:
                    nd = new ^ mask
                    self.add(group[r], "coll", group[nd * 2 + 1 if nd < rem else nd + rem], nbytes)
                    mask <<= 1
                if r < 2 * rem:
                    self.add(group[r], "coll", group[r - 1], nbytes)
            return
        size = -(-nbytes // p)
        chunk = lambda j: max(0, min(nbytes, (j + 1) * size) - j * size)
        for r in range(p):
            for s in range(p - 1):
                for j in ((r - s - 1) % p, (r - s) % p):
                    if chunk(j):
                        self.add(group[r], "coll", group[(r + 1) % p], chunk(j))

    def ring(self, group, blocks, offset):
        p = len(group)
        for r in range(p):
            for s in range(p - 1):
                self.add(group[r], "coll", group[(r + 1) % p], blocks[(r - s - offset) % p])

    def barrier(self, group):
        p = len(group)
        for r in range(p):
            k = 1
            while k < p:
                self.add(group[r], "coll", group[(r + k) % p], 0)
                k <<= 1


def traffic(e, p, mpi):
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
        for dst in (left, right):
            e.add(r, "coll", dst, 6)
            e.add(r, "coll", dst, 5)
    e.barrier(world)  # the two barriers that order Rsend and Irsend after their receives
    e.barrier(world)
    for parity in (0, 1):
        half = sorted((x for x in world if x % 2 == parity), reverse=True)
        e.bcast(half, 0, 64)
        e.allreduce(half, 8)
    for upper in range(p // 2, p):
        e.add(0, "coll", upper, 24)
    e.bcast(world, 1, 800)
    e.bcast(world, 0, 200000)
    e.reduce(world, 2, 200)
    e.allreduce(world, 128)
    e.allreduce(world, 80008)
    for r in world:
        if r != 0:
            e.add(r, "coll", 0, 16)
        if r != 3:
            e.add(r, "coll", 3, 4 * (r + 1))
    for i in world:
        if i != 3:
            e.add(3, "coll", i, 12)
        if i != 1:
            e.add(1, "coll", i, 4 * (i + 1))
    e.ring(world, [4] * p, 0)
    e.ring(world, [i + 1 for i in world], 0)
    for r in world:
        for i in world:
            if i != r:
                e.add(r, "coll", i, 8)
                e.add(r, "coll", i, (r + i) % 3 + 1)
    e.ring(world, [12] * p, 1)
    e.ring(world, [4 * (i + 1) for i in world], 1)
    for nbytes in (16, 4):  # scan, exscan
        for r in world:
            mask = 1
            while r + mask < p:
                e.add(r, "coll", r + mask, nbytes)
                mask <<= 1
    e.barrier(world)
    e.barrier(world)
    e.allreduce(world, 32)


def fortran(e, p, mpi):
    assert p == 4, "the Fortran programs' counts are written for 4 ranks"
    world = list(range(p))
    for r in world:
        e.add(r, "p2p", (r + 1) % p, 80 + 12)  # Send 10 double, Isend 3 integer
        e.add(r, "p2p", (r + 1) % p, 0, 1)
    e.allreduce(world, 32)
    e.bcast(world, 0, 40)
    e.barrier(world)
    for r in world:
        if r != 1:
            e.add(r, "coll", 1, 8)  # Gatherv, linear to the root
        if r != 2:
            e.add(2, "coll", r, 8 * (r + 1))  # Scatterv from the root
        for j in world:
            if j != r:
                e.add(r, "coll", j, 4 * (j + 1))  # Alltoallw, pairwise
                e.add(r, "coll", j, 12)  # Alltoallv in place
    e.ring(world, [4 * (i + 2) for i in world], 0)  # Allgatherv
    e.ring(world, [8 * (i + 1) for i in world], 1)  # Reduce_scatter
    e.allreduce(world, 24)  # Iallreduce
    for r in world:
        e.add(r, "coll", (r - 1) % p, 8)  # Neighbor_alltoall: left, then right
        e.add(r, "coll", (r + 1) % p, 8)
        e.add(r, "rma", (r + 1) % p, 24)  # Put 3 doubles
        e.add(r, "rma", (r - 1) % p, 8)  # Get 2 integers


def threads(e, p, mpi):
    for r in range(p):
        e.add(r, "p2p", (r + 1) % p, 4 * 1000 * 8, 4 * 1000)


def partitioned(e, p, mpi):
    e.add(0, "p2p", 1, 2 * 4 * 100 * 4, 2)


def main():
    path, program, mpi = sys.argv[1:4]
    header, ranks, got = read_profile(path)
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
    if problems:
        print(f"{path}: {len(problems)} difference(s)")
        print("\n".join(problems[:40]))
        sys.exit(1)
    print(f"{path}: {len(want)} (rank, kind, peer) counts as expected under {mpi}, {p} ranks")


if __name__ == "__main__":
    main()
