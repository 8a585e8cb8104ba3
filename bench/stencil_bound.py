#!/usr/bin/env python3
"""Inter-node bytes of a 27-point stencil (one byte each way per neighbour
pair, no wrap) cut into blocks of c ranks, one block a node (issue 34's
Fugaku run: 192x184x216 in blocks of 48).

Two figures, worked out apart from rankmap:
- boxes: the least over box shapes a x b x c that tile the grid. A box of V
  cells in a 27-point stencil keeps prod(3 a_i - 2) - V ordered neighbour
  pairs inside, so the grid's inter-node bytes are its ordered pairs less
  the boxes'.
- proven: a bound for any blocks of c ranks. Each of the stencil's 13
  directions v cuts the grid into lines; a line that meets k blocks has at
  least k - 1 cut edges, so the cut is at least (sum over blocks of the
  lines meeting it) - (lines of the grid). For three linearly independent
  directions the discrete Loomis-Whitney inequality gives
  |P1| |P2| |P3| >= c^2 for a block's projections; the 13 directions hold
  four disjoint independent triples (the axes; (1,1,1), (1,1,-1),
  (1,-1,1); (1,-1,0), (0,1,-1), (-1,1,1); (1,1,0), (0,1,1), (1,0,1)), and
  the last one, (1,0,-1), meets every block at least once.
Every inter-node byte crosses at least one link: both are lower bounds on
hop-bytes for the boxes and for any blocks respectively.

Usage: bench/stencil_bound.py X Y Z C   (e.g. 192 184 216 48)
"""
import itertools
import sys

X, Y, Z, C = (int(a) for a in sys.argv[1:5])
n = X * Y * Z
assert n % C == 0, "the blocks must tile the ranks"
blocks = n // C


def ordered_pairs(dims):  # ordered neighbour pairs (u != v) inside a box
    p = 1
    for d in dims:
        p *= 3 * d - 2
    size = 1
    for d in dims:
        size *= d
    return p - size


grid_pairs = ordered_pairs((X, Y, Z))
best = None
for a, b in itertools.product(range(1, C + 1), repeat=2):
    if C % (a * b) or X % a or Y % b:
        continue
    c = C // (a * b)
    if Z % c:
        continue
    inter = grid_pairs - blocks * ordered_pairs((a, b, c))
    if best is None or inter < best[0]:
        best = (inter, (a, b, c))


def least_triple_sum(c):  # least p + q + r of positive integers with p q r >= c^2
    target, least = c * c, None
    for p in range(1, c + 1):
        for q in range(p, c + 1):
            r = -(-target // (p * q))
            if r >= q and (least is None or p + q + r < least):
                least = p + q + r
    return least


triples = [((1, 0, 0), (0, 1, 0), (0, 0, 1)), ((1, 1, 1), (1, 1, -1), (1, -1, 1)),
           ((1, -1, 0), (0, 1, -1), (-1, 1, 1)), ((1, 1, 0), (0, 1, 1), (1, 0, 1))]


def det(a, b, c):
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0]))


directions = {v for t in triples for v in t} | {(1, 0, -1)}
assert all(det(*t) != 0 for t in triples) and len(directions) == 13
lines = 13 * n - grid_pairs // 2  # a line of direction v: cells less v-edges
per_block = 4 * least_triple_sum(C) + 1
proven = max(0, 2 * (blocks * per_block - lines))
print(f"stencil {X}x{Y}x{Z} 27-point, blocks of {C}: {grid_pairs} ordered neighbour pairs")
print(f"boxes: least inter-node bytes {best[0]} with {best[1][0]}x{best[1][1]}x{best[1][2]} boxes")
print(f"proven for any blocks: inter-node bytes >= {proven} ({per_block} lines a block, {lines} lines)")
