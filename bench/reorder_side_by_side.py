#!/usr/bin/env python3
"""MPI's topology calls with reorder, side by side (issue 31): rankmap's
shim, Open MPI's topo/treematch, and each MPI's own call, on the same
scattered launch of a torus machine.

The machine: 8 fake hosts of 2 cores on a 2x2x2 torus
(tests/data/fake-torus-2x2x2.toml); 16 processes launched from a
seeded random placement of its 16 slots (an Open MPI rankfile, an MPICH
machinefile, one process a slot). The jobs, each profiled by the shim:
  - apps/halo3d.c 4x2x2 periodic, 8 KiB faces: reorder off, and with
    reorder through MPI_Cart_create (`--reorder=cart`) and through
    MPI_Dist_graph_create_adjacent with each face's bytes as weights
    (`--reorder=dist`, the form treematch handles);
  - apps/irregular.c: a random geometric graph, each edge 1-8 KiB, through
    MPI_Dist_graph_create_adjacent with weights, reorder off and on.
The judge is this script, not rankmap: from each run's profile (traffic by
world rank, i.e. by process) and the launch (process -> host) it adds the
point-to-point bytes between hosts and their hop-bytes on the torus (on a
2x2x2 torus the hops between two nodes are the bits their numbers differ
in, whatever the order of the axes).

The halo's optimum, by hand: a process sends 6 faces an iteration, 2 to
its neighbour along each dimension of 2 (both sides are the same process)
and 1 to each of its 2 neighbours along the dimension of 4; a node holds 2
processes, so at most 2 of a process's 6 faces stay in its node: at least
4 x 16 = 64 faces an iteration cross, each at least 1 hop. With 8 KiB
faces and 10 iterations: 5,242,880 bytes and hop-bytes. Pairs along a
dimension of 2, with the ring of 4 pairs laid on a 2x2 face of the torus,
reach it.

Then the time: the halo under SimGrid's SMPI on the same torus (the
platform of bench/smpi, with 20 us of compute an iteration), placed as
launched and as rankmap reorders it (`rankmap reorder`, the shim's own
choice without MPI), against `rankmap eval`'s predicted gain.

Usage: reorder_side_by_side.py [--build DIR] [--seed N] [--json FILE]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "smpi"))
import validate  # noqa: E402  (the SMPI platform's settings and runner)

MACHINE = ROOT / "tests" / "data" / "fake-torus-2x2x2.toml"
HOSTS = [f"fake{i}" for i in range(8)]
HALO = ["4", "2", "2", "1024", "10"]  # 8 KiB faces, 10 iterations
HALO_OPTIMUM = 4 * 16 * 1024 * 8 * 10


def run(cmd, env=None, check=True):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env, timeout=600)
    if check and r.returncode != 0:
        sys.exit(f"reorder_side_by_side: {' '.join(map(str, cmd))} failed ({r.returncode}):\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    return r.stdout + r.stderr


def scattered(seed, work):
    """A seeded random placement of 16 processes on the 16 slots."""
    slots = [(h, c) for h in range(8) for c in range(2)]
    random.Random(seed).shuffle(slots)
    (work / "launch.rankfile").write_text("".join(f"rank {p}=fake{h} slot={c}\n" for p, (h, c) in enumerate(slots)))
    (work / "launch.machinefile").write_text("".join(f"fake{h}:1\n" for h, _ in slots))
    (work / "launch.csv").write_text("rank,host,socket,core,pu\n" + "".join(f"{p},fake{h},0,{c},\n" for p, (h, c) in enumerate(slots)))
    return [h for h, _ in slots]


def judge(profile, host_of):
    """Point-to-point bytes between hosts, and their hop-bytes (bits the
    host numbers differ in), from the shim's text profile."""
    inter = hop_bytes = 0
    rank = None
    for line in profile.read_text().splitlines():
        words = line.split()
        if words and words[0] == "rank":
            rank = int(words[1])
        elif words and words[0] == "p2p" and rank is not None:
            peer, size = int(words[1]), int(words[2])
            hops = bin(host_of[rank] ^ host_of[peer]).count("1")
            if hops:
                inter += size
                hop_bytes += size * hops
    return inter, hop_bytes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--seed", type=int, default=7, help="seed of the scattered launch")
    ap.add_argument("--json", help="also write every figure here")
    args = ap.parse_args()
    build = Path(args.build).resolve()
    rankmap = build / "cli" / "rankmap"
    work = Path(tempfile.mkdtemp(prefix="reorder-sbs-"))
    host_of = scattered(args.seed, work)
    fakessh = ROOT / "tests" / "launch" / "fakessh"
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", FAKESSH_TMP=str(work))
    for mpi, cc in (("openmpi", "mpicc.openmpi"), ("mpich", "mpicc.mpich")):
        for app in ("halo3d", "irregular"):
            run([cc, "-O1", "-I", ROOT / "apps", ROOT / "apps" / f"{app}.c", "-o", work / f"{app}.{mpi}", "-lm"])

    def launch(mpi, name, app_args, rankmap_on, treematch=False):
        profile = work / f"{name}.rmp"
        shim = build / "lib" / f"librankmap-pmpi-{mpi}.so"
        e = dict(env, RANKMAP_PROFILE=str(profile), RANKMAP_MACHINE=str(MACHINE) if rankmap_on else "")
        if mpi == "openmpi":
            cmd = ["mpirun.openmpi", "--mca", "plm_rsh_agent", fakessh, "--mca", "btl", "self,tcp",
                   "--mca", "mpi_yield_when_idle", "true", "-x", f"LD_PRELOAD={shim}", "-x", "RANKMAP_PROFILE",
                   "-x", "RANKMAP_MACHINE", "--host", ",".join(f"{h}:2" for h in HOSTS),
                   "--rankfile", work / "launch.rankfile", "-np", "16"]
            if treematch:
                cmd += ["--mca", "topo", "treematch"]
        else:
            e["LD_PRELOAD"] = str(shim)
            cmd = ["mpiexec.mpich", "-launcher", "ssh", "-launcher-exec", fakessh, "-f", work / "launch.machinefile",
                   "-bind-to", "core", "-n", "16"]
        out = run(cmd + [work / f"{app_args[0]}.{mpi}", *app_args[1:]], env=e)
        inter, hop_bytes = judge(profile, host_of)
        agree = next((l.split("agrees")[1].split(",")[0].strip() for l in out.splitlines() if "agrees" in l), "")
        fallback = next((l for l in out.splitlines() if l.startswith("rankmap: reorder")), "")
        return {"run": name, "mpi": mpi, "inter_node_bytes": inter, "hop_bytes": hop_bytes,
                "neighbours_agree": agree, "fallback": fallback}

    halo_cart = ["halo3d", "--reorder=cart", *HALO]
    halo_dist = ["halo3d", "--reorder=dist", *HALO]
    irregular = ["irregular", "--reorder", "3", "6", "10"]
    rows = [
        launch("openmpi", "halo-openmpi-off", ["halo3d", *HALO], False),
        launch("openmpi", "halo-openmpi-own-cart", halo_cart, False),
        launch("openmpi", "halo-openmpi-treematch-dist", halo_dist, False, treematch=True),
        launch("openmpi", "halo-openmpi-rankmap-cart", halo_cart, True),
        launch("openmpi", "halo-openmpi-rankmap-dist", halo_dist, True),
        launch("mpich", "halo-mpich-own-cart", halo_cart, False),
        launch("mpich", "halo-mpich-rankmap-cart", halo_cart, True),
        launch("mpich", "halo-mpich-rankmap-dist", halo_dist, True),
        launch("openmpi", "irregular-openmpi-off", ["irregular", "3", "6", "10"], False),
        launch("openmpi", "irregular-openmpi-treematch", irregular, False, treematch=True),
        launch("openmpi", "irregular-openmpi-rankmap", irregular, True),
        launch("mpich", "irregular-mpich-own", irregular, False),
        launch("mpich", "irregular-mpich-rankmap", irregular, True),
    ]
    print("| run | inter-node bytes | hop-bytes | MPI_Dist_graph_neighbors agrees | rankmap's fallback line |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['run']} | {r['inter_node_bytes']:,} | {r['hop_bytes']:,} | {r['neighbours_agree']} | {r['fallback']} |")
    print(f"\nThe halo's optimum (by hand): {HALO_OPTIMUM:,} inter-node bytes and hop-bytes.")

    # The time: SMPI, placed as launched and as rankmap reorders it.
    machine = tomllib.loads(MACHINE.read_text())
    run([rankmap, "reorder", "--cart", "4x2x2", "--periods", "1,1,1", "-m", MACHINE, "--mapping", work / "launch.csv",
         "-o", work / "reordered.csv", "-q"])
    simulated = work / "halo3d.smpi"
    run(["smpicc", "-O1", "-I", ROOT / "apps", ROOT / "apps" / "halo3d.c", "-o", simulated])
    platform = str(build / "lib" / "rankmap-smpi-torus.so")
    penv = validate.platform_env(machine, 2)
    iterations, compute_us = int(HALO[4]), 20.0
    times = {}
    for which in ("launch", "reordered"):
        hosts = work / f"{which}.hosts"
        validate.hostfile(work / f"{which}.csv", hosts)
        times[which] = validate.simulate(simulated, [*HALO, str(compute_us)], hosts, 16, penv, platform)
    p_mpi = 1 - iterations * compute_us * 1e-6 / times["launch"]
    run([rankmap, "eval", work / "halo-openmpi-off.rmp", "-m", MACHINE, "--mapping", work / "reordered.csv",
         "--against", work / "launch.csv", "--p-mpi", f"{p_mpi:.6f}", "--json", work / "eval.json", "-q"])
    predicted = json.loads((work / "eval.json").read_text())["predicted_gain"]
    simulated_gain = (times["launch"] - times["reordered"]) / times["launch"]
    print(f"\nSMPI, halo3d {' x '.join(HALO[:3])}, 8 KiB faces, {iterations} iterations of {compute_us:g} us compute:"
          f" {times['launch'] * 1e6:.1f} us as launched, {times['reordered'] * 1e6:.1f} us reordered by rankmap:"
          f" simulated gain {100 * simulated_gain:.1f} %, predicted {100 * predicted:.1f} % (rankmap eval, p_mpi {p_mpi:.3f})")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "halo_optimum": HALO_OPTIMUM, "smpi_us": times,
                                               "simulated_gain": simulated_gain, "predicted_gain": predicted}, indent=1))


if __name__ == "__main__":
    main()
