"""Graph families the engine was never tuned on (issue 33), written by this
file, not by `rankmap gen`, as .mtx (coordinate integer general: bytes
rank i sends rank j):

  butterfly  Rabenseifner's allreduce: at stage s rank i exchanges
             M / 2^(s+1) bytes with i XOR 2^s (a reduce-scatter by
             recursive halving, then the allgather back).
  pencil     a 3D FFT on a ROWS x COLS process grid: an all-to-all inside
             each row (the first transpose) and inside each column (the
             second), each rank's N^3/P points split among its group.
  communities  a planted partition: groups of random sizes (8 to 64 ranks),
             each pair inside a group talking with probability 0.3, pairs of
             different groups with probability 0.002, bytes drawn from a
             log-uniform range; ranks in random order.

Each takes a seed where it draws; all are deterministic.
"""
import random


def write_mtx(path, n, sent, comment):
    entries = sorted((i, j, b) for (i, j), b in sent.items() if i != j and b > 0)
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate integer general\n")
        f.write(f"% {comment}\n")
        f.write(f"{n} {n} {len(entries)}\n")
        f.writelines(f"{i + 1} {j + 1} {b}\n" for i, j, b in entries)


def butterfly(path, ranks, message=1 << 24):
    sent = {}
    s = 0
    while (1 << s) < ranks:
        for i in range(ranks):
            j = i ^ (1 << s)
            if j < ranks:
                sent[(i, j)] = sent.get((i, j), 0) + 2 * (message >> (s + 1))  # there and back (allgather)
        s += 1
    write_mtx(path, ranks, sent, f"bench/families.py butterfly {ranks}")


def pencil(path, rows, cols, points=1 << 27):
    ranks = rows * cols
    per_rank = points // ranks * 16  # complex doubles
    sent = {}
    for i in range(ranks):
        r, c = divmod(i, cols)
        for k in range(cols):  # the row's transpose
            if k != c:
                sent[(i, r * cols + k)] = per_rank // cols
        for k in range(rows):  # the column's transpose
            if k != r:
                sent[(i, k * cols + c)] = per_rank // rows
    write_mtx(path, ranks, sent, f"bench/families.py pencil {rows}x{cols}")


def communities(path, ranks, seed):
    rng = random.Random(seed)
    order = list(range(ranks))
    rng.shuffle(order)
    groups, start = [], 0
    while start < ranks:
        size = min(rng.randint(8, 64), ranks - start)
        groups.append(order[start:start + size])
        start += size
    group_of = {v: g for g, members in enumerate(groups) for v in members}
    sent = {}

    def draw():
        return int(2 ** rng.uniform(10, 20))

    for members in groups:
        for a in members:
            for b in members:
                if a < b and rng.random() < 0.3:
                    sent[(a, b)] = draw()
                    sent[(b, a)] = draw()
    for _ in range(int(0.002 * ranks * ranks / 2)):
        a, b = rng.randrange(ranks), rng.randrange(ranks)
        if a != b and group_of[a] != group_of[b]:
            sent[(a, b)] = draw()
            sent[(b, a)] = draw()
    write_mtx(path, ranks, sent, f"bench/families.py communities {ranks} seed {seed}")
