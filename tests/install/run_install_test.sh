#!/usr/bin/env bash
# The installed package, as a scheduler's build would use it:
#  - `cmake --install` into a temporary prefix;
#  - the shared library exports only rankmap_* and rankmap:: names (nm -D),
#    every function of rankmap.h among them, and has a SONAME;
#  - examples/slurm_hostfile.c builds as strict C99 with pkg-config, and in
#    a separate CMake project with find_package(rankmap);
#  - both write the same SLURM_HOSTFILE and SLURM_CPU_BIND as the installed
#    CLI's `rankmap map -f slurm` for the same inputs;
#  - a bad node list gives exit 1, one line on stderr, and no file;
#  - `man rankmap` and `man rankmap-map` show the installed pages, which
#    list every sub-command and every option of `rankmap map --help`.
# Usage: run_install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null
lib=$(find "$work/prefix" -name librankmap.so -print -quit)
[ -n "$lib" ] || fail "no librankmap.so installed"
libdir=$(dirname "$lib")
[ -f "$libdir/pkgconfig/rankmap.pc" ] || fail "no rankmap.pc"
[ -f "$libdir/cmake/rankmap/rankmapConfig.cmake" ] || fail "no CMake package"
[ -f "$work/prefix/include/rankmap/rankmap.h" ] || fail "no rankmap.h"

# Man pages, read by man itself from the installed prefix.
mandir=$work/prefix/share/man
[ -f "$mandir/man1/rankmap.1" ] || fail "no rankmap.1 installed"
MANPATH=$mandir MANWIDTH=200 man rankmap >"$work/man.txt" 2>"$work/man.err" || fail "man rankmap: $(cat "$work/man.err")"
grep -q '^NAME' "$work/man.txt" || fail "man rankmap has no NAME section"
"$build/cli/rankmap" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NF {print $1}' | grep -v Subcommands: >"$work/subs"
while read -r sub; do
  grep -q "^ *$sub " "$work/man.txt" || grep -q "^ *$sub\$" "$work/man.txt" || fail "man rankmap does not list '$sub'"
  [ -f "$mandir/man1/rankmap-$sub.1" ] || fail "no rankmap-$sub.1"
done <"$work/subs"
MANPATH=$mandir MANWIDTH=200 man rankmap-map >"$work/man-map.txt" 2>/dev/null || fail "man rankmap-map"
"$build/cli/rankmap" map --help | grep -o -- '--[a-z][a-z-]*' | sort -u >"$work/map-flags"
while read -r flag; do
  grep -q -- "$flag" "$work/man-map.txt" || fail "man rankmap-map does not mention $flag"
done <"$work/map-flags"
echo "man pages: rankmap and $(wc -l <"$work/subs") sub-commands; rankmap-map lists $(wc -l <"$work/map-flags") flags"

# Exported names.
readelf -d "$lib" | grep -q 'SONAME.*\[librankmap\.so\.0\]' || fail "SONAME is not librankmap.so.0"
nm -D --defined-only "$lib" | awk '{print $3}' | c++filt >"$work/exported"
outside=$(grep -Ev '^(rankmap_[a-z_]+|rankmap::.*|(typeinfo|typeinfo name|vtable) for rankmap::.*)$' "$work/exported" || true)
[ -z "$outside" ] || fail "exported outside the rankmap names: $(echo "$outside" | head -5 | tr '\n' ' ')"
grep -o '\brankmap_[a-z_]*(' "$src/libmap/include/rankmap/rankmap.h" | tr -d '(' | sort -u >"$work/declared"
missing=$(comm -23 "$work/declared" <(grep -E '^rankmap_' "$work/exported" | sort -u))
[ -z "$missing" ] || fail "declared in rankmap.h but not exported: $missing"
echo "exports: $(wc -l <"$work/exported") names, $(wc -l <"$work/declared") C functions, none outside rankmap"

# Two consumers.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -pedantic -Werror $(pkg-config --cflags rankmap) "$src/examples/slurm_hostfile.c" \
  $(pkg-config --libs rankmap) -o "$work/pc_consumer"
cmake -S "$src/tests/install/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DEXAMPLE_SOURCE="$src/examples/slurm_hostfile.c" >/dev/null
cmake --build "$work/cmake" >/dev/null
export LD_LIBRARY_PATH="$libdir"

machine=$src/data/machines/desmos.toml
graph=$src/data/graphs/stencil-8x4x6.mtx
"$work/prefix/bin/rankmap" map "$graph" -m "$machine" --nodes 'node[00-31]' -f slurm -o "$work/cli.hosts" -q >/dev/null
for consumer in "$work/pc_consumer" "$work/cmake/slurm_hostfile"; do
  name=$(basename "$consumer")
  SLURM_JOB_NODELIST='node[00-31]' "$consumer" "$machine" "$graph" "$work/$name.hosts" >"$work/$name.out"
  cmp -s "$work/$name.hosts" "$work/cli.hosts" || fail "$name: SLURM_HOSTFILE differs from the CLI's"
  cmp -s "$work/$name.hosts.env" "$work/cli.hosts.env" || fail "$name: SLURM_CPU_BIND differs from the CLI's"
  bind=$(sed -n 's/^SLURM_CPU_BIND=//p' "$work/cli.hosts.env")
  grep -qx "srun --distribution=arbitrary --cpu-bind=$bind ./app" "$work/$name.out" || fail "$name: --cpu-bind line"
  echo "$name: same hostfile and binding as the CLI ($(wc -l <"$work/$name.hosts") ranks)"
done

# A node list with a host the machine does not have.
if "$work/pc_consumer" "$machine" "$graph" "$work/bad.hosts" 'node[00-31],nodeX' 2>"$work/err"; then
  fail "an unknown host was accepted"
fi
[ "$(wc -l <"$work/err")" = 1 ] && grep -q 'nodeX' "$work/err" || fail "error message: $(cat "$work/err")"
[ ! -e "$work/bad.hosts" ] && [ ! -e "$work/bad.hosts.env" ] || fail "a file was left after an error"
echo "bad node list: $(cat "$work/err")"
