"""Instances for the quality benchmarks (quality.py, fattree.py, peers.py):
graphs made by `rankmap gen`, real profiles converted to .mtx, their
renumbered twins and random partial allocations, each written once into
the benchmark's output directory."""
import math
import os
import random
import subprocess

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def machine(name):
    """bench/machines/NAME.toml, else data/machines/NAME.toml."""
    own = os.path.join(root, "bench", "machines", name + ".toml")
    return own if os.path.exists(own) else os.path.join(root, "data", "machines", name + ".toml")


def geomean(values):
    """The geometric mean of the ratios (nan for none): every script's summary."""
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


class Instances:
    def __init__(self, rankmap, out):
        self.rankmap, self.out = rankmap, out
        os.makedirs(out, exist_ok=True)

    def run(self, *args):
        subprocess.run([self.rankmap, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def graph(self, name, *gen_args):
        """`rankmap gen GEN_ARGS` as out/NAME.mtx."""
        path = os.path.join(self.out, name + ".mtx")
        if not os.path.exists(path):
            self.run("gen", *gen_args, "-o", path, "-q")
        return path

    def profile(self, name):
        """A real application's profile in data/profiles, as a graph (all traffic)."""
        path = os.path.join(self.out, name + ".mtx")
        if not os.path.exists(path):
            self.run("convert", os.path.join(root, "data/profiles", name + ".rmp"), "-o", path)
        return path

    def random_nodes(self, count, seed):
        """`count` random hosts of the 8x8x8 machine, as a --nodes @file."""
        path = os.path.join(self.out, f"nodes-{count}-{seed}.txt")
        hosts = random.Random(seed).sample([f"n{i:03d}" for i in range(512)], count)
        with open(path, "w") as f:
            f.write("\n".join(hosts) + "\n")
        return "@" + path

    def permuted(self, path):
        """The graph of a .mtx with its ranks renumbered by a seeded random permutation."""
        twin = path[:-4] + "-renumbered.mtx"
        if os.path.exists(twin):
            return twin
        with open(path) as f:
            lines = f.read().splitlines()
        body = [i for i, line in enumerate(lines) if not line.startswith("%")]
        n = int(lines[body[0]].split()[0])
        perm = list(range(n))
        random.Random(7).shuffle(perm)
        entries = sorted((perm[int(a) - 1] + 1, perm[int(b) - 1] + 1, *rest)
                         for a, b, *rest in (lines[i].split() for i in body[1:]))
        with open(twin, "w") as f:
            f.write("\n".join(lines[: body[0]]) + "\n% ranks renumbered by bench/instances.py (random.Random(7))\n")
            f.write(lines[body[0]] + "\n")
            f.write("".join(" ".join(map(str, e)) + "\n" for e in entries))
        return twin


# The dragonfly figures of a `rankmap map --json` report (dragonfly.py,
# dragonfly_rescore.py): hop-bytes and the busiest link under minimal
# routes, the busiest link under the adaptive reading, bytes between groups.
DRAGONFLY_FIGURES = ("hop_bytes", "max_link_bytes", "adaptive_max_link_bytes", "inter_group_bytes")


def dragonfly_figures(report):
    return {"hop_bytes": report["hop_bytes"], "max_link_bytes": report["max_link_bytes"],
            "adaptive_max_link_bytes": report["adaptive"]["max_link_bytes"],
            "inter_group_bytes": report["inter_group_bytes"]}
