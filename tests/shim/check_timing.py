#!/usr/bin/env python3
"""Checks the profile's time in MPI against the program's own clock.

Usage: check_timing.py PROFILE PROGRAM_OUTPUT
  PROGRAM_OUTPUT holds the "timing RANK IN_MPI_S [WAIT_S]" lines of
  tests/shim/timing.c (and communicators.c).

The shim times short point-to-point calls by sampling, so the two agree only
up to a tolerance: 15 % of the program's figure plus 5 ms (the program's
brackets also hold the wrappers' own few instructions, about 20 ns on each
of 62,000 calls, which add 1.2 ms to its side). On a busy machine a call the
shim does not sample can be preempted and its time lost: the rank's wait for
a CPU during the run (WAIT_S, where the program gives it) widens the
tolerance by as much.
"""
import sys

from check_profile import read_profile


def main():
    profile, output = sys.argv[1:3]
    _, ranks, _, _ = read_profile(profile)
    truth, waited = {}, {}
    for line in open(output):
        words = line.split()
        if len(words) in (3, 4) and words[0] == "timing":
            truth[int(words[1])] = float(words[2])
            waited[int(words[1])] = float(words[3]) if len(words) == 4 else 0.0
    if sorted(truth) != list(range(len(ranks))):
        sys.exit(f"{output}: timing lines for ranks {sorted(truth)}, profile has {len(ranks)} ranks")
    problems = []
    for r, info in enumerate(ranks):
        got, want = float(info["mpi_s"]), truth[r]
        ok = abs(got - want) <= 0.15 * want + 0.005 + waited[r]
        print(f"rank {r}: profile {got:.4f} s in MPI, program measured {want:.4f} s, "
              f"waited {waited[r]:.4f} s for a CPU{'' if ok else '  <- off'}")
        if not ok:
            problems.append(r)
    if problems:
        sys.exit(f"{profile}: time in MPI off on ranks {problems}")


if __name__ == "__main__":
    main()
