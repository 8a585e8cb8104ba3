#!/usr/bin/env bash
# README's command blocks run as written against the bundled data: every
# ```sh block from "## Commands" on, in order, in one fresh folder that
# holds data/ (a block may use what an earlier one wrote), continuation
# lines joined and comments dropped; each rankmap command must exit 0 with
# the built rankmap first on PATH. What cannot run here is skipped and
# listed: lines that start an application or a launcher (mpirun, srun,
# LD_PRELOAD=..., a compiler, lstopo), `rankmap profile` and `rankmap run`
# (they launch one), and commands that name files only a user has (an
# application's app.rmp, a cluster.toml) or placeholders ("...", "[...]").
# A `rankmap map` of the engine's own (no --baseline) must not print that
# its mapping is predicted slower than block.
# Usage: test_readme.sh RANKMAP SOURCE_DIR
set -u
rankmap=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/docs/img"
ln -s "$rankmap" "$work/bin/rankmap"
ln -s "$src/data" "$work/data"
cd "$work" || exit 1
python3 - "$src/README.md" >commands.sh <<'PY'
import re, sys
text = open(sys.argv[1]).read().split("\n## Commands\n", 1)[1]
for block in re.findall(r"```sh\n(.*?)```", text, re.S):
    command = ""
    for line in block.splitlines():
        line = re.sub(r"\s+#.*$", "", line) if not line.lstrip().startswith("#") else ""
        command += line.rstrip().rstrip("\\").strip() + " " if line.rstrip().endswith("\\") else line.strip()
        if not line.rstrip().endswith("\\"):
            if command.strip():
                print(command.strip())
            command = ""
PY
passed=0
failed=0
skipped=0
while IFS= read -r command; do
  case $command in
    "rankmap profile"* | "rankmap run"*) runs=no ;;
    *"..."* | *" [-"* | *cluster.toml* | *app.rmp*) runs=no ;;
    rankmap*) runs=yes ;;
    *) runs=no ;;
  esac
  if [ $runs = no ]; then
    skipped=$((skipped + 1))
    echo "skipped: $command"
  elif PATH="$work/bin:$PATH" bash -c "$command" >out.txt 2>&1; then
    # A mapping the engine writes is never predicted slower than block.
    case $command in
      "rankmap map "*) if [[ $command != *--baseline* ]] && grep -q "slower than block" out.txt; then
          failed=$((failed + 1)); echo "FAIL (predicted slower than block): $command"; grep "slower" out.txt
          continue
        fi ;;
    esac
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $command"
    tail -3 out.txt
  fi
done <commands.sh
echo "$passed passed, $failed failed, $skipped skipped"
[ "$passed" -gt 15 ] && [ "$failed" -eq 0 ]
