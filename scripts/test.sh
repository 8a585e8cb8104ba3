#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit tests, the
# command line, real Open MPI and MPICH launches) in a hardened build
# (_GLIBCXX_ASSERTIONS, _FORTIFY_SOURCE), then the unit and
# command-line tests and the fuzz corpora again under AddressSanitizer and
# UBSan (scripts/sanitize.sh). Exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
export RANKMAP_WERROR=ON    # a warning fails the build here, and so in CI
export RANKMAP_HARDENED=ON  # container bounds checked (_GLIBCXX_ASSERTIONS), as Fedora and RHEL build
# stage NAME COMMAND...: runs it, then says how long it took.
stage() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "test.sh: $name took $((SECONDS - start)) s"
}
stage setup scripts/setup.sh
stage build scripts/build.sh
stage ctest ctest --test-dir build --output-on-failure -j2 --timeout 600
stage sanitize scripts/sanitize.sh
