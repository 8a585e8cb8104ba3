#!/usr/bin/env bash
# Installs what is missing, builds, and maps the bundled example: a 192-rank
# 8x4x6 halo exchange on the Desmos machine (4x2x2x2 torus, 6-core nodes).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
mkdir -p build/example
rankmap=build/cli/rankmap
set -x
"$rankmap" inspect data/machines/desmos.toml
"$rankmap" map data/graphs/stencil-8x4x6.mtx --machine data/machines/desmos.toml \
  --format openmpi -o build/example/stencil.rankfile --json build/example/stencil.json
"$rankmap" eval data/graphs/stencil-8x4x6.mtx --machine data/machines/desmos.toml \
  --mapping build/example/stencil.rankfile
head -3 build/example/stencil.rankfile
