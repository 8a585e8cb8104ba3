#!/usr/bin/env bash
# The developers' loop: builds what changed (scripts/build.sh: Ninja and
# ccache where installed), then runs the unit tests and the command's own
# tests (ctest labels unit and cli: no MPI, Slurm or sanitizer), two at a
# time. Minutes after a one-file change; scripts/test.sh runs everything.
# Extra arguments go to ctest (-R Threads, --rerun-failed, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir build -L 'unit|cli' -j2 --timeout 300 --output-on-failure "$@"
