#!/usr/bin/env bash
# The unit tests, the command-line tests (test_cli.sh, test_hardening.sh)
# and every fuzz corpus replayed (ctest's labels unit and sanitize) under
# AddressSanitizer, UBSan and _GLIBCXX_ASSERTIONS (clang), in a build
# directory of their own (build-sanitize: CMakePresets.json's `sanitize`,
# without libFuzzer's coverage, which only fuzzing needs: scripts/fuzz.sh
# builds build-fuzz). MPI jobs are left out: the sanitizer runtime and the
# MPI runtimes do not mix; the CLI test's `rankmap profile` checks use the
# regular build's shim (scripts/build.sh first). scripts/test.sh, and so
# CI, runs it. Exits non-zero on any finding.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-sanitize
command -v clang++ >/dev/null || { echo "sanitize.sh: clang++ not found (scripts/setup.sh installs it)" >&2; exit 2; }
# The build links the sanitizers' shared runtime, as the library is a
# shared library built with --no-undefined (rpath: Debian 12's clang 14).
cd "$root"
. scripts/configure_args.sh
configure_args "$build"  # Ninja and ccache where installed
mkdir -p "$build"
cmake --preset sanitize -S "$root" -DRANKMAP_WERROR="${RANKMAP_WERROR:-OFF}" "${configure_args[@]}" \
  >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 2; }
harnesses=($(ls "$root/tests/fuzz/corpus"))  # a corpus directory per harness
targets=("${harnesses[@]/#/fuzz_}" rankmap_unit_tests rankmap_cli)
cmake --build "$build" -j2 --target "${targets[@]}" >"$build/build.log" 2>&1 || { tail -40 "$build/build.log"; exit 2; }

# verify_asan_link_order: the runtime is shared and comes after libc here.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:verify_asan_link_order=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$root/scripts/sanitizers.supp:print_suppressions=0
export RANKMAP_SHIM_DIR=$root/build/lib
# ctest's labels unit and sanitize: each unit test, the CLI and hardening
# scripts and each fuzz corpus's replay, two at a time.
if ! ctest --test-dir "$build" -L '^(unit|sanitize)$' -j2 --timeout 900 --output-on-failure >"$build/ctest.log" 2>&1; then
  grep -E "Failed|Exception|\*\*\*|tests passed" "$build/ctest.log" | tail -40
  echo "sanitize.sh: FOUND (full log: $build/ctest.log)"
  exit 1
fi
echo "sanitize.sh: $(sed -n 's/.*tests failed out of \([0-9]*\)/\1/p' "$build/ctest.log") tests clean under ASan and UBSan: the unit tests, the CLI tests and ${#harnesses[@]} fuzz corpora"
