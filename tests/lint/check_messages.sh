#!/usr/bin/env bash
# The library names parameters in its own words; only callers know their
# flags (the CLI's --ppn is the C API's ranks_per_node). No string literal
# in libmap/src may name a command-line flag ("--nodes", "use --format").
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
if grep -rnE '"[^"]*--[a-z][a-z-]*' "$root/libmap/src"; then
  echo "check_messages: libmap/src names command-line flags (above); throw Error(kind, Parameter{name}, ...)"
  exit 1
fi
echo "check_messages: no command-line flag in libmap/src's strings"
