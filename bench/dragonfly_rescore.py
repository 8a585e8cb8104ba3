#!/usr/bin/env python3
"""rankmap builds against the peers' figures that bench/dragonfly.py
already measured: each instance of its results.json files (the first
fourteen, the held-out ones, the third to ninth sets) mapped again by every RANKMAP given, each
figure over the best of block, rr, Scotch and Mt-KaHyPar from those runs.
For engine changes on dragonflies, without running the peers again
(their runs take most of dragonfly.py's 40 minutes).

Usage: bench/dragonfly_rescore.py [--from-profiles] RANKMAP [RANKMAP ...]
Prints, per instance and build, default / best other for hop-bytes, the
busiest link (minimal and adaptive readings) and bytes between groups,
then each build's geometric means and counts behind and ahead.

--from-profiles takes only the real applications' instances, and gives
rankmap each one's profile (data/profiles/NAME.rmp, as its users run it:
message counts and p_mpi let the flow model choose) where the peers had
its graph (.mtx, all they read). A renumbered profile has no .rmp and is
left out.
"""
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from instances import DRAGONFLY_FIGURES as FIGURES, dragonfly_figures, geomean  # noqa: E402

PEERS = ("block", "rr", "Scotch", "Mt-KaHyPar")
RESULTS = [os.path.join(here, "out", d, "results.json") for d in ("dragonfly", "dragonfly-held-out", "dragonfly-third",
                                                                  "dragonfly-fourth", "dragonfly-fifth", "dragonfly-sixth",
                                                                  "dragonfly-seventh", "dragonfly-eighth",
                                                                  "dragonfly-ninth")]


def profile_of(r):
    """The real application's profile an instance's graph was converted
    from (Instances.profile), if there is one."""
    path = os.path.join(os.path.dirname(here), "data", "profiles", os.path.basename(r["graph"])[:-4] + ".rmp")
    return path if os.path.exists(path) else None


def figures(rankmap, r, graph, work):
    """One `rankmap map` of the instance (default preset) from `graph`, its figures."""
    report = os.path.join(work, "report.json")
    # The library beside the binary, in libmap/ under it (a copy made for
    # benches) or beside cli/ (a build tree): without one of these, every
    # build given would load the one its RUNPATH names.
    here_bin = os.path.dirname(os.path.abspath(rankmap))
    env = dict(os.environ, LD_LIBRARY_PATH=":".join(
        [here_bin, os.path.join(here_bin, "libmap"), os.path.join(os.path.dirname(here_bin), "libmap")]))
    subprocess.run([rankmap, "map", graph, "-m", r["machine"], *r["extra"], "-f", "csv", "-o",
                    os.path.join(work, "mapping.csv"), "--json", report, "-q"], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    with open(report) as f:
        return dragonfly_figures(json.load(f))


def main():
    builds = [a for a in sys.argv[1:] if a != "--from-profiles"]
    from_profiles = len(builds) < len(sys.argv) - 1
    if not builds:
        sys.exit("usage: bench/dragonfly_rescore.py [--from-profiles] RANKMAP [RANKMAP ...]")
    ratios = {b: {k: [] for k in FIGURES} for b in builds}
    with tempfile.TemporaryDirectory(prefix="rankmap-rescore-") as work:
        for path in (p for p in RESULTS if os.path.exists(p)):
            with open(path) as f:
                for r in json.load(f):
                    graph = profile_of(r) if from_profiles else r["graph"]
                    if not graph:
                        continue
                    best = {k: min(r[p][k] for p in PEERS if r.get(p)) for k in FIGURES}
                    cells = []
                    for b in builds:
                        got = figures(b, r, graph, work)
                        row = [got[k] / best[k] if best[k] else 1.0 for k in FIGURES]
                        for k, x in zip(FIGURES, row):
                            ratios[b][k].append(x)
                        cells.append(" ".join(f"{x:.3f}" for x in row))
                    print(f"{r['name'][:60]:60s} " + " | ".join(cells), flush=True)
    for b in builds:
        for k in FIGURES:
            v = ratios[b][k]
            print(f"{b} {k}: geometric mean {geomean([max(x, 1e-9) for x in v]):.3f}, behind on "
                  f"{sum(x > 1 for x in v)}, ahead on {sum(x < 1 for x in v)} of {len(v)}")


if __name__ == "__main__":
    main()
