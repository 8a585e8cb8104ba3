"""Mt-KaHyPar's process mapping as its users run it (../shared/peers/README.md):
the rank graph partitioned onto a target graph whose vertices are the
allocated nodes, with the steiner_tree objective, which on a graph is the sum
over edges of bytes x the shortest-path distance between the two parts'
nodes: hop-bytes. Each node's slots are an exact part weight.

Target graph: on a whole torus or mesh, the neighbour links, weight 1; on a
partial allocation, a tree or VMs on hosts (where nodes are not joined by
neighbour edges alone), every allocated pair joined with its hop distance.

The binary comes from $MTKAHYPAR (a path); it needs Debian's libtbb12. Each
preset runs with several seeds; the best run per metric counts, as its users
keep the best of their seeds. Every partition is scored by `rankmap eval`.
"""
import math
import os
import subprocess
import time

from scotch_gmap import Instance, instance_tag

PRESETS = ("default", "quality")
SEEDS = (1, 2, 3)
WEIGHT_LIMIT = 1 << 30  # Mt-KaHyPar's edge weights are 32-bit: the total must stay below


def binary():
    """$MTKAHYPAR when it names an executable, else None."""
    path = os.environ.get("MTKAHYPAR", "")
    return path if path and os.access(path, os.X_OK) else None


def version(path):
    out = subprocess.run([path, "--version"], capture_output=True, text=True)
    return (out.stdout + out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr) else "unknown"


def write_metis(adj, path):
    """The rank graph in METIS format with edge weights: bytes divided by
    their greatest common divisor, then scaled so that their sum fits."""
    weights = [w for a in adj for w in a.values()]
    g = 0
    for w in weights:
        g = math.gcd(g, w)
    g = max(g, 1)
    total = sum(weights) // g
    scale = min(1.0, WEIGHT_LIMIT / max(total, 1))
    edges = sum(len(a) for a in adj) // 2
    with open(path, "w") as f:
        f.write(f"{len(adj)} {edges} 001\n")
        for a in adj:
            f.write(" ".join(f"{u + 1} {max(1, int(a[u] // g * scale))}" for u in sorted(a)) + "\n")


def write_target(inst, path):
    """Vertex k = allocation position k (inst.hosts[k])."""
    m = inst.machine
    k = len(inst.hosts)
    coords = [inst.coord[h] for h in inst.hosts]
    adj = [dict() for _ in range(k)]
    whole = not m.tree and k == m.size()
    if whole:
        position = {m.index_of(c): i for i, c in enumerate(coords)}
        for a, b in m.torus_edges():
            adj[position[a]][position[b]] = adj[position[b]][position[a]] = 1
    else:
        for a in range(k):
            for b in range(a + 1, k):
                adj[a][b] = adj[b][a] = max(1, m.hops(coords[a], coords[b]))
    edges = sum(len(x) for x in adj) // 2
    with open(path, "w") as f:
        f.write(f"{k} {edges} 001\n")
        for x in adj:
            f.write(" ".join(f"{u + 1} {x[u]}" for u in sorted(x)) + "\n")


def run_once(exe, graph, target, k, capacity, preset, seed, folder):
    os.makedirs(folder, exist_ok=True)
    for f in os.listdir(folder):
        os.remove(os.path.join(folder, f))
    start = time.perf_counter()
    subprocess.run([exe, "-h", graph, "--file-format=metis", "-k", str(k), "-e", "0", "-o", "steiner_tree",
                    "-g", target, f"--preset-type={preset}", "-t", "1", "--seed", str(seed), "-w",
                    "--partition-output-folder", folder, "--part-weights", *map(str, capacity)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    (name,) = [f for f in os.listdir(folder) if f.endswith(".KaHyPar")]
    with open(os.path.join(folder, name)) as f:
        return [int(line) for line in f if line.strip()], seconds


def mtkahypar_best(rankmap, graph, machine, nodes=None, ppn=None, workdir=".", presets=PRESETS, seeds=SEEDS):
    """{"hop_bytes", "max_link_bytes": best of all runs, "seconds": the slowest
    run, "best_seconds": per preset the mean run time, "runs": [...]}, or
    None when $MTKAHYPAR is not set."""
    exe = binary()
    if exe is None:
        return None
    inst = Instance(rankmap, graph, machine, nodes, ppn, workdir)
    tag = instance_tag(graph, machine, nodes)
    tag += f"-{ppn or 0}-mtk"
    g_path = os.path.join(workdir, tag + ".graph")
    t_path = os.path.join(workdir, tag + ".target.graph")
    write_metis(inst.adj, g_path)
    write_target(inst, t_path)
    runs = []
    for preset in presets:
        for seed in seeds:
            blocks, seconds = run_once(exe, g_path, t_path, len(inst.hosts), inst.capacity, preset, seed,
                                       os.path.join(workdir, tag + "-out"))
            node_of = list(blocks)
            inst.repair(node_of)  # exact part weights: moves nothing unless a node is over-full
            moved = sum(a != b for a, b in zip(blocks, node_of))
            mapping = os.path.join(workdir, f"{tag}-{preset}-{seed}.hosts")
            inst.write_hosts(node_of, mapping)
            scores = inst.score(mapping, "slurm", mapping[:-6] + ".json")
            runs.append({"preset": preset, "seed": seed, "seconds": seconds, "repaired": moved, "mapping": mapping,
                         "hop_bytes": scores["hop_bytes"], "max_link_bytes": scores["max_link_bytes"],
                         # a dragonfly's (rankmap eval's) adaptive reading and bytes between groups
                         "adaptive_max_link_bytes": scores.get("adaptive", {}).get("max_link_bytes"),
                         "inter_group_bytes": scores.get("inter_group_bytes")})
    per_preset = {p: [r for r in runs if r["preset"] == p] for p in presets}
    return {"hop_bytes": min(r["hop_bytes"] for r in runs),
            "max_link_bytes": min(r["max_link_bytes"] for r in runs),
            "seconds": max(r["seconds"] for r in runs),
            "preset_seconds": {p: sum(r["seconds"] for r in rs) / len(rs) for p, rs in per_preset.items()},
            "preset_hop_bytes": {p: min(r["hop_bytes"] for r in rs) for p, rs in per_preset.items()},
            "runs": runs}
