/* A program that mostly makes and frees communicators (issue 29): the shim
 * times MPI_Comm_dup, _split and _free, and a communicator's slot goes back
 * for reuse when it is freed, so that 300 dup/free cycles with a
 * collective on each stay one call group (the table holds 256).
 *
 *   1. ROUNDS (the argument, default 1,000) rounds of Comm_dup, Comm_split
 *      and two Comm_free, no other call;
 *   2. 300 rounds of Comm_dup, a Barrier on it, Comm_free.
 *
 * Every MPI call is bracketed by the program's own clock; each rank prints
 * "timing RANK IN_MPI_S" for check_timing.py. */
#define _POSIX_C_SOURCE 199309L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "own_clock.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int rounds = argc > 1 ? atoi(argv[1]) : 1000;
  for (int round = 0; round < rounds; ++round) {
    MPI_Comm dup, half;
    TIMED(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    TIMED(MPI_Comm_split(dup, rank % 2, rank, &half));
    TIMED(MPI_Comm_free(&half));
    TIMED(MPI_Comm_free(&dup));
  }
  for (int round = 0; round < 300; ++round) {
    MPI_Comm dup;
    TIMED(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    TIMED(MPI_Barrier(dup));
    TIMED(MPI_Comm_free(&dup));
  }
  printf("timing %d %.6f\n", rank, in_mpi);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
