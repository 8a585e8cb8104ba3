/* The test programs' own clock around their MPI calls, for comparison
 * with the shim's time in MPI (check_timing.py): TIMED(CALL) adds the
 * call's wall time to in_mpi. Included once per program. */
#ifndef RANKMAP_TEST_OWN_CLOCK_H
#define RANKMAP_TEST_OWN_CLOCK_H

#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double in_mpi;
#define TIMED(CALL)          \
  do {                       \
    const double t0 = now(); \
    CALL;                    \
    in_mpi += now() - t0;    \
  } while (0)

#endif
