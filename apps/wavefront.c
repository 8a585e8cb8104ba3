/* An LU-like 2D wavefront (as in NPB LU's SSOR sweeps): ranks on a
 * non-periodic PX x PY grid (Y fastest) wait for their north and west
 * neighbours, compute (COMPUTE_US microseconds, compute.h), and pass LINE
 * doubles on to south and east; one sweep per iteration from the
 * north-west corner. The last rank prints the time of the sweeps, between
 * two barriers.
 * Usage: wavefront PX PY [LINE] [SWEEPS] [COMPUTE_US]   (PX*PY = ranks) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "compute.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int p, r;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (argc < 3) {
    if (r == 0) fprintf(stderr, "usage: wavefront PX PY [LINE] [SWEEPS] [COMPUTE_US]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int dims[2] = {atoi(argv[1]), atoi(argv[2])}, periods[2] = {0, 0};
  const int line = argc > 3 ? atoi(argv[3]) : 512, sweeps = argc > 4 ? atoi(argv[4]) : 10;
  const double compute_s = argc > 5 ? atof(argv[5]) * 1e-6 : 0;
  if (dims[0] * dims[1] != p) {
    if (r == 0) fprintf(stderr, "wavefront: %d x %d is not %d ranks\n", dims[0], dims[1], p);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  int north, south, west, east;
  MPI_Cart_shift(grid, 0, 1, &north, &south);
  MPI_Cart_shift(grid, 1, 1, &west, &east);
  double* a = calloc((size_t)line, sizeof(double));
  double* b = calloc((size_t)line, sizeof(double));
  // The clock starts before the barrier that lines the ranks up: the
  // timed run then holds every call of the profile, both barriers too (a
  // barrier over 80 ranks on VMs takes 65-200 us by the mapping).
  const double t0 = MPI_Wtime();
  MPI_Barrier(grid);
  for (int s = 0; s < sweeps; ++s) {
    /* MPI_PROC_NULL on the edges: those calls return at once. */
    MPI_Recv(a, line, MPI_DOUBLE, north, 0, grid, MPI_STATUS_IGNORE);
    MPI_Recv(b, line, MPI_DOUBLE, west, 1, grid, MPI_STATUS_IGNORE);
    compute_for(compute_s);
    for (int i = 0; i < line; ++i) a[i] = 0.5 * (a[i] + b[i]) + 1.0;
    MPI_Send(a, line, MPI_DOUBLE, south, 0, grid);
    MPI_Send(a, line, MPI_DOUBLE, east, 1, grid);
  }
  MPI_Barrier(grid);
  const double elapsed = MPI_Wtime() - t0;
  if (r == p - 1) printf("wavefront: %d ranks, %d sweeps, corner value %g, time %.9f s\n", p, sweeps, a[0], elapsed);
  free(a), free(b);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}
