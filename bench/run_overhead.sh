#!/usr/bin/env bash
# What rankmap run adds to a 64-rank launch when the job's profile and
# mapping are cached: `rankmap run` (read the machine and the profile, map, write and
# check the launch files, start the launcher, wait) against the launcher
# started by hand with the same rankfile (the command rankmap run --dry-run
# prints), A B A B with farm-bench. 32 fake hosts of this machine's cores
# (tests/launch/fakessh), Open MPI, the ring program of the launch tests.
# Usage: bench/run_overhead.sh BUILD_DIR [RUNS]   (RUNS of the whole launch; 30 s each here)
set -eu
build=$(realpath "$1")
runs=${2:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FAKESSH_TMP=$work RANKMAP_CACHE_DIR=$work/cache
cores=$(lstopo-no-graphics --only core | wc -l)
nodes=$((64 / cores))
lstopo-no-graphics --of xml >node.xml
cat >fake.toml <<TOML
name = "fake"
[network]
dims = [$nodes]
t_hop_ns = 100
t_inj_ns = 400
t_ej_ns = 400
[[nodes]]
hosts = "fake[0-$((nodes - 1))]"
hwloc_xml = "node.xml"
TOML
mpicc.openmpi -O1 -o app "$src/tests/launch/check_placement.c" -lhwloc
hosts=$(for ((i = 0; i < nodes; ++i)); do printf 'fake%d:%d,' "$i" "$cores"; done)
job=(mpirun.openmpi --mca plm_rsh_agent "$src/tests/launch/fakessh" --mca btl self,tcp -np 64 --host "${hosts%,}")
# Profile once (the cache), then the command the mapped run uses.
"$build/cli/rankmap" run -q -m fake.toml --keep first -- "${job[@]}" ./app first/mapping.csv --if-mapped >/dev/null
"$build/cli/rankmap" run -q -m fake.toml --keep kept --dry-run -- "${job[@]}" ./app first/mapping.csv --if-mapped >mapped.sh
echo "by hand: $(cat mapped.sh)"
# rankmap's own part, alone: everything but the launch (--dry-run), against
# a process that does nothing; also with Debian LAMMPS's 64-rank profile on
# the 32-node Desmos torus, whose first mapping takes seconds (the flow
# model times each candidate), from the cache.
"$build/cli/rankmap" run -q -m "$src/data/machines/desmos.toml" --profile "$src/data/profiles/lammps-peptide-64.rmp" \
  --keep lammps --dry-run -- mpirun.openmpi -np 64 ./app >/dev/null
farm-bench -n 20 --vs "true" -- "$build/cli/rankmap" run -q -m "$src/data/machines/desmos.toml" \
  --profile "$src/data/profiles/lammps-peptide-64.rmp" --keep lammps --dry-run -- mpirun.openmpi -np 64 ./app
farm-bench -n 20 --vs "true" -- \
  "$build/cli/rankmap" run -q -m fake.toml --keep dry --dry-run -- "${job[@]}" ./app first/mapping.csv --if-mapped
# The whole launch, with rankmap run and by hand.
farm-bench -n "$runs" --timeout 1800 --vs "sh -c '. ./mapped.sh >/dev/null'" -- \
  "$build/cli/rankmap" run -q -m fake.toml -- "${job[@]}" ./app first/mapping.csv --if-mapped
