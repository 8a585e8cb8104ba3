"""Scotch's static mapping as a Scotch user runs it: Debian's `scotch_gmap`
on the rank graph and a target architecture file, with several strategy
strings, keeping the best result per metric.

Targets, as the Scotch manual builds them:
  - node level, equal slots on every allocated node: `torusXD` (or `meshXD`)
    of the machine's dimensions, under a `sub` architecture listing the
    allocated nodes when they are not the whole machine;
  - node level on a site's tree (kind "tree"): `amk_grf` of its switches
    and cables, the allocated nodes the terminals;
  - node level on a switch or fat tree (VMs on hosts: the hosts a level):
    `tleaf` with the tree's levels, top first, each costing rankmap's hops
    (2 a level climbed), under `sub` for a partial allocation;
  - node level, unequal slots (a heterogeneous machine): a decomposition-
    defined target made by `amk_grf` from the torus graph, each allocated
    node weighted by its slots;
  - core level (one rank a core): `amk_grf` of the torus with every
    allocated node's sockets and cores hung under its router, so that a
    core's distances are 2 within a socket, 4 across sockets and 4 + 10 a hop.

Scotch balances within a tolerance; a node takes an exact number of ranks.
An over-full node gives the ranks whose move costs least hop-bytes to
under-full nodes near it, so every score is of a runnable mapping. Ranks
take their node's cores in order (node level) or the core Scotch chose when
it is free (core level). Every mapping is scored by `rankmap eval`.
"""
import json
import math
import os
import re
import subprocess
import time
import tomllib
import zlib

STRATEGIES = [("default", []), ("quality", ["-cq"]), ("balance", ["-cb"]), ("balance+quality", ["-cbq"])]
# Scotch draws a new random seed each run unless told not to; each strategy
# runs with its fixed seed and twice with a fresh one, and the best counts.
SEEDS = [("fixed", ["-Cd"]), ("random 1", ["-Cr"]), ("random 2", ["-Cr"])]
LINK_DISTANCE = 10  # core-level target: a torus hop against 1 for core-socket and socket-router


def expand_hostlist(text):
    """Slurm hostlist: "n[00-03,07]x" -> n00x n01x n02x n03x n07x; commas outside brackets separate items."""
    items, depth, start = [], 0, 0
    for i, c in enumerate(text + ","):
        depth += c == "["
        depth -= c == "]"
        if c == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    hosts = []
    for item in filter(None, items):
        m = re.fullmatch(r"([^\[]*)\[([^\]]*)\](.*)", item)
        if not m:
            hosts.append(item)
            continue
        prefix, ranges, suffix = m.groups()
        for r in ranges.split(","):
            lo, _, hi = r.partition("-")
            for v in range(int(lo), int(hi or lo) + 1):
                hosts.extend(expand_hostlist(f"{prefix}{v:0{len(lo)}d}{suffix}"))
    return hosts


def cores_of(hwloc):
    """(cores, packages) of an hwloc synthetic string such as "package:2 core:8 pu:2"."""
    levels = dict(part.split(":") for part in hwloc.split())
    packages = int(levels.get("package", 1))
    cores = packages
    for name, count in levels.items():
        if name not in ("package", "pu", "machine"):
            cores *= int(count)
    return cores, packages


class Machine:
    def __init__(self, path):
        with open(path, "rb") as f:
            spec = tomllib.load(f)
        network = spec["network"]
        self.tree = network.get("kind", "torus") in ("switch", "fattree", "tree")
        # A site's tree (kind "tree", [[switches]]): distances by breadth-first
        # search over its switches and cables, a second way to what rankmap
        # builds (machine/import/site_tree.cpp); each node its own coordinate.
        self.site = network.get("kind") == "tree"
        if self.site:
            self.read_site(spec)
            return
        # A dragonfly: its routers and cables as a graph, built here from the
        # machine file's keys, a second way to rankmap's wiring
        # (detail/dragonfly_route.hpp); distances by breadth-first search.
        if network.get("kind") in ("dragonfly", "dragonfly+"):
            self.tree = self.site = True
            self.read_dragonfly(spec)
            return
        # VMs on hosts: the hosts are one more tree level, the lowest (as in
        # rankmap), and so one more level of Scotch's tleaf.
        self.vms_per_host = spec.get("hosts", {}).get("vms_per_host", 0)
        if self.tree:  # a tree's "dimensions" are its fan-outs, lowest first (as in rankmap)
            listed = sum(len(expand_hostlist(g["hosts"])) for g in spec["nodes"])
            self.dims = [l["fanout"] for l in network["levels"]] if "levels" in network else [listed]
            if self.vms_per_host:
                if "levels" not in network:
                    self.dims = [listed // self.vms_per_host]
                self.dims = [self.vms_per_host] + self.dims
            self.wrap = [False] * len(self.dims)
        else:
            self.dims = network["dims"]
            self.wrap = network.get("wrap", [True] * len(self.dims))
        self.hosts, self.coords, self.cores, self.cores_per_package = [], [], {}, {}
        index = 0
        for group in spec["nodes"]:
            cores, packages = cores_of(group["hwloc"])
            hosts = expand_hostlist(group["hosts"])
            coords = group.get("coords") or [self.coord_of(index + i) for i in range(len(hosts))]
            for host, coord in zip(hosts, coords):
                self.hosts.append(host)
                self.coords.append(tuple(coord))
                self.cores[host] = cores
                self.cores_per_package[host] = cores // packages
            index += len(hosts)

    def read_site(self, spec):
        graph = {}  # name -> neighbours (switches and nodes)

        def join(a, b):
            graph.setdefault(a, set()).add(b)
            graph.setdefault(b, set()).add(a)
        order = []
        for sw in spec["switches"]:
            for key in ("nodes", "switches"):
                for child in expand_hostlist(sw.get(key, "")) if isinstance(sw.get(key, ""), str) else \
                        [h for item in sw[key] for h in expand_hostlist(item)]:
                    join(sw["name"], child)
                    if key == "nodes":
                        order.append(child)
        for cable in spec.get("cables", []):
            join(cable["upper"], cable["lower"])
        self.cores, self.cores_per_package = {}, {}
        for group in spec["nodes"]:
            cores, packages = cores_of(group["hwloc"])
            for host in expand_hostlist(group["hosts"]):
                self.cores[host] = cores
                self.cores_per_package[host] = cores // packages
        self.set_graph(graph, order)

    def read_dragonfly(self, spec):
        net = spec["network"]
        plus = net["kind"] == "dragonfly+"
        groups, cables = net["groups"], net.get("global_links", 1)
        chassis, routers = (1, net["leaves"]) if plus else (net.get("chassis", 1), net["routers"])
        per_router = net["nodes_per_leaf" if plus else "nodes_per_router"]
        simgrid = net.get("wiring") == "simgrid"
        graph = {}

        def join(a, b):
            graph.setdefault(a, set()).add(b)
            graph.setdefault(b, set()).add(a)
        router = lambda g, c, r: f"g{g}c{c}r{r}"  # noqa: E731
        for g in range(groups):
            for c in range(chassis):
                for r in range(routers):
                    for s in range(net["spines"]) if plus else ():
                        join(router(g, 0, r), f"g{g}s{s}")
                    for r2 in range(routers) if not plus else ():  # along the row
                        if r2 != r:
                            join(router(g, c, r), router(g, c, r2))
                    for c2 in range(chassis) if not plus else ():  # along the column
                        if c2 != c:
                            join(router(g, c, r), router(g, c2, r))
        holders = net["spines"] if plus else chassis * routers

        def holder(g, h, j):  # the router (spine) of g with cable j to h
            i = h if simgrid else (j * (groups - 1) + (h - g - 1) % groups) % holders
            return f"g{g}s{i}" if plus else router(g, i // routers, i % routers)
        for g in range(groups):
            for h in range(groups):
                for j in range(1 if simgrid else cables):
                    if g != h:
                        join(holder(g, h, j), holder(h, g, j))
        order = []
        self.cores, self.cores_per_package = {}, {}
        index = 0
        for group in spec["nodes"]:
            cores, packages = cores_of(group["hwloc"])
            for host in expand_hostlist(group["hosts"]):
                self.cores[host] = cores
                self.cores_per_package[host] = cores // packages
                r = index // per_router
                join(host, router(r // (chassis * routers), r // routers % chassis, r % routers))
                order.append(host)
                index += 1
        self.set_graph(graph, order)

    def set_graph(self, graph, order):
        """Nodes `order` (each its own coordinate) of the switch graph `graph`,
        and every node's hops to every other."""
        self.hosts = order
        self.coords = [(i,) for i in range(len(order))]
        self.dims, self.wrap, self.vms_per_host = [len(order)], [False], 0
        self.switch_graph = graph
        self.distance = []
        for host in order:  # hops from each node to every other
            seen, frontier, d = {host: 0}, [host], 0
            while frontier:
                d += 1
                nxt = []
                for v in frontier:
                    for u in graph[v]:
                        if u not in seen:
                            seen[u] = d
                            nxt.append(u)
                frontier = nxt
            self.distance.append([seen[h] for h in order])

    def coord_of(self, index):
        coord = []
        for n in self.dims:
            coord.append(index % n)
            index //= n
        return coord

    def index_of(self, coord):
        index = 0
        for c, n in zip(reversed(coord), reversed(self.dims)):
            index = index * n + c
        return index

    def size(self):
        """Coordinates in the network (routers), allocated or not."""
        return math.prod(self.dims)

    def hops(self, a, b):
        if self.site:
            return self.distance[a[0]][b[0]]
        if self.tree:  # 2 links a level climbed to the lowest common switch
            differ = [d for d in range(len(self.dims)) if a[d] != b[d]]
            return 2 * (differ[-1] + 1) if differ else 0
        total = 0
        for x, y, n, w in zip(a, b, self.dims, self.wrap):
            d = abs(x - y)
            total += min(d, n - d) if w else d
        return total

    def torus_edges(self):
        """Links of the whole network as pairs of coordinate indices."""
        for i in range(self.size()):
            c = self.coord_of(i)
            for d, (n, w) in enumerate(zip(self.dims, self.wrap)):
                if n == 1 or (not w and c[d] == n - 1) or (n == 2 and c[d] == 1):
                    continue
                nb = list(c)
                nb[d] = (c[d] + 1) % n
                yield i, self.index_of(nb)


def read_mtx(path):
    """Undirected adjacency {v: {u: bytes both ways}} of a rankmap .mtx graph."""
    adj = None
    with open(path) as f:
        for line in f:
            if line.startswith("%"):
                continue
            fields = line.split()
            if adj is None:
                adj = [dict() for _ in range(int(fields[0]))]
                continue
            i, j, b = int(fields[0]) - 1, int(fields[1]) - 1, int(fields[2])
            if i != j and b:
                adj[i][j] = adj[i].get(j, 0) + b
                adj[j][i] = adj[j].get(i, 0) + b
    return adj


def write_grf(adj, path):
    """Scotch source graph; weights scaled so that their sum fits 31 bits."""
    total = sum(sum(a.values()) for a in adj)
    scale = min(1.0, (1 << 30) / max(total, 1))
    arcs = sum(len(a) for a in adj)
    with open(path, "w") as f:
        f.write(f"0\n{len(adj)} {arcs}\n0 010\n")
        for a in adj:
            f.write(str(len(a)))
            for u in sorted(a):
                f.write(f" {max(1, int(a[u] * scale))} {u}")
            f.write("\n")


def write_deco_source(path, machine, extra_vertices, extra_edges, weights):
    """A target graph for amk_grf: the torus's routers 0..N-1, then extra
    vertices; weights[v] the load a terminal v can take (1 elsewhere)."""
    nv = machine.size() + extra_vertices
    adj = [dict() for _ in range(nv)]
    for a, b in ([] if machine.site else machine.torus_edges()):
        adj[a][b] = adj[b][a] = LINK_DISTANCE if extra_vertices else 1
    for a, b, w in extra_edges:
        adj[a][b] = adj[b][a] = w
    with open(path, "w") as f:
        f.write(f"0\n{nv} {sum(len(a) for a in adj)}\n0 011\n")
        for v, a in enumerate(adj):
            f.write(f"{weights.get(v, 1)} {len(a)}" + "".join(f" {a[u]} {u}" for u in sorted(a)) + "\n")


class Instance:
    """A graph on an allocation of a machine, as `rankmap map` sees it."""

    def __init__(self, rankmap, graph, machine_path, nodes=None, ppn=None, workdir="."):
        self.rankmap, self.graph, self.machine_path = rankmap, graph, machine_path
        self.machine = Machine(machine_path)
        self.ppn = ppn
        self.nodes_arg = nodes
        if nodes is None:
            self.hosts = list(self.machine.hosts)
        elif nodes.startswith("@"):
            with open(nodes[1:]) as f:
                wanted = set(line.strip() for line in f if line.strip())
            self.hosts = [h for h in self.machine.hosts if h in wanted]
        else:
            wanted = set(expand_hostlist(nodes))
            self.hosts = [h for h in self.machine.hosts if h in wanted]
        coord_of_host = dict(zip(self.machine.hosts, self.machine.coords))
        self.coord = {h: coord_of_host[h] for h in self.hosts}
        self.capacity = [ppn or self.machine.cores[h] for h in self.hosts]
        self.workdir = workdir
        self.adj = read_mtx(graph)
        self.grf = os.path.join(workdir, os.path.basename(graph) + ".grf")
        write_grf(self.adj, self.grf)

    def rankmap_args(self):
        args = ["-m", self.machine_path]
        if self.nodes_arg:
            args += ["--nodes", self.nodes_arg]
        if self.ppn:
            args += ["--ppn", str(self.ppn)]
        return args

    # --- targets -------------------------------------------------------
    def node_target(self, tag):
        """(target file, alloc position of each terminal number)."""
        m = self.machine
        index = [m.index_of(self.coord[h]) for h in self.hosts]
        if m.site:  # amk_grf over the site's switches, the allocated nodes its terminals
            source = os.path.join(self.workdir, tag + ".target.grf")
            names = list(m.hosts) + sorted(set(m.switch_graph) - set(m.hosts))
            at = {n: i for i, n in enumerate(names)}
            edges = {(min(at[a], at[b]), max(at[a], at[b])) for a in m.switch_graph for b in m.switch_graph[a]}
            write_deco_source(source, m, len(names) - len(m.hosts), [(a, b, 1) for a, b in sorted(edges)],
                              {index[k]: c for k, c in enumerate(self.capacity)})
            return self.amk_grf(source, tag, index), {t: k for k, t in enumerate(index)}
        if m.tree and len(set(self.capacity)) != 1:
            raise ValueError("a tree with unequal slots per node has no Scotch target here")
        if len(set(self.capacity)) == 1 and (m.tree or len(set(m.wrap)) == 1):
            kind = "torusXD" if m.wrap[0] else "meshXD"
            base = f"{kind} {len(m.dims)} " + " ".join(map(str, m.dims))
            if m.tree:  # top level first: fan-out, then the cost of meeting there
                base = f"tleaf {len(m.dims)} " + " ".join(f"{m.dims[d]} {2 * (d + 1)}" for d in reversed(range(len(m.dims))))
            path = os.path.join(self.workdir, tag + ".tgt")
            if sorted(index) == list(range(len(m.hosts))) and len(self.hosts) == len(m.hosts):
                with open(path, "w") as f:
                    f.write(base + "\n")
                return path, {t: k for k, t in enumerate(index)}
            with open(path, "w") as f:
                f.write(f"sub\n{len(index)}\n{' '.join(map(str, index))}\n{base}\n")
            return path, {i: i for i in range(len(index))}
        source = os.path.join(self.workdir, tag + ".target.grf")
        write_deco_source(source, m, 0, [], {index[k]: c for k, c in enumerate(self.capacity)})
        return self.amk_grf(source, tag, index), {t: k for k, t in enumerate(index)}

    def core_target(self, tag):
        """Terminals: every core of every allocated node; (file, (alloc position, core) of each)."""
        m = self.machine
        size = m.size()
        edges, terminals, next_vertex = [], {}, size
        for k, h in enumerate(self.hosts):
            router = m.index_of(self.coord[h])
            per_package = m.cores_per_package[h]
            for p in range(m.cores[h] // per_package):
                socket = next_vertex
                next_vertex += 1
                edges.append((router, socket, 1))
                for c in range(per_package):
                    edges.append((socket, next_vertex, 1))
                    terminals[next_vertex] = (k, p * per_package + c)
                    next_vertex += 1
        source = os.path.join(self.workdir, tag + ".target.grf")
        write_deco_source(source, m, next_vertex - size, edges, {})
        return self.amk_grf(source, tag, sorted(terminals)), terminals

    def amk_grf(self, source, tag, terminals):
        listing = os.path.join(self.workdir, tag + ".terminals")
        with open(listing, "w") as f:
            f.write(f"{len(terminals)}\n" + "\n".join(map(str, terminals)) + "\n")
        path = os.path.join(self.workdir, tag + ".tgt")
        subprocess.run(["amk_grf", f"-l{listing}", source, path], check=True)
        return path

    # --- repair and scoring ----------------------------------------------
    def repair(self, node_of):
        """Over-full nodes give their cheapest ranks to under-full nodes near them."""
        coords = [self.coord[h] for h in self.hosts]
        hops = lambda a, b: self.machine.hops(coords[a], coords[b])
        count = [0] * len(self.hosts)
        on = [[] for _ in self.hosts]
        for v, k in enumerate(node_of):
            count[k] += 1
            on[k].append(v)
        under = {q for q in range(len(self.hosts)) if count[q] < self.capacity[q]}
        for p in range(len(self.hosts)):
            if count[p] <= self.capacity[p]:
                continue
            members = on[p]
            nearest = sorted(under, key=lambda q: (hops(p, q), q))[:64]
            while count[p] > self.capacity[p]:
                near = [q for q in nearest if q in under][:8] or sorted(under, key=lambda q: (hops(p, q), q))[:8]
                best = None
                for v in members:
                    targets = set(near) | {node_of[u] for u in self.adj[v] if node_of[u] in under}
                    here = sum(w * hops(p, node_of[u]) for u, w in self.adj[v].items())
                    for q in targets:
                        cost = sum(w * hops(q, node_of[u]) for u, w in self.adj[v].items()) - here
                        if best is None or (cost, v, q) < best:
                            best = (cost, v, q)
                _, v, q = best
                node_of[v] = q
                members.remove(v)
                count[p] -= 1
                count[q] += 1
                if count[q] == self.capacity[q]:
                    under.discard(q)
        return node_of

    def write_hosts(self, node_of, path):
        """A host per line, rank i on line i: ranks take their node's slots in order."""
        with open(path, "w") as f:
            f.write("".join(self.hosts[k] + "\n" for k in node_of))

    def write_csv(self, node_of, core_of, path):
        """core_of[v]: the core Scotch chose; taken when free, else the node's first free core."""
        free = [list(range(self.capacity[k])) for k in range(len(self.hosts))]
        chosen = [None] * len(node_of)
        for v, k in enumerate(node_of):
            c = core_of[v]
            if c is not None and c in free[k]:
                free[k].remove(c)
                chosen[v] = c
        with open(path, "w") as f:
            f.write("rank,host,socket,core,pu\n")
            for v, k in enumerate(node_of):
                if chosen[v] is None:
                    chosen[v] = free[k].pop(0)
                h = self.hosts[k]
                f.write(f"{v},{h},{chosen[v] // self.machine.cores_per_package[h]},{chosen[v]},\n")

    def score(self, mapping, fmt, report):
        subprocess.run([self.rankmap, "eval", self.graph, *self.rankmap_args(), "--mapping", mapping,
                        "--mapping-format", fmt, "--json", report, "-q"], check=True, stdout=subprocess.DEVNULL)
        with open(report) as f:
            return json.load(f)


def instance_tag(graph, machine, nodes):
    """A file-name stem for one graph on one allocation of a machine."""
    return os.path.basename(graph) + "-" + os.path.basename(machine) + f"-{zlib.crc32((nodes or '').encode()) % 10**6}"


def run_gmap(grf, target, strategy, out):
    start = time.perf_counter()
    subprocess.run(["scotch_gmap", grf, target, out, *strategy], check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    with open(out) as f:
        lines = f.read().split("\n")[1:]
    terminal = {}
    for line in lines:
        if line.strip():
            v, t = line.split()
            terminal[int(v)] = int(t)
    return terminal, seconds


def scotch_best(rankmap, graph, machine, nodes=None, ppn=None, workdir=".", levels=("node", "core"),
                strategies=STRATEGIES, seeds=SEEDS):
    """Every strategy at every level that applies; returns
    {"hop_bytes": best, "max_link_bytes": best, "runs": [per run: level, strategy, scores, seconds]}."""
    inst = Instance(rankmap, graph, machine, nodes, ppn, workdir)
    tag = instance_tag(graph, machine, nodes)
    runs = []
    for level in levels:
        if level == "core":
            if inst.machine.tree:
                continue  # the core-level target is built on torus links
            if ppn is not None or len(inst.adj) != sum(inst.capacity) or len(inst.adj) > 4096:
                continue  # one rank a core only; amk_grf's distance matrix grows as cores squared
            target, core_at = inst.core_target(tag + "-core")
        else:
            target, node_at = inst.node_target(tag + "-node")
        for name, flags in [(f"{s} {r}", f + c) for s, f in strategies for r, c in seeds]:
            out = os.path.join(workdir, f"{tag}-{level}-{name.replace(' ', '-')}.map")
            terminal, seconds = run_gmap(inst.grf, target, flags, out)
            if level == "core":
                node_of = [core_at[terminal[v]][0] for v in range(len(inst.adj))]
                core_of = [core_at[terminal[v]][1] for v in range(len(inst.adj))]
            else:
                node_of = [node_at[terminal[v]] for v in range(len(inst.adj))]
                core_of = None  # ranks take their node's slots in order
            before = list(node_of)
            inst.repair(node_of)
            moved = sum(a != b for a, b in zip(before, node_of))
            if core_of:
                mapping, fmt = out[:-4] + ".csv", "csv"
                inst.write_csv(node_of, core_of, mapping)
            else:
                mapping, fmt = out[:-4] + ".hosts", "slurm"
                inst.write_hosts(node_of, mapping)
            scores = inst.score(mapping, fmt, out[:-4] + ".json")
            runs.append({"level": level, "strategy": name, "seconds": seconds, "repaired": moved, "mapping": mapping,
                         "hop_bytes": scores["hop_bytes"], "max_link_bytes": scores["max_link_bytes"],
                         # a dragonfly's (rankmap eval's) adaptive reading and bytes between groups
                         "adaptive_max_link_bytes": scores.get("adaptive", {}).get("max_link_bytes"),
                         "inter_group_bytes": scores.get("inter_group_bytes")})
    return {"hop_bytes": min(r["hop_bytes"] for r in runs),
            "max_link_bytes": min(r["max_link_bytes"] for r in runs),
            "seconds": max(r["seconds"] for r in runs),
            "runs": runs}
