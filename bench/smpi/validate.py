#!/usr/bin/env python3
"""Simulated gain against predicted gain: the gain model checked on SMPI.

For each scenario (a mini-app of apps/ on a torus, switch, fat-tree or
VMs-on-hosts machine):
  1. profile the app under Open MPI with rankmap's shim (its real traffic);
  2. map it with `rankmap map`, and write the "before" mapping (block, the
     launcher's default, unless the scenario names rr or random);
  3. run it under SimGrid's SMPI on bench/smpi's torus or tree platform,
     or SimGrid's own dragonfly zone
     (the machine's latencies and links) twice, with hostfiles in rank order (`host:n`
     lines): before, then rankmap's mapping;
  4. p_mpi is the before run's fraction of time outside the injected compute
     time (apps/compute.h), the simulated gain (t_before - t_map) / t_before;
  5. the predicted gains are `rankmap eval --p-mpi <that p_mpi> --against
     before.csv` on the profile: the headline (the flow model) and the
     other readings of the JSON.
Prints a Markdown table; --json also writes every figure.

Usage: validate.py [--build DIR] [--only NAME,...] [--json FILE] [--keep DIR] [--hop-bytes-engine]
       validate.py --print-smpi-options
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "peers"))
from scotch_gmap import expand_hostlist  # noqa: E402

# name: (machine file, ranks per node, app, its grid and message size,
# iterations, compute time per iteration in us[, the "before" mapping:
# block (the default), rr or random]). The first six have small messages
# (8 to 128 bytes), where the gain model's latency terms are the cost.
SCENARIOS = {
    "halo3d-4x4x4": ("bench/machines/torus-4x4x4.toml", 4, "halo3d", ["8", "8", "4", "16"], 20, 10.0),
    "wavefront-4x4x4": ("bench/machines/torus-4x4x4.toml", 4, "wavefront", ["16", "16", "16"], 20, 2.0),
    "fft2d-4x4x4": ("bench/machines/torus-4x4x4.toml", 4, "fft2d", ["16", "16", "4"], 10, 40.0),
    "halo3d-desmos": ("data/machines/desmos.toml", 4, "halo3d", ["8", "4", "4", "16"], 20, 10.0),
    "wavefront-desmos": ("data/machines/desmos.toml", 4, "wavefront", ["16", "8", "16"], 20, 2.0),
    "fft2d-desmos": ("data/machines/desmos.toml", 4, "fft2d", ["16", "8", "4"], 10, 40.0),
    # Issue 13's: 1 rank a node, small and 64 KiB faces; 2 a node on Desmos.
    "halo3d-8x8x1-128B": ("bench/machines/torus-4x4x4.toml", 1, "halo3d", ["8", "8", "1", "16"], 20, 10.0),
    "halo3d-8x8x1-64KiB": ("bench/machines/torus-4x4x4.toml", 1, "halo3d", ["8", "8", "1", "8192"], 20, 10.0),
    "halo3d-desmos-64KiB": ("data/machines/desmos.toml", 2, "halo3d", ["4", "4", "4", "8192"], 20, 10.0),
    # Before mappings that cost something (rr, random, a grid the torus does
    # not match), 8 B to 1 MiB messages, large all-to-alls.
    "halo3d-8x8x2-8B-rr": ("bench/machines/torus-4x4x4.toml", 2, "halo3d", ["8", "8", "2", "1"], 20, 10.0, "rr"),
    "halo3d-16x4x1-8KiB": ("bench/machines/torus-4x4x4.toml", 1, "halo3d", ["16", "4", "1", "1024"], 20, 20.0),
    "halo3d-4x4x4-1MiB-random": ("bench/machines/torus-4x4x4.toml", 1, "halo3d", ["4", "4", "4", "131072"], 10, 1000.0, "random"),
    "halo3d-desmos-1KiB-rr": ("data/machines/desmos.toml", 2, "halo3d", ["4", "4", "4", "128"], 20, 10.0, "rr"),
    "fft2d-8x8-256KiB-random": ("bench/machines/torus-4x4x4.toml", 1, "fft2d", ["8", "8", "32768"], 10, 1000.0, "random"),
    "fft2d-desmos-32KiB-rr": ("data/machines/desmos.toml", 4, "fft2d", ["16", "8", "4096"], 10, 200.0, "rr"),
    "wavefront-desmos-16KiB-random": ("data/machines/desmos.toml", 2, "wavefront", ["8", "8", "2048"], 20, 20.0, "random"),
    "halo3d-8x8x2-64KiB-rr": ("bench/machines/torus-4x4x4.toml", 2, "halo3d", ["8", "8", "2", "8192"], 10, 100.0, "rr"),
    "halo3d-8x8x1-8KiB-random": ("bench/machines/torus-4x4x4.toml", 1, "halo3d", ["8", "8", "1", "1024"], 20, 20.0, "random"),
    "halo3d-desmos-64KiB-random": ("data/machines/desmos.toml", 2, "halo3d", ["4", "4", "4", "8192"], 10, 100.0, "random"),
    "halo3d-desmos-8KiB-rr": ("data/machines/desmos.toml", 4, "halo3d", ["8", "4", "4", "1024"], 20, 20.0, "rr"),
    "fft2d-desmos-32KiB-random": ("data/machines/desmos.toml", 4, "fft2d", ["16", "8", "4096"], 10, 200.0, "random"),
    "halo3d-desmos-1MiB-rr": ("data/machines/desmos.toml", 2, "halo3d", ["4", "4", "4", "131072"], 10, 1000.0, "rr"),
    "halo3d-8x4x4-256KiB-random": ("bench/machines/torus-4x4x4.toml", 2, "halo3d", ["8", "4", "4", "32768"], 10, 500.0, "random"),
    "halo3d-desmos-8x8x1-64KiB-random": ("data/machines/desmos.toml", 2, "halo3d", ["8", "8", "1", "8192"], 10, 100.0, "random"),
    # Issue 35: the seeds' machines that are not tori, on the tree platform
    # (tree_platform.cpp). The CPMD study's shape: 16 nodes of 8 ranks on one
    # QDR switch, an all-to-all-bound code (fft2d's transposes).
    "fft2d-cpmd-4KiB": ("data/machines/cpmd-ib-16.toml", 8, "fft2d", ["16", "8", "512"], 10, 100.0),
    "fft2d-cpmd-32KiB-rr": ("data/machines/cpmd-ib-16.toml", 8, "fft2d", ["16", "8", "4096"], 10, 200.0, "rr"),
    "fft2d-cpmd-32KiB-random": ("data/machines/cpmd-ib-16.toml", 8, "fft2d", ["16", "8", "4096"], 10, 200.0, "random"),
    "halo3d-cpmd-8KiB-rr": ("data/machines/cpmd-ib-16.toml", 8, "halo3d", ["8", "4", "4", "1024"], 20, 20.0, "rr"),
    # Halos and FFTs on fat trees of 4 leaves x 8 nodes of 4 cores, 2:1 and 4:1.
    "halo3d-ft2-64KiB-rr": ("bench/machines/fattree-4x8-2to1.toml", 4, "halo3d", ["8", "4", "4", "8192"], 10, 100.0, "rr"),
    "halo3d-ft2-8KiB-random": ("bench/machines/fattree-4x8-2to1.toml", 4, "halo3d", ["8", "4", "4", "1024"], 20, 20.0, "random"),
    "fft2d-ft2-32KiB-random": ("bench/machines/fattree-4x8-2to1.toml", 4, "fft2d", ["16", "8", "4096"], 10, 200.0, "random"),
    "halo3d-ft4-64KiB-rr": ("bench/machines/fattree-4x8-4to1.toml", 4, "halo3d", ["8", "4", "4", "8192"], 10, 100.0, "rr"),
    "halo3d-ft4-1MiB-random": ("bench/machines/fattree-4x8-4to1.toml", 4, "halo3d", ["8", "4", "4", "131072"], 10, 1000.0, "random"),
    "fft2d-ft4-32KiB-rr": ("bench/machines/fattree-4x8-4to1.toml", 4, "fft2d", ["16", "8", "4096"], 10, 200.0, "rr"),
    # From block, the launcher's default (added with the fourth step, run once, kept as they came).
    "halo3d-ft2-64KiB-block": ("bench/machines/fattree-4x8-2to1.toml", 4, "halo3d", ["8", "4", "4", "8192"], 10, 100.0),
    "fft2d-ft4-32KiB-block": ("bench/machines/fattree-4x8-4to1.toml", 4, "fft2d", ["16", "8", "4096"], 10, 200.0),
    # Issue 53: a site's irregular tree (bench/machines/tree-irregular.toml:
    # a leaf of half the nodes, a spine with single cables, 3 levels), all
    # 112 cores. Run once, kept as they came.
    "halo3d-irr-64KiB-rr": ("bench/machines/tree-irregular.toml", 4, "halo3d", ["7", "4", "4", "8192"], 10, 100.0, "rr"),
    "halo3d-irr-8KiB-random": ("bench/machines/tree-irregular.toml", 4, "halo3d", ["7", "4", "4", "1024"], 20, 20.0, "random"),
    "fft2d-irr-32KiB-random": ("bench/machines/tree-irregular.toml", 4, "fft2d", ["16", "7", "4096"], 10, 200.0, "random"),
    "halo3d-irr-64KiB-block": ("bench/machines/tree-irregular.toml", 4, "halo3d", ["7", "4", "4", "8192"], 10, 100.0),
    "wavefront-irr-16KiB-random": ("bench/machines/tree-irregular.toml", 4, "wavefront", ["16", "7", "2048"], 20, 20.0, "random"),
    # Issue 54: SimGrid's own dragonfly zone (dragonfly_platform.cpp, its
    # minimal static routes), on its documented shape 3,4;4,3;5,1;2 (3
    # groups of 40 nodes; 2 ranks a node, 64 nodes: two groups) and on
    # 4,2;1,1;8,1;4 (4 all-to-all groups of 32 nodes; 1 rank a node on
    # every node, or 2 on 64). The irregular app's ranks are its first
    # argument here.
    "halo3d-df3-64KiB-rr": ("bench/machines/simgrid-dragonfly-3x4x5x2.toml", 2, "halo3d", ["8", "4", "4", "8192"], 10, 100.0, "rr"),
    "halo3d-df3-8KiB-random": ("bench/machines/simgrid-dragonfly-3x4x5x2.toml", 2, "halo3d", ["8", "4", "4", "1024"], 20, 20.0, "random"),
    "halo3d-df3-64KiB-block": ("bench/machines/simgrid-dragonfly-3x4x5x2.toml", 2, "halo3d", ["8", "4", "4", "8192"], 10, 100.0),
    "fft2d-df3-32KiB-random": ("bench/machines/simgrid-dragonfly-3x4x5x2.toml", 2, "fft2d", ["16", "8", "4096"], 10, 200.0, "random"),
    "irregular-df3-random": ("bench/machines/simgrid-dragonfly-3x4x5x2.toml", 2, "irregular", ["128", "7", "6"], 20, 20.0, "random"),
    "halo3d-df4-64KiB-rr": ("bench/machines/simgrid-dragonfly-4x1x8x4.toml", 2, "halo3d", ["8", "4", "4", "8192"], 10, 100.0, "rr"),
    "halo3d-df4-1MiB-random": ("bench/machines/simgrid-dragonfly-4x1x8x4.toml", 1, "halo3d", ["8", "4", "4", "131072"], 10, 1000.0, "random"),
    "fft2d-df4-32KiB-block": ("bench/machines/simgrid-dragonfly-4x1x8x4.toml", 1, "fft2d", ["16", "8", "4096"], 10, 200.0),
    "irregular-df4-rr": ("bench/machines/simgrid-dragonfly-4x1x8x4.toml", 2, "irregular", ["128", "7", "6"], 20, 20.0, "rr"),
    "halo3d-df4-8KiB-random": ("bench/machines/simgrid-dragonfly-4x1x8x4.toml", 1, "halo3d", ["8", "4", "4", "1024"], 20, 20.0, "random"),
    # The KVM seed: 4 VMs of 20 cores on 2 hosts. rr splits neighbours
    # across hosts; rankmap keeps them inside one.
    "halo3d-kvm-64KiB-rr": ("data/machines/jinr-kvm.toml", 20, "halo3d", ["5", "4", "4", "8192"], 10, 1000.0, "rr"),
    "halo3d-kvm-8B-rr": ("data/machines/jinr-kvm.toml", 20, "halo3d", ["5", "4", "4", "1"], 20, 50.0, "rr"),
    "fft2d-kvm-32KiB-random": ("data/machines/jinr-kvm.toml", 20, "fft2d", ["10", "8", "4096"], 10, 2000.0, "random"),
    # The CI scenarios (ctest smpi_gain): seconds each, the machine file of
    # tests/data. In the first the engine keeps block (no candidate is
    # predicted faster); the second gains about 15 %: rr puts every
    # face between nodes, where 64 KiB faces share the NICs.
    "halo3d-ci": ("tests/data/smpi-2x2x2.toml", 2, "halo3d", ["4", "2", "2", "16"], 10, 10.0),
    "halo3d-ci-rr": ("tests/data/smpi-2x2x2.toml", 2, "halo3d", ["4", "2", "2", "8192"], 10, 100.0, "rr"),
}


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"validate.py: {' '.join(map(str, cmd))} failed ({r.returncode}):\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    return r.stdout


def is_tree(machine):
    """Whether the tree platform takes the machine: rankmap's own routes
    over its links, switches and trees, and dragonflies as rankmap wires
    them (a Dragonfly+, or a dragonfly not wired as SimGrid's)."""
    net = machine["network"]
    kind = net.get("kind", "torus")
    return kind in ("switch", "fattree", "tree", "dragonfly+") or (kind == "dragonfly" and not is_dragonfly(machine))


def is_dragonfly(machine):
    """Whether the machine is SimGrid's own dragonfly zone (wiring = "simgrid")."""
    net = machine["network"]
    return net.get("kind") == "dragonfly" and net.get("wiring") == "simgrid"


def platform_file(build, machine):
    """The SMPI platform for a machine: SimGrid's own dragonfly zone, or
    rankmap's routes (trees, other dragonflies) or torus."""
    name = "dragonfly" if is_dragonfly(machine) else "tree" if is_tree(machine) else "torus"
    return str(build / "lib" / f"rankmap-smpi-{name}.so")


def platform_env(machine, ppn, machine_path):
    """The SMPI platform's parameters from a rankmap machine file, with a
    host for each of `ppn` ranks a node. The tree platform reads the file
    itself, as the dragonfly platform does."""
    if is_tree(machine) or is_dragonfly(machine):
        return dict(os.environ, RANKMAP_SMPI_MACHINE=str(machine_path), RANKMAP_SMPI_CORES=str(ppn))
    net = machine["network"]
    if net["t_inj_ns"] != net["t_ej_ns"]:
        sys.exit("validate.py: the SMPI platform needs t_inj_ns == t_ej_ns")
    groups = machine["nodes"]
    if not all(net.get("wrap", [True] * len(net["dims"]))):
        sys.exit("validate.py: the SMPI platform is a torus: every dimension must wrap")
    hosts = groups[0]["hosts"]  # name[00-63]: the printf format of the ids
    prefix, digits = hosts.split("[")[0], len(hosts.split("[")[1].split("-")[0])
    env = dict(os.environ,
               RANKMAP_SMPI_DIMS=",".join(map(str, net["dims"])),
               RANKMAP_SMPI_NIC_NS=str(net["t_inj_ns"]),
               RANKMAP_SMPI_HOP_NS=str(net["t_hop_ns"]),
               RANKMAP_SMPI_GBPS=str(net.get("link_gbps", 100)),
               RANKMAP_SMPI_CORES=str(ppn),
               RANKMAP_SMPI_HOST=f"{prefix}%0{digits}lu")
    if len(groups) > 1:  # names no one format gives (Angara-K1's a[01-24], b[01-12]): every one, in order
        env["RANKMAP_SMPI_HOSTS"] = ",".join(h for g in groups for h in expand_hostlist(g["hosts"]))
    if "routing" in net:  # else the platform's default, the machine file's too
        env["RANKMAP_SMPI_ROUTING"] = net["routing"].replace(" ", "")
    if "t_local_ns" in net:
        env["RANKMAP_SMPI_LOCAL_NS"] = str(net["t_local_ns"])
    return env


def nodes_of(mapping_path):
    """Each rank's node, in rank order, from rankmap's csv mapping
    (rank,host,...), a host-per-line file (the peers' .hosts), or an
    smpirun hostfile that hostfile() wrote (`<node>-<k>:1`)."""
    lines = [line.strip() for line in Path(mapping_path).read_text().splitlines() if line.strip()]
    if str(mapping_path).endswith(".csv") or (lines and lines[0].startswith("rank,")):
        return [line.split(",")[1] for line in lines[1:]]
    return [m.group(1) if (m := re.fullmatch(r"(.+)-\d+:1", line)) else line for line in lines]


def hostfile(mapping_path, out_path):
    """A mapping as smpirun's hostfile: the platform has a host per core,
    `<node>-<k>`; a node's ranks take its hosts in rank order, one `host:1`
    line each."""
    nodes = nodes_of(mapping_path)
    seen = {}
    lines = []
    for n in nodes:
        lines.append(f"{n}-{seen.get(n, 0)}:1\n")
        seen[n] = seen.get(n, 0) + 1
    out_path.write_text("".join(lines))
    return len(nodes)


# smpirun's options for every simulated run (tests/smpi use them too:
# `python3 bench/smpi/validate.py --print-smpi-options`).
SMPI_OPTIONS = [
    # latencies come from the platform (its latency factor), bandwidth as is
    "--cfg=smpi/bw-factor:0:1",
    # a credit-based HPC fabric: fair sharing (no TCP RTT weighting), no ACK traffic
    "--cfg=network/weight-S:0", "--cfg=network/crosstraffic:0", "--cfg=smpi/simulate-computation:no",
    # every flow's share solved again at each event. SimGrid 3.32's default,
    # the lazy update, leaves out the links of flows whose latency ends while
    # flows the other way cross the same node ports, and lets each such flow
    # have a whole link: an exchange between two nodes then ends at once one
    # way (its own check under --log=ker_lmm.thres:debug: "Incorrect value
    # (16000000000 is not smaller than 4000000000)"). SimGrid's documentation
    # says the choice must not change the timings; the full update is the
    # reference. bench/RESULTS.md, "Issue 35, fourth step".
    "--cfg=network/optim:Full",
    # collectives by Open MPI's decision rules, as in the profiled run;
    # SimGrid 3.32's rules reduce then broadcast a small allreduce,
    # where the profiled Open MPI 4.1 doubles recursively
    "--cfg=smpi/coll-selector:ompi", "--cfg=smpi/allreduce:rdb",
    # smpi_execute(s) then takes s on the platform's 1 Gflop/s hosts, however short
    "--cfg=smpi/host-speed:1Gf", "--cfg=smpi/cpu-threshold:0",
    "--log=root.thres:critical",
]


def simulate(app, args, hosts, ranks, env, platform):
    out = run(["smpirun", "-np", str(ranks), "-hostfile", hosts, "-platform", platform, *SMPI_OPTIONS, app, *args],
              env=env)
    words = out.split()
    return float(words[words.index("time") + 1])


def ranks_of(app, args):
    """An app's ranks from its arguments: the irregular app's first, the
    product of the grid's sides for the others."""
    if app == "irregular":
        return int(args[0])
    ranks = 1
    for a in args[: {"halo3d": 3, "wavefront": 2, "fft2d": 2}[app]]:
        ranks *= int(a)
    return ranks


def prepare(name, build, work, spec=None, again=True):
    """A scenario's profile under a real MPI, its SMPI binary and platform:
    what every simulated run of it needs. `spec` is a SCENARIOS entry
    (by default the one of that name). `again=False` takes the profile and
    binaries already in the scenario's folder as they are."""
    machine_path, ppn, app, args, iterations, compute_us, *rest = spec or SCENARIOS[name]
    machine_path = ROOT / machine_path
    machine = tomllib.loads(machine_path.read_text())
    rankmap = build / "cli" / "rankmap"
    ranks = ranks_of(app, args)
    if app == "irregular":  # its ranks are -np's, given first here; no graph communicator under SMPI
        args = ["--world", *args[1:]]
    app_args = [*args, str(iterations)]
    d = work / name
    d.mkdir(parents=True, exist_ok=True)
    profile = d / f"{app}.rmp"
    simulated = d / f"{app}.smpi"
    if again:
        profile_and_build(d, app, ranks, app_args, rankmap, profile, simulated, name)
    return {"name": name, "dir": d, "rankmap": rankmap, "machine_path": machine_path, "machine": machine,
            "ppn": ppn, "app": app, "ranks": ranks, "app_args": app_args, "iterations": iterations,
            "compute_us": compute_us, "before": rest[0] if rest else "block", "profile": profile,
            "simulated": simulated, "platform": platform_file(build, machine),
            "platform_env": platform_env(machine, ppn, machine_path)}


def profile_and_build(d, app, ranks, app_args, rankmap, profile, simulated, name):
    """The app's traffic under a real MPI (no compute: the pattern is the
    same) into `profile`, and its SMPI binary."""
    native = d / f"{app}.openmpi"
    run(["mpicc.openmpi", "-O2", "-I", ROOT / "apps", ROOT / "apps" / f"{app}.c", "-o", native, "-lm"])
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    profile_cmd = [rankmap, "profile", "--mpi", "openmpi", "-o", profile, "--", "mpirun.openmpi", "--oversubscribe",
                   "--mca", "btl", "self,vader", "-np", str(ranks), native, *app_args, "0"]
    r = subprocess.run(profile_cmd, capture_output=True, text=True, env=env)
    # Open MPI 4.1's runtime now and then fails a job whose ranks all
    # finalized ("exiting improperly", open-mpi/ompi#7833): rankmap profile
    # then keeps the whole profile and passes the status on. Use it, and say so.
    if r.returncode != 0:
        if "its profile is whole" not in r.stderr:
            sys.exit(f"validate.py: {' '.join(map(str, profile_cmd))} failed ({r.returncode}):\n"
                     f"{r.stdout[-2000:]}{r.stderr[-2000:]}")
        print(f"validate.py: {name}: the profiling job exited {r.returncode} after MPI_Finalize; its whole profile "
              "is used", file=sys.stderr)
    run(["smpicc", "-O1", "-I", ROOT / "apps", ROOT / "apps" / f"{app}.c", "-o", simulated, "-lm"])


def simulate_mapping(s, mapping, tag):
    """The scenario's simulated time (s) under a mapping file (rankmap's
    csv or a host per rank)."""
    hosts = s["dir"] / f"{tag}.hosts"
    if hostfile(mapping, hosts) != s["ranks"]:
        sys.exit(f"validate.py: {mapping} does not hold {s['ranks']} ranks")
    return simulate(s["simulated"], [*s["app_args"], str(s["compute_us"])], hosts, s["ranks"], s["platform_env"],
                    s["platform"])


def scenario(name, build, work, hop_bytes_engine=False):
    s = prepare(name, build, work)
    d, rankmap, machine_path, machine, ppn = s["dir"], s["rankmap"], s["machine_path"], s["machine"], s["ppn"]
    before, ranks, iterations, compute_us = s["before"], s["ranks"], s["iterations"], s["compute_us"]
    profile = graph = s["profile"]  # --p-mpi below overrides the native run's p_mpi
    # 2. Both mappings. The hop-bytes engine maps the profile's traffic as a
    # plain graph (no kinds): the flow model then does not weigh candidates.
    common = ["-m", machine_path, "--ppn", str(ppn), "-f", "csv", "-q"]
    if hop_bytes_engine:
        graph = d / f"{s['app']}.csv"
        run([rankmap, "convert", profile, "-o", graph])
    run([rankmap, "map", graph, *common, "-o", d / "rankmap.csv", "--seed", "1"])
    graph = profile
    run([rankmap, "map", graph, *common, "--baseline", before, "--seed", "1", "-o", d / "before.csv"])
    # 3. The simulated runs.
    times = {which: simulate_mapping(s, d / f"{which}.csv", which) for which in ("before", "rankmap")}
    # 4-5. Simulated and predicted gain.
    compute_s = iterations * compute_us * 1e-6
    p_mpi = 1 - compute_s / times["before"]
    report = d / "eval.json"
    run([rankmap, "eval", graph, "-m", machine_path, "--ppn", str(ppn), "--mapping", d / "rankmap.csv",
         "--mapping-format", "csv", "--against", d / "before.csv", "--against-format", "csv", "--p-mpi", f"{p_mpi:.6f}", "--json", report, "-q"])
    scores = json.loads(report.read_text())
    comm = scores.get("predicted_comm_ns") or {}
    return {
        # SMPI's communication time: the run less its injected compute.
        "t_comm_before_s": times["before"] - compute_s, "t_comm_rankmap_s": times["rankmap"] - compute_s,
        "predicted_comm_before_s": comm["baseline"] * 1e-9 if comm else None,
        "predicted_comm_rankmap_s": comm["mapping"] * 1e-9 if comm else None,
        "scenario": name, "before": before, "machine": machine.get("name", machine_path.stem), "ranks": ranks, "ppn": ppn,
        "t_before_s": times["before"], "t_rankmap_s": times["rankmap"], "p_mpi": p_mpi,
        "simulated_gain": (times["before"] - times["rankmap"]) / times["before"],
        "predicted_gain": scores["predicted_gain"],
        "gain_model": scores.get("gain_model"),
        "predicted_gain_by_messages": scores.get("predicted_gain_by_messages"),
        "predicted_gain_slowest_sender": scores["predicted_gain_slowest_sender"],
        "predicted_gain_by_bytes": scores["predicted_gain_by_bytes"],
        "predicted_gain_phase": scores["predicted_gain_phase"],
        "predicted_gain_phase_mean": scores["predicted_gain_phase_mean"],
        "phase_model": scores["phase_model"],
        "mean_message_ns": scores["mean_message_ns"],
        "slowest_sender_ns": scores["slowest_sender_ns"],
    }


def within_target(simulated, predicted):
    """Issue 13's bound: where the simulated gain is at least 5 %, within
    20 % of it; below, within 1 percentage point; the sign right on every
    row (a gain within 0.1 point of zero counts as either sign)."""
    miss = abs(predicted - simulated)
    close = miss <= 0.20 * abs(simulated) if abs(simulated) >= 0.05 else miss <= 0.01
    sign = abs(simulated) < 0.001 or abs(predicted) < 0.001 or (simulated > 0) == (predicted > 0)
    return close and sign


def comm_verdict(simulated, predicted):
    """Issue 35: the predicted communication time within 25 % of SMPI's."""
    return "yes" if abs(predicted - simulated) <= 0.25 * simulated else "**no**"


def verdict(row, key):
    return "yes" if within_target(row["simulated_gain"], row[key]) else "**no**"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--only", default=",".join(n for n in SCENARIOS if "-ci" not in n),
                    help="comma-separated scenario names: " + ", ".join(SCENARIOS))
    ap.add_argument("--json", help="also write every figure to this file")
    ap.add_argument("--keep", help="keep the work files in this directory")
    ap.add_argument("--hop-bytes-engine", action="store_true",
                    help="map the traffic as a plain graph, as the engine did before it weighed the flow model: "
                         "checks the model on mappings it would not choose")
    ap.add_argument("--print-smpi-options", action="store_true",
                    help="print the smpirun options of every simulated run, one a line, and stop")
    a = ap.parse_args()
    if a.print_smpi_options:
        print("\n".join(SMPI_OPTIONS))
        return
    names = a.only.split(",")
    for n in names:
        if n not in SCENARIOS:
            sys.exit(f"validate.py: unknown scenario '{n}' (known: {', '.join(SCENARIOS)})")
    with tempfile.TemporaryDirectory(prefix="rankmap-smpi-") as tmp:
        work = Path(a.keep) if a.keep else Path(tmp)
        rows = []
        for n in names:
            print(f"validate.py: {n} ...", file=sys.stderr, flush=True)
            rows.append(scenario(n, Path(a.build).resolve(), work, a.hop_bytes_engine))
    print("| scenario | before | ranks | p_mpi (before) | simulated gain | predicted: flow model (headline) "
          "| by messages | phase model, mean rank | communication before: SMPI, predicted | rankmap's: SMPI, predicted |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        cells = [f"{100 * r[k]:.2f} % ({verdict(r, k)})" for k in
                 ("predicted_gain", "predicted_gain_by_messages", "predicted_gain_phase_mean")]
        for side in ("before", "rankmap"):
            simulated, predicted = r[f"t_comm_{side}_s"], r[f"predicted_comm_{side}_s"]
            cells.append(f"{1e6 * simulated:.0f} us, " +
                         ("none" if predicted is None else
                          f"{1e6 * predicted:.0f} us ({predicted / simulated:.2f}x, {comm_verdict(simulated, predicted)})"))
        print(f"| {r['scenario']} ({r['machine']}) | {r['before']} | {r['ranks']} ({r['ppn']}/node) | {r['p_mpi']:.3f} "
              f"| {100 * r['simulated_gain']:.2f} % | {' | '.join(cells)} |")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
