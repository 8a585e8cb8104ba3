"""KaHIP's hierarchical process mapping as its users run it
(../shared/peers/README.md): `global_multisection` multisects the rank graph
along a hierarchy of equal fan-outs, lowest level first, each level with
the distance between two of its members, then maps the parts one to one.

Hierarchies of nodes, each node one processing element of n / k ranks
(KaHIP balances exactly; one element a slot, with a distance inside a node,
cut far worse, 0.73 of a 16x16 stencil's bytes against 0.47 on 64 nodes
of 4, and took 30x longer):
  - a switch, fat tree or VMs on hosts: the tree's fan-outs, a level L
    apart costing 10 x its 2L hops;
  - a torus or mesh (not a hierarchy): the allocated nodes in the order of
    their interleaved coordinate bits, split in halves again and again,
    each level's distance 10 x the mean hops between the node pairs it
    separates. Needs a power-of-two number of nodes.
Instances with unequal slots per node have no hierarchy and are skipped.

The binary comes from $KAHIP_GLOBAL_MULTISECTION (a path). It runs as its
users run it, `strong`, one seed. On random geometric graphs KaHIP takes
minutes (1,024 ranks: strong over 60 s, then eco 584 s, against 4 s on an
irregular graph of that size), so a run past SECONDS is stopped, strong then
eco, and an instance where both were stopped counts as KaHIP giving up
("timeout" in the results). Every mapping is scored by `rankmap eval`.
"""
import os
import subprocess
import time

from mtkahypar import write_metis  # the same METIS graph as Mt-KaHyPar's
from scotch_gmap import Instance, instance_tag

SEEDS = (1,)
SECONDS = 30
HOP_DISTANCE = 10  # distances are integers: a tenth of a hop is kept


def binary():
    path = os.environ.get("KAHIP_GLOBAL_MULTISECTION", "")
    return path if path and os.access(path, os.X_OK) else None


def version(path):
    out = subprocess.run([path, "--version"], capture_output=True, text=True)
    text = (out.stdout + out.stderr).strip()
    return text.splitlines()[0] if text else "unknown"


def morton_key(coord, dims):
    bits = max(d - 1 for d in dims).bit_length()
    key = 0
    for b in reversed(range(bits)):
        for c in coord:
            key = (key << 1) | ((c >> b) & 1)
    return key


def hierarchy(inst):
    """(node order: allocation positions, fan-outs above the node, distances
    of those levels), or None when the allocation is no such hierarchy."""
    m = inst.machine
    k = len(inst.hosts)
    coords = [inst.coord[h] for h in inst.hosts]
    if m.site:
        return None  # a site's tree: no levels of equal fan-out
    if m.tree:
        if k != m.size():
            return None  # a partial tree allocation is not one of equal fan-outs
        order = sorted(range(k), key=lambda i: m.index_of(coords[i]))
        return order, list(m.dims), [HOP_DISTANCE * 2 * (level + 1) for level in range(len(m.dims))]
    if k & (k - 1):
        return None
    order = sorted(range(k), key=lambda i: (morton_key(coords[i], m.dims), i))
    fanouts, distances = [], []
    size = 1
    while size < k:
        size *= 2
        total = pairs = 0
        for start in range(0, k, size):
            lo, hi = order[start:start + size // 2], order[start + size // 2:start + size]
            for a in lo:
                for b in hi:
                    total += m.hops(coords[a], coords[b])
                    pairs += 1
        fanouts.append(2)
        distances.append(max(1, round(HOP_DISTANCE * total / pairs)))
    return order, fanouts, distances


def kahip_best(rankmap, graph, machine, nodes=None, ppn=None, workdir=".", seeds=SEEDS):
    """{"hop_bytes", "max_link_bytes": best of the runs, "seconds": the
    slowest run, "runs": [...]}, or None when the binary is not set or the
    instance is no hierarchy KaHIP takes."""
    exe = binary()
    if exe is None:
        return None
    inst = Instance(rankmap, graph, machine, nodes, ppn, workdir)
    if len(set(inst.capacity)) != 1:
        return None
    shape = hierarchy(inst)
    if shape is None:
        return None
    order, fanouts, distances = shape
    tag = instance_tag(graph, machine, nodes)
    tag += f"-{ppn or 0}-kahip"
    g_path = os.path.join(workdir, tag + ".graph")
    write_metis(inst.adj, g_path)
    levels = ":".join(map(str, fanouts))
    cost = ":".join(map(str, distances))
    runs = []
    for seed in seeds:
        out = os.path.join(workdir, f"{tag}-{seed}.part")
        finished = False
        for preconfiguration in ("strong", "eco"):
            start = time.perf_counter()
            try:
                subprocess.run([exe, g_path, f"--hierarchy_parameter_string={levels}",
                                f"--distance_parameter_string={cost}", f"--preconfiguration={preconfiguration}",
                                "--imbalance=0", f"--seed={seed}", f"--output_filename={out}"],
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=SECONDS)
            except subprocess.TimeoutExpired:
                continue
            seconds = time.perf_counter() - start
            finished = True
            break
        if not finished:
            runs.append({"seed": seed, "timeout": 2 * SECONDS})
            continue
        with open(out) as f:
            pe = [int(line) for line in f if line.strip()]
        blocks = [order[p] for p in pe]  # element p is the p-th node of the hierarchy
        node_of = list(blocks)
        inst.repair(node_of)
        moved = sum(a != b for a, b in zip(blocks, node_of))
        mapping = out[:-5] + ".hosts"
        inst.write_hosts(node_of, mapping)
        scores = inst.score(mapping, "slurm", out[:-5] + ".json")
        runs.append({"seed": seed, "preconfiguration": preconfiguration, "seconds": seconds, "repaired": moved,
                     "mapping": mapping, "hierarchy": levels, "distances": cost,
                     "hop_bytes": scores["hop_bytes"], "max_link_bytes": scores["max_link_bytes"]})
    done = [r for r in runs if "hop_bytes" in r]
    if not done:
        return {"timeout": True, "runs": runs}
    return {"hop_bytes": min(r["hop_bytes"] for r in done),
            "max_link_bytes": min(r["max_link_bytes"] for r in done),
            "seconds": max(r["seconds"] for r in done),
            "runs": runs}
