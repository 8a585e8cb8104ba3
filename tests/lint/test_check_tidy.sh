#!/usr/bin/env bash
# check_tidy.sh's keys on a tree of three files (the project's own
# .clang-tidy): a header's change checks exactly the files that include
# it, a clone elsewhere with no build record of its own checks nothing the
# committed record holds, and a seeded finding fails the check.
# Usage: test_check_tidy.sh SOURCE_DIR
set -uo pipefail
root=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# make_tree DIR: the tree, its build folder and compile_commands.json.
make_tree() {
  local dir=$1
  mkdir -p "$dir/libmap/src" "$dir/cli" "$dir/tests/lint" "$dir/build"
  cp "$root/.clang-tidy" "$dir/"
  [ -f "$dir/libmap/src/shared.hpp" ] || printf '#pragma once\ninline int twice(int x) { return 2 * x; }\n' \
    >"$dir/libmap/src/shared.hpp"
  [ -f "$dir/libmap/src/uses.cpp" ] || printf '#include "shared.hpp"\nint four() { return twice(2); }\n' \
    >"$dir/libmap/src/uses.cpp"
  [ -f "$dir/cli/alone.cpp" ] || printf '#include <cassert>\nint three(int x) { assert(x > 0); return 3 * x; }\n' \
    >"$dir/cli/alone.cpp"
  python3 - "$dir" <<'EOF'
import json, sys
d = sys.argv[1]
json.dump([{"directory": d + "/build", "file": d + "/" + f,
            "command": f"c++ -std=c++20 -I{d}/libmap/src -Wall -O2 -o x.o -c {d}/{f}"}
           for f in ("libmap/src/uses.cpp", "cli/alone.cpp")], open(d + "/build/compile_commands.json", "w"))
EOF
}
# checked DIR [MODE]: check_tidy.sh's status in $status, the files it
# checked in $got (one line).
checked() {
  bash "$root/tests/lint/check_tidy.sh" "$1" "$1/build" ${2:-} >"$work/out" 2>&1
  status=$?
  got=$(sed -n 's/^check_tidy: checking //p' "$work/out" | LC_ALL=C sort | tr '\n' ' ')
}

a=$work/a
make_tree "$a"
checked "$a" --record
[ "$status" = 0 ] && [ "$got" = "cli/alone.cpp libmap/src/uses.cpp " ] && [ "$(wc -l <"$a/tests/lint/tidy_clean.txt")" = 2 ] &&
  ok "--record checks both files and records both" || bad "--record: status $status, checked '$got': $(cat "$work/out")"
checked "$a"
[ "$status" = 0 ] && [ -z "$got" ] && ok "nothing changed: nothing checked" || bad "again: status $status, checked '$got'"

# Another clone at another path, its build folder new: the committed
# record alone (keys hold no path) covers both files. assert()'s __FILE__
# in alone.cpp names the path.
b=$work/elsewhere/b
mkdir -p "$b/tests/lint" && cp -r "$a/libmap" "$a/cli" "$b/" && cp "$a/tests/lint/tidy_clean.txt" "$b/tests/lint/"
make_tree "$b"
checked "$b"
[ "$status" = 0 ] && [ -z "$got" ] && ok "a clone elsewhere checks nothing the record holds" ||
  bad "clone: status $status, checked '$got'"

# A header's change: the file that includes it, not the other.
printf '#pragma once\ninline int twice(int x) { return x + x; }\n' >"$a/libmap/src/shared.hpp"
checked "$a"
[ "$status" = 0 ] && [ "$got" = "libmap/src/uses.cpp " ] && ok "a changed header checks its includer only" ||
  bad "header: status $status, checked '$got'"
checked "$a"
[ "$status" = 0 ] && [ -z "$got" ] && ok "the build's record keeps what it found clean" ||
  bad "build record: status $status, checked '$got'"

# A seeded finding in the header (modernize-use-nullptr) fails the check
# and names the check; the file stays unknown, so the next run fails too.
printf '#pragma once\ninline int twice(int x) { return x + x; }\ninline int* none() { return 0; }\n' \
  >"$a/libmap/src/shared.hpp"
checked "$a"
[ "$status" = 1 ] && [ "$got" = "libmap/src/uses.cpp " ] && grep -q "modernize-use-nullptr" "$work/out" &&
  ok "a seeded finding fails, named" || bad "finding: status $status, checked '$got': $(cat "$work/out")"
checked "$a"
[ "$status" = 1 ] && ok "and fails again" || bad "finding again: status $status"
# A NOLINT comment changes the key and the verdict.
printf '#pragma once\ninline int twice(int x) { return x + x; }\ninline int* none() { return 0; }  // NOLINT\n' \
  >"$a/libmap/src/shared.hpp"
checked "$a"
[ "$status" = 0 ] && [ "$got" = "libmap/src/uses.cpp " ] && ok "a NOLINT is part of the key" ||
  bad "NOLINT: status $status, checked '$got'"

echo "test_check_tidy: $passed passed, $failed failed"
[ "$failed" = 0 ]
