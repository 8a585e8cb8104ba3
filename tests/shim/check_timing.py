#!/usr/bin/env python3
"""Checks the profile's time in MPI against the program's own clock.

Usage: check_timing.py PROFILE PROGRAM_OUTPUT
  PROGRAM_OUTPUT holds the "timing RANK IN_MPI_S" lines of tests/shim/timing.c.

The shim times short point-to-point calls by sampling, so the two agree only
up to a tolerance: 15 % of the program's figure plus 5 ms (the program's
brackets also hold the wrappers' own few instructions, about 20 ns on each
of 62,000 calls, which add 1.2 ms to its side).
"""
import sys

from check_profile import read_profile


def main():
    profile, output = sys.argv[1:3]
    _, ranks, _, _ = read_profile(profile)
    truth = {}
    for line in open(output):
        words = line.split()
        if len(words) == 3 and words[0] == "timing":
            truth[int(words[1])] = float(words[2])
    if sorted(truth) != list(range(len(ranks))):
        sys.exit(f"{output}: timing lines for ranks {sorted(truth)}, profile has {len(ranks)} ranks")
    problems = []
    for r, info in enumerate(ranks):
        got, want = float(info["mpi_s"]), truth[r]
        ok = abs(got - want) <= 0.15 * want + 0.005
        print(f"rank {r}: profile {got:.4f} s in MPI, program measured {want:.4f} s{'' if ok else '  <- off'}")
        if not ok:
            problems.append(r)
    if problems:
        sys.exit(f"{profile}: time in MPI off on ranks {problems}")


if __name__ == "__main__":
    main()
