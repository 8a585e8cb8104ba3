#!/usr/bin/env bash
# Installs the Debian 12 packages rankmap needs, skipping those already
# present. Safe to run again; needs root (or sudo).
#   setup.sh           everything the tests need (scripts/test.sh, CI)
#   setup.sh example   only what building the rankmap command needs
#                      (scripts/example.sh)
set -euo pipefail

# The library and the command: enough for scripts/example.sh.
packages=(
  build-essential cmake pkg-config python3
  libmetis-dev libscotch-dev libhwloc-dev libboost-graph-dev libyaml-dev
  libcli11-dev libtomlplusplus-dev nlohmann-json3-dev
  libcairo2-dev   # rankmap plot: PNG, SVG and PDF from one drawing
  ninja-build ccache  # scripts/configure_args.sh: a faster build, and rebuilds from the cache
)
# The tests, the shims, the plugin and the benchmarks' peers.
[ "${1:-}" = example ] || packages+=(
  scotch hwloc libgtest-dev
  openmpi-bin libopenmpi-dev mpich libmpich-dev gfortran
  libsimgrid-dev  # SMPI (smpicc, smpirun): simulated torus runs, bench/smpi
  slurm-wlm       # slurmctld, slurmd, srun: tests/launch/run_slurm_test.sh
  libslurm-dev    # slurm/spank.h: the SPANK plugin (slurm/rankmap_spank.c)
  clang libclang-rt-14-dev  # libFuzzer and the sanitizers: scripts/fuzz.sh
  clang-format clang-tidy   # tests/lint: the layout and the static checks
  help2man man-db           # man pages from --help, and `man` to read them
  libtbb12                  # the Mt-KaHyPar peer binary's runtime: bench/peers.py
  lammps                    # a real application that assumes reorder does nothing: reorder_openmpi_apps
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
