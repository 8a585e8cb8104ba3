"""Instances for the quality benchmarks (quality.py, fattree.py): graphs made
by `rankmap gen` and real profiles converted to .mtx, each written once into
the benchmark's output directory."""
import os
import subprocess

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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
