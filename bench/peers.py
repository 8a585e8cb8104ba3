#!/usr/bin/env python3
"""rankmap against every peer, instance by instance, in one run (issue 33).

Peers, each as its users run it (bench/peers/):
  Scotch       Debian's scotch_gmap, 4 strategy strings x 3 draws, node and
               core level (scotch_gmap.py); its best run per metric;
  Mt-KaHyPar   steiner_tree process mapping onto the node graph, exact part
               weights, default and quality presets x 3 seeds (mtkahypar.py);
               $MTKAHYPAR names the binary;
  KaHIP        global_multisection along the machine's hierarchy, strong,
               one seed, eco where strong passes a minute (kahip.py);
               $KAHIP_GLOBAL_MULTISECTION names it.
A peer whose binary is not set is skipped with a line; one that cannot
express an instance (KaHIP: unequal slots, partial trees, a torus of other
than 2^k nodes) shows "-". "Best peer" is the least any peer reached on that instance.

Instances: the non-grid instances of bench/quality.py up to 2,048 ranks
(irregular METIS quotients, random geometric graphs, real profiles,
row all-to-all; whole, partial and heterogeneous allocations) with their
renumbered twins; fat trees with full and 4:1 uplinks, the CPMD switch
and the JINR KVM machine (VMs on hosts) with profiles of data/profiles,
fewer ranks than slots included; and three families of bench/families.py
(butterfly, pencil FFT, planted communities) the engine was not tuned on.
Each shows the lower bound of bench/lower_bound.py.

Usage: bench/peers.py [RANKMAP] [--only SUBSTRING] [--set heldout]   (default build/cli/rankmap)
       bench/peers.py --table RESULTS.json   (the table of an earlier run)
$RANKMAP_BEFORE (a rankmap of an earlier commit) adds its `default` as a
column, run in the same session. Writes bench/out/peers/ (results.json:
every run) and prints a Markdown table. `--set heldout` runs new seeds and
allocations of the same families instead, never used to choose a setting,
into bench/out/peers-heldout/.
"""
import json
import os
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "peers"))
sys.path.insert(0, here)
import families  # noqa: E402
import kahip  # noqa: E402
import lower_bound  # noqa: E402
import mtkahypar  # noqa: E402
import scotch_gmap  # noqa: E402
from instances import Instances, geomean, machine  # noqa: E402

root = os.path.dirname(here)
args = sys.argv[1:]
only = args[args.index("--only") + 1] if "--only" in args else ""
if "--only" in args:
    del args[args.index("--only"):args.index("--only") + 2]
held_out = "--set" in args
if held_out:
    if args[args.index("--set") + 1:args.index("--set") + 2] != ["heldout"]:
        sys.exit("peers: --set takes heldout")
    del args[args.index("--set"):args.index("--set") + 2]
table_of = args[args.index("--table") + 1] if "--table" in args else None
if table_of:
    del args[args.index("--table"):args.index("--table") + 2]
rankmap = os.path.abspath(args[0] if args else os.path.join(root, "build/cli/rankmap"))
out = os.path.join(here, "out", "peers-heldout" if held_out else "peers")
work = os.path.join(out, "work")
os.makedirs(work, exist_ok=True)
bench = Instances(rankmap, out)
graph, profile = bench.graph, bench.profile

m444, m888, angara, desmos = machine("torus-4x4x4"), machine("torus-8x8x8"), machine("angara-k1"), machine("desmos")
fat, thin = machine("fattree-8x16"), machine("fattree-8x16-thin")
cpmd, kvm = machine("cpmd-ib-16"), machine("jinr-kvm")
site, site_large = machine("tree-irregular"), machine("tree-irregular-large")


random_nodes, permuted = bench.random_nodes, bench.permuted


def family(name, make, *make_args):
    path = os.path.join(out, name + ".mtx")
    if not os.path.exists(path):
        make(path, *make_args)
    return path


def twins(name, g, machine, extra):
    return [(name, g, machine, extra), (name + " (renumbered)", permuted(g), machine, extra)]


instances = []
# The non-grid instances of bench/quality.py, up to 2,048 ranks.
for name, g, machine, extra in [
    ("irregular 1024 #1 on 4^3", graph("irr1", "irregular", "--ranks", "1024", "--seed", "1"), m444, []),
    ("irregular 1024 #2 on 4^3", graph("irr2", "irregular", "--ranks", "1024", "--seed", "2"), m444, []),
    ("irregular 384 on Angara-K1", graph("irr384", "irregular", "--ranks", "384", "--seed", "4"), angara, []),
    ("irregular 1024 on 64 random of 8^3", graph("irr1", "irregular", "--ranks", "1024", "--seed", "1"), m888,
     ["--nodes", random_nodes(64, 1)]),
    ("irregular 2048 on 128 random of 8^3", graph("irr2048", "irregular", "--ranks", "2048", "--seed", "5"), m888,
     ["--nodes", random_nodes(128, 2)]),
    ("geometric 1024 #1 on 4^3", graph("geo1", "geometric", "--ranks", "1024", "--seed", "1"), m444, []),
    ("geometric 768 on 48 random of 8^3", graph("geo768", "geometric", "--ranks", "768", "--seed", "3"), m888,
     ["--nodes", random_nodes(48, 4)]),
    ("geometric 384 on Angara-K1", graph("geo384", "geometric", "--ranks", "384", "--seed", "4"), angara, []),
    ("LAMMPS melt 128 on 4^3, 2 a node", profile("lammps-melt-128"), m444, ["--ppn", "2"]),
    ("LAMMPS peptide 64 on Desmos, 2 a node", profile("lammps-peptide-64"), desmos, ["--ppn", "2"]),
    ("HPCC 64 on 4^3, 1 a node", profile("hpcc-64"), m444, ["--ppn", "1"]),
    ("alltoall rows 16x64 on 4^3", graph("a2a16x64", "alltoall", "--grid", "16x64"), m444, []),
]:
    instances += twins(name, g, machine, extra)
# Trees: fat trees (2,048 slots), the CPMD switch, VMs on hosts.
for name, g, machine, extra in [
    ("irregular 2048 #31 on a fat tree", graph("irr2048s31", "irregular", "--ranks", "2048", "--seed", "31"), fat, []),
    ("geometric 2048 #32 on a fat tree", graph("geo2048s32", "geometric", "--ranks", "2048", "--seed", "32"), fat, []),
    ("irregular 2048 #31 on a 4:1 fat tree", graph("irr2048s31", "irregular", "--ranks", "2048", "--seed", "31"), thin, []),
    ("stencil 16x16x8 (renumbered) on a 4:1 fat tree",
     graph("st16x16x8-renumbered", "stencil", "--dims", "16x16x8", "--renumber", "7"), thin, []),
    ("irregular 1536 #33 on a fat tree (fewer ranks than slots)",
     graph("irr1536s33", "irregular", "--ranks", "1536", "--seed", "33"), fat, []),
    ("HPCC 64 on the CPMD switch", profile("hpcc-64"), cpmd, []),
    ("LAMMPS melt 128 on the CPMD switch", profile("lammps-melt-128"), cpmd, []),
    ("LAMMPS peptide 64 on JINR KVM (80 slots)", profile("lammps-peptide-64"), kvm, []),
    ("HPCC 64 on JINR KVM (80 slots)", profile("hpcc-64"), kvm, []),
    ("LAMMPS melt 16 on JINR KVM, 4 a VM", profile("lammps-melt-16"), kvm, ["--ppn", "4"]),
]:
    instances += twins(name, g, machine, extra)
# A site's irregular tree (issue 53, bench/machines/tree-irregular.toml: a
# leaf of half the nodes, a spine with single cables, 3 levels, 112
# cores), never tuned on; Scotch's target from amk_grf, KaHIP has none.
for name, g, machine_, extra in [
    ("irregular 112 #51 on a site's irregular tree", graph("irr112s51", "irregular", "--ranks", "112", "--seed", "51"),
     site, []),
    ("geometric 112 #52 on a site's irregular tree", graph("geo112s52", "geometric", "--ranks", "112", "--seed", "52"),
     site, []),
    ("stencil 7x4x4 on a site's irregular tree", graph("st7x4x4", "stencil", "--dims", "7x4x4"), site, []),
    ("communities 112 #54 on a site's irregular tree", family("communities112s54", families.communities, 112, 54),
     site, []),
    ("HPCC 64 on a site's irregular tree (fewer ranks than slots)", profile("hpcc-64"), site, []),
    ("LAMMPS peptide 64 on a site's irregular tree, 4 a node", profile("lammps-peptide-64"), site, ["--ppn", "4"]),
]:
    instances += twins(name, g, machine_, extra)
# Families the engine was not tuned on.
for name, g, machine, extra in [
    ("butterfly 1024 on 4^3", family("butterfly1024", families.butterfly, 1024), m444, []),
    ("pencil FFT 16x64 on 4^3", family("pencil16x64", families.pencil, 16, 64), m444, []),
    ("communities 1024 #5 on 4^3", family("communities1024s5", families.communities, 1024, 5), m444, []),
    ("butterfly 2048 on a 4:1 fat tree", family("butterfly2048", families.butterfly, 2048), thin, []),
    ("pencil FFT 32x64 on a 4:1 fat tree", family("pencil32x64", families.pencil, 32, 64), thin, []),
    ("communities 1600 #6 on a fat tree", family("communities1600s6", families.communities, 1600, 6), fat, []),
]:
    instances += twins(name, g, machine, extra)
# Held-out: new seeds and allocations of the same families, never used to
# choose a setting; `--set heldout` runs these instead (into out/peers-heldout).
heldout = []
for name, g, machine, extra in [
    ("irregular 1024 #41 on 4^3", graph("irr1024s41", "irregular", "--ranks", "1024", "--seed", "41"), m444, []),
    ("geometric 1024 #42 on 4^3", graph("geo1024s42", "geometric", "--ranks", "1024", "--seed", "42"), m444, []),
    ("irregular 2048 #43 on a 4:1 fat tree", graph("irr2048s43", "irregular", "--ranks", "2048", "--seed", "43"), thin,
     []),
    ("geometric 2048 #44 on a fat tree", graph("geo2048s44", "geometric", "--ranks", "2048", "--seed", "44"), fat, []),
    ("irregular 1536 #45 on a fat tree (fewer ranks than slots)",
     graph("irr1536s45", "irregular", "--ranks", "1536", "--seed", "45"), fat, []),
    ("communities 1600 #7 on a fat tree", family("communities1600s7", families.communities, 1600, 7), fat, []),
    ("communities 1024 #8 on 4^3", family("communities1024s8", families.communities, 1024, 8), m444, []),
    ("HPCC 64 on 64 random of 8^3, 1 a node", profile("hpcc-64"), m888, ["--nodes", random_nodes(64, 46), "--ppn", "1"]),
    ("LAMMPS peptide 64 on 4^3, 1 a node", profile("lammps-peptide-64"), m444, ["--ppn", "1"]),
    ("LAMMPS melt 128 on a 4:1 fat tree", profile("lammps-melt-128"), thin, []),
    # A larger site's tree (issue 53): 4 unlike pods, 912 cores.
    ("irregular 912 #61 on a site's large irregular tree",
     graph("irr912s61", "irregular", "--ranks", "912", "--seed", "61"), site_large, []),
    ("geometric 912 #62 on a site's large irregular tree",
     graph("geo912s62", "geometric", "--ranks", "912", "--seed", "62"), site_large, []),
    ("stencil 12x8x8 on a site's large irregular tree (fewer ranks than slots)",
     graph("st12x8x8", "stencil", "--dims", "12x8x8"), site_large, []),
    ("communities 900 #63 on a site's large irregular tree", family("communities900s63", families.communities, 900, 63),
     site_large, []),
    ("LAMMPS melt 128 on a site's large irregular tree, 2 a node", profile("lammps-melt-128"), site_large,
     ["--ppn", "2"]),
]:
    heldout += twins(name, g, machine, extra)
if held_out:
    instances = heldout
instances = [i for i in instances if only in i[0] and not table_of]

for tool, exe, what in [("Mt-KaHyPar", mtkahypar.binary(), "MTKAHYPAR"),
                        ("KaHIP", kahip.binary(), "KAHIP_GLOBAL_MULTISECTION")]:
    if exe is None:
        print(f"peers: {tool} skipped: set {what} to its binary (../shared/peers/README.md)", file=sys.stderr)
    else:
        version = (mtkahypar if tool == "Mt-KaHyPar" else kahip).version(exe)
        print(f"peers: {tool} = {exe} ({version})", file=sys.stderr)


def option(extra, name):
    return extra[extra.index(name) + 1] if name in extra else None


before = os.environ.get("RANKMAP_BEFORE")


def timed_map(g, machine, extra, opts, tag, binary=None):
    report = os.path.join(out, tag + ".json")
    start = time.perf_counter()
    args = ["map", g, "-m", machine, *extra, *opts, "-f", "csv", "-o", os.path.join(out, tag + ".csv"),
            "--json", report, "-q"]
    if binary:
        subprocess.run([binary, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    else:
        bench.run(*args)
    seconds = time.perf_counter() - start
    with open(report) as f:
        result = json.load(f)
    result["command_seconds"] = seconds
    return result


results = []
if table_of:
    with open(table_of) as f:
        results = json.load(f)
    before = before or ("before" in results[0] if results else None)
for index, (name, g, machine, extra) in enumerate(instances):
    nodes, ppn = option(extra, "--nodes"), option(extra, "--ppn")
    ppn = int(ppn) if ppn else None
    tag = f"{index:02d}-{os.path.basename(g)[:-4]}-{os.path.basename(machine)[:-5]}"
    r = {"name": name, "graph": g, "machine": machine, "extra": extra}
    for mapper, opts in {"block": ["--baseline", "block"], "default": ["--preset", "default"],
                         "quality": ["--preset", "quality"]}.items():
        r[mapper] = timed_map(g, machine, extra, opts, f"{tag}-{mapper}")
    if before:
        r["before"] = timed_map(g, machine, extra, ["--preset", "default"], f"{tag}-before", before)
    try:
        r["Scotch"] = scotch_gmap.scotch_best(rankmap, g, machine, nodes, ppn, work)
    except ValueError as e:  # a target Scotch cannot take here
        r["Scotch"] = {"skipped": str(e)}
    r["Mt-KaHyPar"] = mtkahypar.mtkahypar_best(rankmap, g, machine, nodes, ppn, work)
    r["KaHIP"] = kahip.kahip_best(rankmap, g, machine, nodes, ppn, work)
    r["bound"] = dict(zip(("hop_bytes", "max_link_bytes"), lower_bound.machine_bounds(g, machine, ppn, nodes)))
    results.append(r)
    print(f"done: {name}", file=sys.stderr)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)

PEERS = ("Scotch", "Mt-KaHyPar", "KaHIP")


def score(r, peer, key="hop_bytes"):
    x = r.get(peer)
    return x[key] if x and key in x else None



def cell(v, r=None, peer=None):
    if v is None and r is not None and (r.get(peer) or {}).get("timeout"):
        return "gave up"
    return "-" if v is None else f"{v:,}"


print("| instance | block | Scotch | Mt-KaHyPar | KaHIP | bound | default | default / best peer | "
      "quality / best peer | best known / bound | default max link / Scotch's | default s | quality s | "
      "quality / default time |" + (" before / best peer |" if before else ""))
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|" if before else ""))
losses, q_ratios, link_ratios, time_ratios = [], [], [], []
for r in results:
    peers = {p: score(r, p) for p in PEERS}
    best_peer = min(v for v in peers.values() if v is not None)
    d, q = r["default"]["hop_bytes"], r["quality"]["hop_bytes"]
    best_known = min(best_peer, d, q)
    d_ratio, q_ratio = d / best_peer if best_peer else 1.0, q / best_peer if best_peer else 1.0
    q_ratios.append(q_ratio)
    if d_ratio > 1.0:
        losses.append(f"{r['name']} ({d_ratio:.3f})")
    link = score(r, "Scotch", "max_link_bytes")
    if link:
        link_ratios.append(r["default"]["max_link_bytes"] / link)
    t = r["quality"]["command_seconds"] / r["default"]["command_seconds"]
    time_ratios.append((t, r["name"]))
    bound = r["bound"]["hop_bytes"]
    then = f" {r['before']['hop_bytes'] / best_peer:.3f} |" if before else ""
    print(f"| {r['name']} | {cell(r['block']['hop_bytes'])} | {cell(peers['Scotch'])} | {cell(peers['Mt-KaHyPar'])} | "
          f"{cell(peers['KaHIP'], r, 'KaHIP')} | {cell(bound)} | {cell(d)} | {d_ratio:.3f} | {q_ratio:.3f} | "
          f"{best_known / bound if bound else float('inf'):.2f} | "
          f"{r['default']['max_link_bytes'] / link if link else float('nan'):.3f} | "
          f"{r['default']['command_seconds']:.2f} | {r['quality']['command_seconds']:.2f} | {t:.1f} |" + then)
print()
print(f"default behind the best peer on {len(losses)} of {len(results)}: " + (", ".join(losses) or "none"))
print(f"quality / best peer, geometric mean: {geomean(q_ratios):.3f}")
print(f"default / best peer, geometric mean: {geomean([r['default']['hop_bytes'] / min(v for v in (score(r, p) for p in PEERS) if v) for r in results]):.3f}")
if before:
    print(f"before (RANKMAP_BEFORE default) / best peer, geometric mean: "
          f"{geomean([r['before']['hop_bytes'] / min(v for v in (score(r, p) for p in PEERS) if v) for r in results]):.3f}")
print(f"default max link / Scotch's best, geometric mean over {len(link_ratios)}: {geomean(link_ratios):.3f}")
worst = max(time_ratios) if time_ratios else (float("nan"), "")
print(f"quality / default time: at most {worst[0]:.1f}x ({worst[1]})")
