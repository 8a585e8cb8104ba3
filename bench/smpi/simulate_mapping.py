#!/usr/bin/env python3
"""One mapping file's simulated time on a scenario that peers_time.py (or
validate.py) has already run with --keep: its profile, SMPI binary and
platform are used as they are, nothing is profiled or built again.

Usage: bench/smpi/simulate_mapping.py KEEP_DIR SCENARIO MAPPING [TAG]
  KEEP_DIR  the --keep directory of that run
  MAPPING   a rankmap csv (or a host per rank) for the scenario's ranks
Prints "SCENARIO TAG SECONDS".
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers_time  # noqa: E402
import validate  # noqa: E402


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    work, name, mapping = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    tag = sys.argv[4] if len(sys.argv) > 4 else mapping.stem
    if name not in peers_time.SCENARIOS:
        sys.exit(f"simulate_mapping.py: unknown scenario '{name}'")
    if not (work / name).is_dir():
        sys.exit(f"simulate_mapping.py: {work / name} does not exist (run peers_time.py --keep {work} first)")
    real_run = validate.run
    validate.run = lambda *a, **k: None  # the kept profile and binaries stand
    try:
        s = validate.prepare(name, validate.ROOT / "build", work, peers_time.SCENARIOS[name])
    finally:
        validate.run = real_run
    print(name, tag, validate.simulate_mapping(s, mapping, tag))


if __name__ == "__main__":
    main()
