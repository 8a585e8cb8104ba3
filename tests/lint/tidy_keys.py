#!/usr/bin/env python3
"""The key of each file clang-tidy checks: what its result depends on, and
nothing that depends on the machine.

    tidy_keys.py SOURCE_DIR BUILD_DIR TIDY_CONFIG TIDY_VERSION [FILE...]

prints "FILE KEY" for each file of the build's compile_commands.json under
libmap/src and cli/ (or only the FILEs named). KEY is a hash of:
  - the file's preprocessed text, comments kept for their NOLINTs (the
    compiler's own -E -P -C with the file's command), so a header changes
    the key of exactly the files that include it, directly or not;
  - the warning and language flags of that command (-W..., -std=...);
  - .clang-tidy's text and clang-tidy's version number (never its whole
    --version, which names the CPU).
The source and build directories' absolute paths are written as
placeholders first (assert() expands __FILE__), so a clone anywhere, in
any build directory, gets the same keys.
"""
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys

CHECKED_FOLDERS = ("libmap/src/", "cli/")


def command_words(entry):
    if "arguments" in entry:
        return list(entry["arguments"])
    return shlex.split(entry["command"])


def preprocess_command(words):
    """The compile command as a preprocessor run to standard output, and the
    flags that matter to the checks beyond the text."""
    out, kept = [words[0]], []
    skip_next = False
    for word in words[1:]:
        if skip_next:
            skip_next = False
            continue
        if word in ("-o", "-MF", "-MT", "-MQ"):
            skip_next = True
            continue
        if word in ("-c", "-MD", "-MMD"):
            continue
        out.append(word)
        if (word.startswith("-W") and word != "-Werror") or word.startswith("-std="):
            kept.append(word)
    return out + ["-E", "-P", "-C", "-o", "-"], kept


def key_of(entry, source_dir, build_dir, context):
    words, kept = preprocess_command(command_words(entry))
    done = subprocess.run(words, cwd=entry["directory"], capture_output=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stderr.decode(errors="replace"))
        raise SystemExit(f"tidy_keys: the preprocessor failed on {entry['file']}")
    # Longest first: the build folder is often inside the source folder.
    text = done.stdout
    for path, mark in sorted(((build_dir, b"@BUILD@"), (source_dir, b"@SOURCE@")), key=lambda p: -len(p[0])):
        text = text.replace(path.encode(), mark)
    digest = hashlib.sha1(context)
    digest.update(" ".join(kept).encode() + b"\n")
    digest.update(text)
    return digest.hexdigest()


def main():
    source_dir, build_dir = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    with open(sys.argv[3], "rb") as config:
        context = config.read() + b"\nclang-tidy " + sys.argv[4].encode() + b"\n"
    wanted = set(sys.argv[5:])
    with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    chosen = {}
    for entry in entries:
        name = os.path.relpath(os.path.join(entry["directory"], entry["file"]), source_dir)
        if name.startswith(CHECKED_FOLDERS) and (not wanted or name in wanted):
            chosen.setdefault(name, entry)  # a file built twice is checked once
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        keys = dict(zip(chosen, pool.map(lambda n: key_of(chosen[n], source_dir, build_dir, context), chosen)))
    for name in sorted(keys):
        print(name, keys[name])


if __name__ == "__main__":
    main()
