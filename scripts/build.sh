#!/usr/bin/env bash
# Configures and builds rankmap in ./build (Release, two jobs: the machines
# here have two cores).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2
