#!/usr/bin/env bash
# The gain model against SimGrid's SMPI, in small (bench/smpi/validate.py
# runs the full table): halo3d on 16 ranks, profiled under Open MPI with the
# shim, mapped by rankmap, then simulated on the 2x2x2 torus of
# tests/data/smpi-2x2x2.toml under block and under rankmap's mapping. The
# predicted gain (rankmap eval's headline, the flow model, p_mpi from the
# simulated block run) must be within validate.py's first target of the
# simulated one: 2 percentage points, or 25 % of the simulated gain.
# Issue 13's stricter bound (within 1 point, and the right sign) is not
# met here yet: the simulated gain is -0.13 %, the flow model's +0.30 %.
# Usage: run_smpi_gain_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$src/bench/smpi/validate.py" --build "$build" --only halo3d-ci --json "$work/gain.json" --keep "$work/files"
python3 - "$work/gain.json" "$src/bench/smpi" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from validate import within_first_target
(row,) = json.load(open(sys.argv[1]))
sim, pred = row["simulated_gain"], row["predicted_gain"]
print(f"simulated {100 * sim:.2f} %, predicted {100 * pred:.2f} % (p_mpi {row['p_mpi']:.3f})")
if not (row["t_block_s"] > 0 and row["t_rankmap_s"] > 0 and 0 < row["p_mpi"] < 1):
    sys.exit("implausible simulated times or p_mpi")
if not within_first_target(sim, pred):
    sys.exit("predicted gain outside the target")
PY
