#!/usr/bin/env bash
# The unit and command-line tests under AddressSanitizer and UBSan, in a
# build directory of their own (build-asan). MPI jobs are left out: the
# sanitizer runtime and the MPI runtimes do not mix; the CLI test's
# `rankmap profile` checks use the regular build's shim (scripts/build.sh
# first). About 17 minutes to build on two cores, which is why CI does not
# run it yet (issue 16, point 5). Exits non-zero on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build build-asan -j2 --target rankmap_unit_tests rankmap_cli
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/scripts/sanitizers.supp:print_suppressions=0
export RANKMAP_SHIM_DIR=$PWD/build/lib
build-asan/tests/rankmap_unit_tests
bash tests/cli/test_cli.sh build-asan/cli/rankmap "$PWD"
