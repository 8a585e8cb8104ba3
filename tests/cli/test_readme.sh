#!/usr/bin/env bash
# README's "Commands" block runs as written against the bundled data: each
# command (continuation lines joined, comments dropped) must exit 0 in a
# fresh folder that holds data/ and the built rankmap first on PATH. Lines
# that launch an application (mpirun, srun) are skipped: there is none.
# Usage: test_readme.sh RANKMAP SOURCE_DIR
set -u
rankmap=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
ln -s "$rankmap" "$work/bin/rankmap"
ln -s "$src/data" "$work/data"
cd "$work" || exit 1
# The block: from the line after "## Commands" and its ```sh to the next ```.
python3 - "$src/README.md" >commands.sh <<'PY'
import re, sys
text = open(sys.argv[1]).read()
block = text.split("\n## Commands\n", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
lines, command = [], ""
for line in block.splitlines():
    line = re.sub(r"\s+#.*$", "", line) if not line.lstrip().startswith("#") else ""
    command += line.rstrip("\\").strip() + " " if line.rstrip().endswith("\\") else line.strip()
    if not line.rstrip().endswith("\\"):
        if command.strip():
            lines.append(command.strip())
        command = ""
for c in lines:
    print(c)
PY
passed=0
failed=0
while IFS= read -r command; do
  case $command in mpirun* | srun*) continue ;; esac
  if PATH="$work/bin:$PATH" bash -c "$command" >out.txt 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $command"
    tail -3 out.txt
  fi
done <commands.sh
echo "$passed passed, $failed failed"
[ "$passed" -gt 5 ] && [ "$failed" -eq 0 ]
