/* A 3D halo exchange, the pattern of structured-grid codes: ranks on a
 * periodic PX x PY x PZ Cartesian grid (rank order: Z fastest, as
 * MPI_Cart_create numbers them), each iteration sending a face of
 * FACE doubles to each of its six neighbours and summing a residual, after
 * COMPUTE_US microseconds of computation (compute.h).
 * Rank 0 prints the time of the iterations, between two barriers.
 * Usage: halo3d PX PY PZ [FACE] [ITERATIONS] [COMPUTE_US]   (PX*PY*PZ = ranks) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "compute.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int p, r;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (argc < 4) {
    if (r == 0) fprintf(stderr, "usage: halo3d PX PY PZ [FACE] [ITERATIONS] [COMPUTE_US]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int dims[3] = {atoi(argv[1]), atoi(argv[2]), atoi(argv[3])}, periods[3] = {1, 1, 1};
  const int face = argc > 4 ? atoi(argv[4]) : 1024, iterations = argc > 5 ? atoi(argv[5]) : 10;
  const double compute_s = argc > 6 ? atof(argv[6]) * 1e-6 : 0;
  if (dims[0] * dims[1] * dims[2] != p) {
    if (r == 0) fprintf(stderr, "halo3d: %d x %d x %d is not %d ranks\n", dims[0], dims[1], dims[2], p);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &grid);
  double* out = calloc(6 * (size_t)face, sizeof(double));
  double* in = calloc(6 * (size_t)face, sizeof(double));
  double residual = 1;
  MPI_Barrier(grid);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iterations; ++it) {
    compute_for(compute_s);
    MPI_Request q[12];
    int n = 0;
    for (int d = 0; d < 3; ++d) {
      int lo, hi;
      MPI_Cart_shift(grid, d, 1, &lo, &hi);
      MPI_Irecv(in + (2 * d) * face, face, MPI_DOUBLE, lo, 2 * d, grid, &q[n++]);
      MPI_Irecv(in + (2 * d + 1) * face, face, MPI_DOUBLE, hi, 2 * d + 1, grid, &q[n++]);
      MPI_Isend(out + (2 * d) * face, face, MPI_DOUBLE, hi, 2 * d, grid, &q[n++]);
      MPI_Isend(out + (2 * d + 1) * face, face, MPI_DOUBLE, lo, 2 * d + 1, grid, &q[n++]);
    }
    MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 6 * face; ++i) out[i] = 0.5 * in[i] + 1e-3;
    double local = out[0], sum = 0;
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, grid);
    residual = sum;
  }
  MPI_Barrier(grid);
  const double elapsed = MPI_Wtime() - t0;
  if (r == 0) printf("halo3d: %d ranks, %d iterations, residual %g, time %.9f s\n", p, iterations, residual, elapsed);
  free(out), free(in);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}
