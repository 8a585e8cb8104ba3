/* Compute time of the mini-apps: a fixed span per iteration, so that the
 * fraction of run time in MPI is known. Under SimGrid's SMPI (its mpi.h
 * defines SMPI_H) the span is injected into the simulated clock, so a run
 * is deterministic and independent of the simulating machine's speed; under
 * a real MPI the rank busy-waits for it. */
#ifndef RANKMAP_APPS_COMPUTE_H
#define RANKMAP_APPS_COMPUTE_H

#include <mpi.h>

static inline void compute_for(double seconds) {
  if (seconds <= 0) return;
#ifdef SMPI_H
  smpi_execute(seconds);
#else
  const double end = MPI_Wtime() + seconds;
  while (MPI_Wtime() < end) {
  }
#endif
}

#endif
