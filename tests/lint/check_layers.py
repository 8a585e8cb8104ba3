#!/usr/bin/env python3
"""Each file of libmap includes only its own layer and the layers below it.

The layers, lowest first (docs/design.md, "Layers"):
  core < graph, machine < batch, partition < score, baseline < gen, launch < map < capi
A public header (include/rankmap/) belongs to the layer that implements it.
Exits 1 and names every include that reaches up or sideways."""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve() / "libmap"
RANK = {"core": 0, "graph": 1, "machine": 1, "batch": 2, "partition": 2, "score": 3, "baseline": 3,
        "gen": 4, "launch": 4, "map": 5, "capi": 6}
PUBLIC = {"error": "core", "io": "core", "random": "core", "graph": "graph", "profile": "graph",
          "machine": "machine", "allocation": "machine", "hostlist": "machine", "route": "machine", "dragonfly_route": "machine",
          "site_tree": "machine", "site_import": "machine",
          "mapping": "machine", "batch": "batch", "metrics": "score", "gain": "score", "baseline": "baseline",
          "generate": "gen", "launch": "launch", "context": "map", "map": "map", "reorder": "map", "rankmap": "capi"}


def layer_of_include(path):
    if path.startswith("rankmap/"):
        return PUBLIC.get(pathlib.Path(path).stem, "(a public header not in PUBLIC)")
    return path.split("/")[0]


def main():
    problems = []
    files = sorted(list((ROOT / "src").rglob("*.[ch]pp")) + list((ROOT / "include").rglob("*.h*")))
    for f in files:
        rel = f.relative_to(ROOT)
        own = rel.parts[1] if rel.parts[0] == "src" else PUBLIC.get(f.stem, f"(public header {f.stem}: add it to PUBLIC)")
        if own not in RANK:
            problems.append(f"{rel}: folder '{own}' is in no layer")
            continue
        for n, line in enumerate(f.read_text().splitlines(), 1):
            m = re.match(r'\s*#include "([^"]+)"', line)
            if not m:
                continue
            other = layer_of_include(m.group(1))
            if other not in RANK:
                problems.append(f"{rel}:{n}: includes '{m.group(1)}' of no layer")
            elif other != own and RANK[other] >= RANK[own]:
                problems.append(f"{rel}:{n}: {own} includes {m.group(1)} ({other}, not below it)")
    for p in problems:
        print(p)
    print(f"check_layers: {len(files)} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
