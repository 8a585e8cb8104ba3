#!/usr/bin/env python3
"""One mapping file's simulated time on a scenario that peers_time.py (or
validate.py) has already run with --keep: its profile, SMPI binary and
platform are used as they are, nothing is profiled or built again.

Usage: bench/smpi/simulate_mapping.py KEEP_DIR SCENARIO MAPPING [TAG] [--iterations N] [--compute-us US]
                                      [--print-output] [--cfg OPTION ...]
  KEEP_DIR  the --keep directory of that run
  MAPPING   a rankmap csv (or a host per rank) for the scenario's ranks
  --iterations, --compute-us  the app run with other iterations or compute
            an iteration than the scenario's (the profile stays the one
            kept: its traffic is the same, its p_mpi is not)
  --print-output  also print the app's own output (a binary built with
            more prints in the kept folder: bench/smpi/wavefront_clocks.patch)
  --cfg     one more SimGrid option, as smpirun's --cfg=OPTION (such as
            surf/precision:1e-12), after validate.py's own
Prints "SCENARIO TAG SECONDS".
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers_time  # noqa: E402
import validate  # noqa: E402


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("work", type=Path)
    ap.add_argument("name")
    ap.add_argument("mapping", type=Path)
    ap.add_argument("tag", nargs="?")
    ap.add_argument("--iterations", type=int)
    ap.add_argument("--compute-us", type=float)
    ap.add_argument("--print-output", action="store_true")
    ap.add_argument("--cfg", action="append", default=[])
    a = ap.parse_args()
    work, name, mapping = a.work, a.name, a.mapping
    tag = a.tag or mapping.stem
    if name not in peers_time.SCENARIOS:
        sys.exit(f"simulate_mapping.py: unknown scenario '{name}'")
    if not (work / name).is_dir():
        sys.exit(f"simulate_mapping.py: {work / name} does not exist (run peers_time.py --keep {work} first)")
    # The kept profile and binaries stand: nothing is profiled or built
    # again (each run profiled the app anew until the twenty-sixth session).
    s = validate.prepare(name, validate.ROOT / "build", work, peers_time.SCENARIOS[name], again=False)
    if a.iterations is not None:
        s["app_args"] = [*s["app_args"][:-1], str(a.iterations)]
    if a.compute_us is not None:
        s["compute_us"] = a.compute_us
    # before the last option, the log's threshold
    validate.SMPI_OPTIONS[-1:-1] = [f"--cfg={c}" for c in a.cfg]
    if a.print_output:
        real_run = validate.run

        def run_and_print(*args, **kw):
            out = real_run(*args, **kw)
            sys.stdout.write(out)
            return out
        validate.run = run_and_print
    print(name, tag, validate.simulate_mapping(s, mapping, tag))


if __name__ == "__main__":
    main()
