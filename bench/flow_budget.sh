#!/usr/bin/env bash
# Issue 29, point 2: a profile built to make the old collective-rounds
# simulator do 10^10 steps (16,000 ranks, one call of 625,000 rounds that
# carry no bytes: it copied every rank's ready time each round), timed by
# `rankmap eval` against the same eval of a profile without collectives,
# in farm-bench pairs.
# Usage: bench/flow_budget.sh [BUILD_DIR]   (writes into a temporary directory)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rankmap=$(realpath "${1:-$root/build}")/cli/rankmap
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$rankmap" machine new -o m.toml --dims 16x16 --hosts 'n[000-255]' --hwloc 'package:1 core:64' --link-gbps 100 >/dev/null
python3 - <<'PY'
ranks, rounds = 16000, 625000
def profile(path, rank0_lines):
    with open(path, "w") as f:
        f.write(f"rankmap-profile 2\nranks {ranks}\nwall_s 1\np_mpi 0.5\nincomplete_ranks 0\n")
        for r in range(ranks):
            f.write(f"rank {r} host n{r // 64:03d} wall_s 1 mpi_s 0.5\n")
            f.write(f"p2p {(r + 1) % ranks} 4096 10\n")
            if r == 0:
                f.writelines(rank0_lines)
        f.write("end\n")
steps = [f"coll 64 0 {rounds}\n", "call bcast_binomial 0 1 0\n"] + [f"step {k} 64 0 1\n" for k in range(rounds)]
profile("rounds.rmp", steps)
profile("plain.rmp", [])
PY
"$rankmap" map plain.rmp -m m.toml --baseline block -o block.rf -q >/dev/null
ls -l rounds.rmp plain.rmp | awk '{print $5, $9}'
/usr/bin/time -f "eval rounds.rmp: %e s, %M KB" "$rankmap" eval rounds.rmp -m m.toml --mapping block.rf | grep "predicted gain"
farm-bench -n 5 --timeout 600 --vs "$rankmap eval plain.rmp -m m.toml --mapping block.rf -q" \
  -- "$rankmap" eval rounds.rmp -m m.toml --mapping block.rf -q
