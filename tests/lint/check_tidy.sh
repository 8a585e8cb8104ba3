#!/usr/bin/env bash
# The static checks of .clang-tidy over libmap/src and cli/ (clang-tidy 14,
# Debian 12's), every warning an error. Needs the build's
# compile_commands.json (CMakeLists.txt always writes it).
#
# A full run takes minutes on two cores (about 4 idle, and past ctest's
# 15 minutes on a loaded machine), so by default only the files that have
# changed since the last full clean run are checked: tests/lint/tidy_clean.txt
# keeps, per file, a hash of its text together with every header of the
# project and .clang-tidy, so a change to any header checks every file again.
#   check_tidy.sh SOURCE_DIR BUILD_DIR           the changed files (ctest tidy)
#   check_tidy.sh SOURCE_DIR BUILD_DIR --all     every file
#   check_tidy.sh SOURCE_DIR BUILD_DIR --record  every file, and on success
#                                                rewrite tidy_clean.txt
set -euo pipefail
src=$(realpath "$1")
build=$(realpath "$2")
mode=${3:-changed}
tidy=$(command -v run-clang-tidy-14 || command -v run-clang-tidy || true)
[ -n "$tidy" ] || { echo "check_tidy: run-clang-tidy not found (scripts/setup.sh installs clang-tidy)"; exit 1; }
[ -f "$build/compile_commands.json" ] || { echo "check_tidy: no $build/compile_commands.json"; exit 1; }
cd "$src"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
clean=tests/lint/tidy_clean.txt
# Every header of the project and the checks themselves, as one hash.
context=$({ find libmap cli -name '*.hpp' -o -name '*.h' | LC_ALL=C sort | xargs cat; cat .clang-tidy; "${tidy%run-clang-tidy*}clang-tidy${tidy##*run-clang-tidy}" --version 2>/dev/null || true; } | sha1sum | cut -c1-40)
key_of() { echo "$1 $(sha1sum <"$1" | cut -c1-40)-$context"; }
# The files are the compile database's own under libmap/src and cli/.
mapfile -t files < <(python3 -c 'import json, os, sys
for e in json.load(open(sys.argv[1])):
    f = os.path.relpath(os.path.join(e["directory"], e["file"]), sys.argv[2])
    if f.startswith(("libmap/src/", "cli/")): print(f)' "$build/compile_commands.json" "$src" | LC_ALL=C sort -u)
todo=()
for f in "${files[@]}"; do
  if [ "$mode" = changed ] && [ -f "$clean" ] && grep -qxF "$(key_of "$f")" "$clean"; then continue; fi
  todo+=("$f")
done
if [ ${#todo[@]} -eq 0 ]; then
  echo "check_tidy: all ${#files[@]} files unchanged since the last clean run ($clean); --all checks them again"
  exit 0
fi
regex=$(printf '%s|' "${todo[@]//./\\.}")
if ! "$tidy" -p "$build" -j 2 -quiet -extra-arg=-Wno-unknown-warning-option "$src/(${regex%|})\$" >"$log" 2>&1; then
  grep -E 'error:|warning:' "$log" | sed 's/\x1b\[[0-9;]*m//g' | sort -u
  echo "check_tidy: findings above"
  exit 1
fi
if [ "$mode" = --record ]; then
  for f in "${files[@]}"; do key_of "$f"; done >"$clean"
  echo "check_tidy: recorded ${#files[@]} clean files in $clean"
fi
echo "check_tidy: ${#todo[@]} of ${#files[@]} files (libmap/src and cli/) clean under .clang-tidy"
