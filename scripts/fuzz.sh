#!/usr/bin/env bash
# Fuzzes every reader with libFuzzer under AddressSanitizer and UBSan
# (tests/fuzz/): builds the harnesses in build-fuzz (CMakePresets.json's
# `fuzz`: the library instrumented for libFuzzer's coverage), then runs each
# for SECONDS (default 60) on a copy of its seed corpus, so that the corpus
# in the tree only grows by hand. Inputs that crash, leak, hang (10 s) or
# take more than 2 GB land in build-fuzz/findings/HARNESS/; copy one into
# tests/fuzz/corpus/HARNESS/ once it is fixed, and ctest and
# scripts/sanitize.sh replay it from then on. Exits 1 when any harness
# found something.
# Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]   (needs clang and libclang-rt-14-dev)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
[ $# -gt 0 ] && shift
build=$root/build-fuzz
all=($(ls "$root/tests/fuzz/corpus"))  # a corpus directory per harness
harnesses=("$@")
[ $# -gt 0 ] || harnesses=("${all[@]}")
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (scripts/setup.sh installs it)" >&2; exit 2; }
cd "$root"
. scripts/configure_args.sh
configure_args "$build"  # Ninja and ccache where installed
mkdir -p "$build"
cmake --preset fuzz -S "$root" "${configure_args[@]}" >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 2; }
cmake --build "$build" -j2 --target "${harnesses[@]/#/fuzz_}" >"$build/build.log" 2>&1 || { tail -40 "$build/build.log"; exit 2; }

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:verify_asan_link_order=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
found=0
for h in "${harnesses[@]}"; do
  work=$build/corpus/$h findings=$build/findings/$h
  mkdir -p "$work" "$findings"
  cp -n "$root/tests/fuzz/corpus/$h"/* "$work/" 2>/dev/null || true
  log=$build/$h.log
  if "$build/tests/fuzz/fuzz_$h" "$work" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1; then
    status=clean
  else
    status="FOUND: $(ls "$findings" | head -3 | tr '\n' ' ')"
    found=1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  echo "fuzz.sh: $h: ${runs:-?} runs in ${seconds} s, corpus $(ls "$work" | wc -l) files, $status"
done
exit $found
