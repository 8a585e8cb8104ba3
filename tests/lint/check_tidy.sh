#!/usr/bin/env bash
# The static checks of .clang-tidy over libmap/src and cli/ (clang-tidy 14,
# Debian 12's), every warning an error. Needs the build's
# compile_commands.json (CMakeLists.txt always writes it).
#
# A full run takes minutes on two cores, so a file is checked only when its
# key (tests/lint/tidy_keys.py: its preprocessed text, its warning flags,
# .clang-tidy and clang-tidy's version number; nothing of the machine) is
# neither in the committed record of clean files (tests/lint/tidy_clean.txt)
# nor in the build's own (BUILD_DIR/tidy_clean.txt, every file found clean
# there). A header's change checks again exactly the files that include it.
#   check_tidy.sh SOURCE_DIR BUILD_DIR           the files not known clean
#   check_tidy.sh SOURCE_DIR BUILD_DIR --all     every file
#   check_tidy.sh SOURCE_DIR BUILD_DIR --record  the files not known clean,
#                                                then on success rewrite
#                                                tests/lint/tidy_clean.txt
# Prints "check_tidy: checking FILE" for each file it checks. Exits 1 on a
# finding, 2 when it cannot run.
set -euo pipefail
src=$(realpath "$1")
build=$(realpath "$2")
mode=${3:-changed}
here=$(cd "$(dirname "$0")" && pwd)
tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
[ -n "$tidy" ] || { echo "check_tidy: clang-tidy not found (scripts/setup.sh installs it)"; exit 2; }
[ -f "$build/compile_commands.json" ] || { echo "check_tidy: no $build/compile_commands.json"; exit 2; }
version=$("$tidy" --version | sed -n 's/.*LLVM version \([0-9][0-9.]*\).*/\1/p' | head -1)
[ -n "$version" ] || { echo "check_tidy: no version number in '$tidy --version'"; exit 2; }
record=$src/tests/lint/tidy_clean.txt
local_record=$build/tidy_clean.txt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 "$here/tidy_keys.py" "$src" "$build" "$src/.clang-tidy" "$version" >"$work/keys" || exit 2
total=$(wc -l <"$work/keys")
if [ "$mode" = --all ]; then
  cut -d' ' -f1 "$work/keys" >"$work/todo"
else
  # By key alone: a file moved or renamed with the same text stays known.
  cat "$record" "$local_record" 2>/dev/null | cut -d' ' -f2 >"$work/known" || true
  awk 'FILENAME == ARGV[1] { known[$1] = 1; next } !($2 in known) { print $1 }' "$work/known" "$work/keys" >"$work/todo"
fi
count=$(wc -l <"$work/todo")
if [ "$count" -gt 0 ]; then
  sed 's/^/check_tidy: checking /' "$work/todo"
  # One clang-tidy per file, two at a time: each file's own verdict, so the
  # clean ones join the build's record even when another has a finding.
  export tidy build work
  cd "$src"
  # shellcheck disable=SC2016
  xargs -P "$(nproc)" -I{} bash -c 'log=$work/$(echo "{}" | tr / _).log
    if "$tidy" -p "$build" --quiet -extra-arg=-Wno-unknown-warning-option "{}" >"$log" 2>&1; then echo "{}" >>"$work/clean"; else echo "{}" >>"$work/findings"; fi' \
    <"$work/todo"
fi
# The build's record: this tree's keys found clean, now or before (a key
# of an older text drops out).
touch "$work/clean" "$work/findings"
awk 'FILENAME == ARGV[1] { clean[$1] = 1; next } FILENAME == ARGV[2] { known[$2] = 1; next }
     ($1 in clean) || ($2 in known)' "$work/clean" <(cat "$local_record" 2>/dev/null || true) "$work/keys" \
  >"$work/local"
mv "$work/local" "$local_record"
if [ -s "$work/findings" ]; then
  for f in $(LC_ALL=C sort "$work/findings"); do
    grep -E 'error:|warning:' "$work/$(echo "$f" | tr / _).log" | sed 's/\x1b\[[0-9;]*m//g' | sort -u
  done
  echo "check_tidy: findings above, in $(wc -l <"$work/findings") of $count files checked"
  exit 1
fi
if [ "$mode" = --record ]; then
  cp "$work/keys" "$record"
  echo "check_tidy: recorded $total clean files in $record"
fi
echo "check_tidy: $count of $total files (libmap/src and cli/) checked, all clean under .clang-tidy; the others are known clean"
