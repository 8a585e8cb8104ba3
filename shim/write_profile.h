/* Writes the job's .rmp profile at MPI_Finalize; see write_profile.c. */
#ifndef RANKMAP_SHIM_WRITE_PROFILE_H
#define RANKMAP_SHIM_WRITE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "shim.h"

#pragma GCC visibility push(hidden)

/* Collective over MPI_COMM_WORLD; never aborts: on failure rank 0 says so
 * once on stderr and the job goes on. */
void rm_write_profile(const rm_peer* peers, size_t n, const rm_call_table* calls, double wall_s, double mpi_s,
                      int dropped);

#pragma GCC visibility pop

#endif
