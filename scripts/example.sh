#!/usr/bin/env bash
# Installs what is missing, builds, and maps the bundled example: a 192-rank
# 8x4x6 halo exchange on the Desmos machine (4x2x2x2 torus, 6-core nodes).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh example  # the build's packages only: the tests' come with scripts/test.sh
# Only the command: no tests, shims, fuzz harnesses or man pages.
. scripts/configure_args.sh
configure_args build  # Ninja and ccache where installed
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DRANKMAP_BUILD_TESTS=OFF -DRANKMAP_BUILD_SHIM=OFF \
  "${configure_args[@]}" >/dev/null
cmake --build build --target rankmap_cli -j2
mkdir -p build/example
rankmap=build/cli/rankmap
set -x
"$rankmap" inspect data/machines/desmos.toml
"$rankmap" map data/graphs/stencil-8x4x6.mtx --machine data/machines/desmos.toml \
  --format openmpi -o build/example/stencil.rankfile --json build/example/stencil.json
"$rankmap" eval data/graphs/stencil-8x4x6.mtx --machine data/machines/desmos.toml \
  --mapping build/example/stencil.rankfile
head -3 build/example/stencil.rankfile
