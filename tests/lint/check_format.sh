#!/usr/bin/env bash
# Every C and C++ file of the project is laid out as .clang-format says
# (clang-format 14, Debian 12's): `clang-format --dry-run -Werror` on the
# tree. Fix with: clang-format -i FILE... (the files this prints).
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"
command -v clang-format >/dev/null || { echo "check_format: clang-format not found (scripts/setup.sh installs it)"; exit 1; }
mapfile -t files < <(find libmap cli shim tests apps examples bench \
  -path tests/fuzz/corpus -prune -o -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.hpp' \) -print | sort)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! clang-format --dry-run -Werror "${files[@]}" 2>"$log"; then
  grep -o '^[^:]*:[0-9]*:[0-9]*: error' "$log" | cut -d: -f1 | sort -u | sed 's/^/check_format: not formatted: /'
  exit 1
fi
echo "check_format: ${#files[@]} files formatted as .clang-format says ($(clang-format --version))"
