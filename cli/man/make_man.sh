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
