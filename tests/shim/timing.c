/* Time in MPI, measured by the program itself, to check the shim's
 * estimate (which samples short point-to-point calls). Every MPI call of
 * the timed part is bracketed by the program's own clock, a loop of short
 * calls as a whole (a clock read costs 40 ns here, as much as the calls
 * themselves); each rank prints "timing RANK IN_MPI_S" and the checker
 * compares it with the profile.
 *
 * Phases, each a pattern the shim times differently:
 *   1. a stream of 60,000 short MPI_Iprobe calls (sampled, one in 64);
 *   2. 200 rounds of unequal work, then a ring MPI_Sendrecv that waits for
 *      the slower neighbour, then 10 short MPI_Iprobe (waits keep every
 *      call timed);
 *   3. rank 0 works 0.2 s while the others wait in MPI_Barrier (collectives
 *      are always timed).
 *
 * On a busy machine a call the shim does not sample can be preempted, and
 * its time is then lost to the estimate: each rank also prints how long it
 * waited for a CPU meanwhile (/proc/thread-self/schedstat, the run-queue
 * wait), which the checker adds to its tolerance. */
#define _POSIX_C_SOURCE 199309L
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#include "own_clock.h"

/* Seconds this thread has waited on a run queue so far; 0 when the kernel
 * does not say. */
static double run_queue_wait(void) {
  FILE* f = fopen("/proc/thread-self/schedstat", "r");
  unsigned long long run = 0, wait = 0;
  const int read = f ? fscanf(f, "%llu %llu", &run, &wait) : 0;
  if (f) fclose(f);
  return read == 2 ? 1e-9 * (double)wait : 0;
}

static void work(double seconds) {
  const double end = now() + seconds;
  while (now() < end) {
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, flag;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static char out[4096], in[4096];
  const double waited_before = run_queue_wait();

  TIMED(for (int i = 0; i < 60000; ++i) MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));

  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int round = 0; round < 200; ++round) {
    work(1e-4 * (1 + (rank + round) % size));
    TIMED(MPI_Sendrecv(out, sizeof out, MPI_CHAR, right, 1, in, sizeof in, MPI_CHAR, left, 1, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    TIMED(for (int i = 0; i < 10; ++i) MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
  }

  if (rank == 0) work(0.2);
  TIMED(MPI_Barrier(MPI_COMM_WORLD));

  printf("timing %d %.6f %.6f\n", rank, in_mpi, run_queue_wait() - waited_before);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
