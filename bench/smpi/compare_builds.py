#!/usr/bin/env python3
"""Two builds' `default` mappings on peers_time.py's scenarios, simulated
where they differ: for a change to the engine, judged on the scenarios
already reported, without running the peers again.

Each scenario is profiled again under Open MPI (its traffic is the same
run to run), mapped by both builds as peers_time.py maps `default` (at
the run's p_mpi, from block's simulated time), and the files compared
byte for byte; where they differ, both run under SMPI.
With --fewer-ranks-than-slots only the scenarios whose ranks leave
slots free (where the node choice has a say) are taken.

With --reuse, a scenario whose folder under --keep already holds its
profile and SMPI binary (from this script or peers_time.py) takes them
as they are, unprofiled.

Usage: compare_builds.py BEFORE_BUILD AFTER_BUILD [--only NAME,...] [--fewer-ranks-than-slots] [--keep DIR] [--reuse]
Prints a line a scenario: "NAME same" or "NAME before_ms after_ms after/before".
"""
import argparse
import filecmp
import os
import sys
import tempfile
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers_time  # noqa: E402
import validate  # noqa: E402


def fewer_ranks_than_slots(spec):
    machine_path, ppn, app, args = spec[:4]
    machine = tomllib.loads((validate.ROOT / machine_path).read_text())
    nodes = sum(len(validate.expand_hostlist(g["hosts"])) for g in machine["nodes"])
    return validate.ranks_of(app, args) < nodes * ppn


def run_p_mpi(s):
    """The run's p_mpi, as peers_time.py gives it to the presets: block's
    simulated run outside its compute. The profile's own is the native
    run's, which computes nothing, and the pipeline and program models
    solve their compute from p_mpi (until the twenty-sixth session this
    script mapped without it)."""
    block = s["dir"] / "block.csv"
    validate.run([s["rankmap"], "map", s["profile"], "-m", s["machine_path"], "--ppn", str(s["ppn"]), "-f", "csv",
                  "-q", "--seed", "1", "--baseline", "block", "-o", block])
    return 1 - s["iterations"] * s["compute_us"] * 1e-6 / validate.simulate_mapping(s, block, "block")


def default_mapping(s, build, out, p_mpi):
    """`default` by the build's own library: a copied build's rankmap has
    the build tree's libmap/ as its RUNPATH, which LD_LIBRARY_PATH overrides."""
    env = dict(os.environ, LD_LIBRARY_PATH=str(build / "libmap"))
    validate.run([build / "cli" / "rankmap", "map", s["profile"], "-m", s["machine_path"], "--ppn", str(s["ppn"]),
                  "-f", "csv", "-q", "--seed", "1", "--preset", "default", "--p-mpi", f"{p_mpi:.6f}", "-o", out],
                 env=env)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--only", help="comma-separated scenario names")
    ap.add_argument("--fewer-ranks-than-slots", action="store_true")
    ap.add_argument("--keep", help="keep the work files in this directory")
    ap.add_argument("--reuse", action="store_true", help="take the profiles already kept in --keep's folders")
    a = ap.parse_args()
    if a.reuse and not a.keep:
        sys.exit("compare_builds.py: --reuse takes the profiles kept in --keep DIR: give it")
    names = a.only.split(",") if a.only else list(peers_time.SCENARIOS)
    for n in names:
        if n not in peers_time.SCENARIOS:
            sys.exit(f"compare_builds.py: unknown scenario '{n}'")
    if a.fewer_ranks_than_slots:
        names = [n for n in names if fewer_ranks_than_slots(peers_time.SCENARIOS[n])]
    with tempfile.TemporaryDirectory(prefix="rankmap-compare-builds-") as tmp:
        work = Path(a.keep) if a.keep else Path(tmp)
        for n in names:
            spec = peers_time.SCENARIOS[n]
            app = spec[2]
            kept = a.reuse and (work / n / f"{app}.rmp").exists() and (work / n / f"{app}.smpi").exists()
            s = validate.prepare(n, a.after.resolve(), work, spec, again=not kept)
            p_mpi = run_p_mpi(s)
            before = default_mapping(s, a.before.resolve(), s["dir"] / "default-before.csv", p_mpi)
            after = default_mapping(s, a.after.resolve(), s["dir"] / "default-after.csv", p_mpi)
            if filecmp.cmp(before, after, shallow=False):
                print(f"{n} same", flush=True)
                continue
            t0 = validate.simulate_mapping(s, before, "default-before")
            t1 = validate.simulate_mapping(s, after, "default-after")
            print(f"{n} {1e3 * t0:.4f} {1e3 * t1:.4f} {t1 / t0:.4f}", flush=True)


if __name__ == "__main__":
    main()
