# What the command-line test scripts share, sourced with their arguments
# RANKMAP SOURCE_DIR: $rankmap and $src, a work directory of their own (the
# current one, removed at exit), $desmos, pass and fail counts, a JSON
# reader, and expect_error.
set -u
rankmap=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
desmos=$src/data/machines/desmos.toml
# A batch job's allocation is read by every command: the tests run the
# same inside a Slurm or PBS job as outside one.
unset PBS_NODEFILE
for v in ${!SLURM_@}; do unset "$v"; done
passed=0
failed=0
# json FILE KEY.PATH: one value of a JSON report.
json() { python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v = v[k]
print(v)' "$1" "$2"; }

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# expect_error NAME EXPECTED_TEXT OUTPUT_FILE -- rankmap args...
# The command must exit non-zero, print exactly one line on stderr that
# contains EXPECTED_TEXT, and leave OUTPUT_FILE (and its companions) absent.
expect_error() {
  local name=$1 want=$2 out=$3
  shift 4
  rm -f "$out" "$out".* 2>/dev/null
  "$rankmap" "$@" >stdout.txt 2>stderr.txt
  local rc=$?
  local lines
  lines=$(wc -l <stderr.txt)
  if [ $rc -eq 0 ]; then bad "$name: exit 0"; return; fi
  if [ "$lines" -ne 1 ]; then bad "$name: $lines lines on stderr: $(cat stderr.txt)"; return; fi
  if ! grep -qF -- "$want" stderr.txt; then bad "$name: expected '$want', got: $(cat stderr.txt)"; return; fi
  if ls "$out"* >/dev/null 2>&1; then bad "$name: left $(ls "$out"*)"; return; fi
  # No scores on stdout either: a failed command shows nothing but its error.
  if [ -s stdout.txt ]; then bad "$name: printed on stdout: $(head -c 200 stdout.txt)"; return; fi
  ok
}

