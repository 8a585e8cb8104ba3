#!/usr/bin/env python3
"""Checks that a mini-app's profile shows its decomposition's pattern.

Usage: check_miniapp.py PROFILE halo3d PX PY PZ FACE ITERATIONS
       check_miniapp.py PROFILE wavefront PX PY LINE SWEEPS
       check_miniapp.py PROFILE fft2d PR PC BLOCK ITERATIONS
The expected point-to-point traffic is worked out from the process grid
(row-major ranks, last dimension fastest, as MPI_Cart_create numbers them).
For fft2d, the call records of its all-to-alls instead: each rank's row
(slot 1) and column (slot 2) communicators, after the world's barrier
(slot 0), under the algorithm Open MPI 4.1 picks (check_profile.py).
"""
import sys
from collections import defaultdict
from itertools import product

from check_profile import Expected, read_profile


def halo3d(px, py, pz, face, iterations):
    dims = (px, py, pz)
    rank = lambda c: (c[0] * py + c[1]) * pz + c[2]
    want = defaultdict(lambda: [0, 0])
    for c in product(range(px), range(py), range(pz)):
        for d in range(3):
            for step in (-1, 1):
                n = list(c)
                n[d] = (n[d] + step) % dims[d]
                w = want[(rank(c), "p2p", rank(n))]
                w[0] += face * 8 * iterations
                w[1] += iterations
    return want


def wavefront(px, py, line, sweeps):
    want = defaultdict(lambda: [0, 0])
    for i, j in product(range(px), range(py)):
        for ni, nj in ((i + 1, j), (i, j + 1)):
            if ni < px and nj < py:
                want[(i * py + j, "p2p", ni * py + nj)] = [line * 8 * sweeps, sweeps]
    return want


def fft2d(rows, cols, block, iterations):
    """The expected call records, {(rank, slot, algorithm): [calls, first, steps]}."""
    e = Expected(rows * cols)
    e.barrier(list(range(rows * cols)), 0)
    for _ in range(iterations):
        for r in range(rows):
            e.alltoall([r * cols + c for c in range(cols)], 1, block * 8)
        for c in range(cols):
            e.alltoall([r * cols + c for r in range(rows)], 2, block * 8)
    e.barrier(list(range(rows * cols)), 0)
    return {k: [n, first, dict(steps)] for k, (n, first, steps) in e.calls.items()}


def check_calls(path, numbers):
    _, _, _, got = read_profile(path)
    want = fft2d(*map(int, numbers))
    wrong = [k for k in sorted(set(want) | set(got)) if want.get(k) != got.get(k)]
    for k in wrong[:10]:
        print(f"rank {k[0]} slot {k[1]} {k[2]}: expected {want.get(k)}, profile has {got.get(k)}")
    if wrong:
        sys.exit(1)
    algorithms = sorted({k[2] for k in want})
    print(f"{path}: fft2d on {numbers[0]}x{numbers[1]}: all {len(want)} call records as expected ({', '.join(algorithms)})")


def main():
    path, app, *numbers = sys.argv[1:]
    if app == "fft2d":
        return check_calls(path, numbers)
    _, ranks, got, _ = read_profile(path)
    want = {"halo3d": halo3d, "wavefront": wavefront}[app](*map(int, numbers))
    got_p2p = {k: v for k, v in got.items() if k[1] == "p2p"}
    wrong = [(k, want.get(k), got_p2p.get(k)) for k in sorted(set(want) | set(got_p2p)) if want.get(k) != got_p2p.get(k)]
    if wrong:
        for k, w, g in wrong[:20]:
            print(f"rank {k[0]} to {k[2]}: expected {w}, profile has {g}")
        sys.exit(1)
    print(f"{path}: {app} on {'x'.join(numbers[:-2])}: all {len(want)} neighbour pairs as the decomposition says")


if __name__ == "__main__":
    main()
