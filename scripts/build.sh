#!/usr/bin/env bash
# Configures and builds rankmap in ./build (Release, two jobs: the machines
# here have two cores; Ninja and ccache where installed). RANKMAP_WERROR=ON
# makes warnings errors, and RANKMAP_HARDENED=ON adds the checks of hardened
# distribution builds (_GLIBCXX_ASSERTIONS, _FORTIFY_SOURCE); test.sh, so
# CI, sets both.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/configure_args.sh
configure_args build  # Ninja and ccache where installed
# Tests and shims on, whatever an earlier scripts/example.sh left in the cache.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DRANKMAP_WERROR="${RANKMAP_WERROR:-OFF}" \
      -DRANKMAP_HARDENED="${RANKMAP_HARDENED:-OFF}" -DRANKMAP_BUILD_TESTS=ON -DRANKMAP_BUILD_SHIM=ON \
      "${configure_args[@]}" >/dev/null
cmake --build build -j2
