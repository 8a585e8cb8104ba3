#!/usr/bin/env bash
# Configures and builds rankmap in ./build (Release, two jobs: the machines
# here have two cores). RANKMAP_WERROR=ON makes warnings errors (test.sh,
# so CI, sets it).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DRANKMAP_WERROR="${RANKMAP_WERROR:-OFF}" >/dev/null
cmake --build build -j2
