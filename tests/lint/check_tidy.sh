#!/usr/bin/env bash
# The static checks of .clang-tidy over libmap/src and cli/ (clang-tidy 14,
# Debian 12's), every warning an error. Needs the build's
# compile_commands.json (CMakeLists.txt always writes it).
# Usage: check_tidy.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(realpath "$1")
build=$(realpath "$2")
tidy=$(command -v run-clang-tidy-14 || command -v run-clang-tidy || true)
[ -n "$tidy" ] || { echo "check_tidy: run-clang-tidy not found (scripts/setup.sh installs clang-tidy)"; exit 1; }
[ -f "$build/compile_commands.json" ] || { echo "check_tidy: no $build/compile_commands.json"; exit 1; }
cd "$src"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The files are the compile database's own under libmap/src and cli/.
if ! "$tidy" -p "$build" -j 2 -quiet -extra-arg=-Wno-unknown-warning-option "$src/(libmap/src|cli)/" >"$log" 2>&1; then
  grep -E 'error:|warning:' "$log" | sed 's/\x1b\[[0-9;]*m//g' | sort -u
  echo "check_tidy: findings above"
  exit 1
fi
echo "check_tidy: $(grep -c '"file"' "$build/compile_commands.json") compile commands, libmap/src and cli/ clean under .clang-tidy"
