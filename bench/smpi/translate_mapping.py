#!/usr/bin/env python3
"""A mapping moved by a translation of its torus: every rank's node shifted
by SHIFT along each dimension, wrapping round. Routes on the torus
(torus_platform.cpp's, dimension order) shift with the nodes, so the moved
mapping is the same mapping to the network; SMPI should time both alike.
Issue 55 used it to tell a mapping's real differences from the
simulator's: two mappings a few nanoseconds apart in SMPI, each timed
again under several translations (bench/RESULTS.md, twenty-sixth session).

Usage: bench/smpi/translate_mapping.py MACHINE.toml MAPPING SHIFT OUT
  MACHINE  a torus (every dimension shifted must wrap)
  MAPPING  rankmap's csv, or a host per rank (one per line)
  SHIFT    one step count a dimension, X first: 1,0,0
  OUT      a host per rank, for simulate_mapping.py (the slots inside a
           node are left to the hostfile's order, as for .mf files)
"""
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from validate import expand_hostlist, nodes_of  # noqa: E402


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    machine_path, mapping, shift_text, out = sys.argv[1:]
    machine = tomllib.loads(Path(machine_path).read_text())
    net = machine["network"]
    if net.get("kind", "torus") != "torus":
        sys.exit(f"translate_mapping.py: {machine_path}: not a torus")
    dims = net["dims"]
    wrap = net.get("wrap", [True] * len(dims))
    shift = [int(s) for s in shift_text.split(",")]
    if len(shift) != len(dims):
        sys.exit(f"translate_mapping.py: SHIFT has {len(shift)} steps, the torus {len(dims)} dimensions")
    if any(s % n and not w for s, n, w in zip(shift, dims, wrap)):
        sys.exit(f"translate_mapping.py: {machine_path}: a dimension shifted does not wrap (a mesh has no translations)")
    names = [h for group in machine["nodes"] for h in expand_hostlist(group["hosts"])]
    index = {h: i for i, h in enumerate(names)}

    def moved(host):
        if host not in index:
            sys.exit(f"translate_mapping.py: {mapping}: host '{host}' is not one of {machine_path}'s")
        i, j, stride = index[host], 0, 1
        for n, s in zip(dims, shift):  # X fastest, as the machine's hosts fill the torus
            j += ((i % n + s) % n) * stride
            i //= n
            stride *= n
        return names[j]

    Path(out).write_text("".join(moved(h) + "\n" for h in nodes_of(mapping)))


if __name__ == "__main__":
    main()
