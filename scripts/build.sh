#!/usr/bin/env bash
# Configures and builds rankmap in ./build (Release, two jobs: the machines
# here have two cores). RANKMAP_WERROR=ON makes warnings errors, and
# RANKMAP_HARDENED=ON adds the checks of hardened distribution builds
# (_GLIBCXX_ASSERTIONS, _FORTIFY_SOURCE); test.sh, so CI, sets both.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DRANKMAP_WERROR="${RANKMAP_WERROR:-OFF}" \
      -DRANKMAP_HARDENED="${RANKMAP_HARDENED:-OFF}" >/dev/null
cmake --build build -j2
