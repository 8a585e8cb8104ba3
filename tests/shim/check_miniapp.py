#!/usr/bin/env python3
"""Checks that a mini-app's profile shows its decomposition's pattern.

Usage: check_miniapp.py PROFILE halo3d PX PY PZ FACE ITERATIONS
       check_miniapp.py PROFILE wavefront PX PY LINE SWEEPS
The expected point-to-point traffic is worked out from the process grid
(row-major ranks, last dimension fastest, as MPI_Cart_create numbers them).
"""
import sys
from collections import defaultdict
from itertools import product

from check_profile import read_profile


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


def main():
    path, app, *numbers = sys.argv[1:]
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
