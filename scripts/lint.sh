#!/usr/bin/env bash
# The static checks, CI's stage after scripts/test.sh (.ci/run): each
# libmap file includes only the layers below it (docs/design.md), every C
# and C++ file is laid out as .clang-format says, no message names a flag
# the library does not know, and .clang-tidy's checks pass over libmap/src
# and cli/ (tests/lint/check_tidy.sh: the files whose preprocessed text is
# not known clean, in tests/lint/tidy_clean.txt or the build's own record).
# Needs scripts/build.sh's build (its compile_commands.json). Exits non-zero
# on any finding.
set -uo pipefail
cd "$(dirname "$0")/.."
[ -f build/compile_commands.json ] || { echo "lint.sh: no build/compile_commands.json; run scripts/build.sh first" >&2; exit 2; }
failed=()
run() {
  local name=$1; shift
  local start=$SECONDS
  if "$@"; then echo "lint.sh: $name passed ($((SECONDS - start)) s)"; else failed+=("$name"); fi
}
run layers python3 tests/lint/check_layers.py .
run format bash tests/lint/check_format.sh .
run messages bash tests/lint/check_messages.sh .
run tidy bash tests/lint/check_tidy.sh . build
[ ${#failed[@]} -eq 0 ] || { echo "lint.sh: FAILED: ${failed[*]}" >&2; exit 1; }
echo "lint.sh: all static checks passed ($SECONDS s)"
