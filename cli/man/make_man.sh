#!/usr/bin/env bash
# Writes the man pages of rankmap and of each of its sub-commands into
# OUT_DIR, from their --help output (Debian's help2man): rankmap.1,
# rankmap-map.1, ... The sub-commands and their one-line descriptions are
# read from `rankmap --help`, so a new sub-command gets its page.
# Usage: make_man.sh RANKMAP VERSION OUT_DIR
set -euo pipefail
rankmap=$1 version=$2 out=$3
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "  map    Compute a mapping ..." lines after "Subcommands:".
mapfile -t commands < <("$rankmap" --help | sed -n '/^Subcommands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\)  *\(.*\)$/\1\t\2/p')
[ ${#commands[@]} -gt 0 ] || { echo "make_man.sh: no sub-commands in '$rankmap --help'" >&2; exit 1; }

see_also="$work/see_also.h2m"
{
  # The variables rankmap, its shim and bind-task read (README: Slurm,
  # reordering inside the job, rankmap run's cache).
  cat <<'H2M'
[ENVIRONMENT]
.TP
.B SLURM_JOB_NODELIST, SLURM_NTASKS_PER_NODE, SLURM_TASKS_PER_NODE, SLURM_NTASKS, SLURM_CPUS_PER_TASK
Inside a Slurm job: the nodes, ranks per node (each node's own with uneven counts), ranks and CPUs a rank,
unless --nodes, --ppn, -np or --cpus-per-rank say otherwise. SLURM_JOB_ID: the CPUs the job holds on each
node, from scontrol show job -d. SLURM_PROCID and SLURMD_NODENAME: the task rankmap bind-task binds.
.TP
.B PBS_NODEFILE
Inside a PBS or Torque job: a host a line, once per slot; a host's lines are its ranks.
.TP
.B RANKMAP_MACHINE
The machine file (TOML) the shim reorders by, in a job's MPI topology calls (rankmap run --reorder sets it).
.TP
.B RANKMAP_HOST
The host the shim takes a process to run on, where MPI_Get_processor_name would not say (fake hosts).
.TP
.B RANKMAP_PROFILE
The profile the shim writes when the job ends (rankmap profile and run set it).
.TP
.B RANKMAP_CACHE_DIR, XDG_CACHE_HOME, HOME
rankmap run's cache: $RANKMAP_CACHE_DIR, else $XDG_CACHE_HOME/rankmap, else ~/.cache/rankmap (--cache overrides).
.TP
.B RANKMAP_SHIM_DIR
Where rankmap run and profile look for the shim first (librankmap-pmpi-openmpi.so, -mpich.so).
.TP
.B TMPDIR
Where rankmap run makes its folder of launch files when --keep is not given.
H2M
  echo "[SEE ALSO]"
  echo ".BR rankmap (1),"
  for c in "${commands[@]}"; do echo ".BR rankmap-${c%%$'\t'*} (1),"; done | sed '$ s/,$//'
  echo ".PP"
  echo "The data flow, the engine and every file format: docs/design.md and docs/formats.md in the"
  echo "source tree."
} >"$see_also"

lowercase_first() { echo "$(echo "${1:0:1}" | tr '[:upper:]' '[:lower:]')${1:1}"; }

help2man --no-info --version-string="$version" --include="$see_also" \
  --name="$(lowercase_first "$("$rankmap" --help | head -1 | sed 's/^rankmap: //')")" \
  --output="$out/rankmap.1" "$rankmap"

for c in "${commands[@]}"; do
  name=${c%%$'\t'*} what=${c#*$'\t'}
  # help2man names a page after the program it runs: a wrapper per sub-command.
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$rankmap" "$name" >"$work/rankmap-$name"
  chmod +x "$work/rankmap-$name"
  help2man --no-info --version-string="$version" --include="$see_also" --name="$(lowercase_first "$what")" \
    --output="$out/rankmap-$name.1" "$work/rankmap-$name"
done
echo "make_man.sh: $(( ${#commands[@]} + 1 )) pages in $out"
