/* The transposes of a 2D-decomposed FFT (pencil decomposition, as in P3DFFT
 * or FFTW-MPI): ranks on a PR x PC grid (column fastest), each iteration an
 * all-to-all of BLOCK doubles per pair inside its row, then inside its
 * column, each after COMPUTE_US microseconds of computation (compute.h).
 * Rank 0 prints the time of the iterations, between two barriers.
 * Usage: fft2d PR PC [BLOCK] [ITERATIONS] [COMPUTE_US]   (PR*PC = ranks) */
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
    if (r == 0) fprintf(stderr, "usage: fft2d PR PC [BLOCK] [ITERATIONS] [COMPUTE_US]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int rows = atoi(argv[1]), cols = atoi(argv[2]);
  const int block = argc > 3 ? atoi(argv[3]) : 512, iterations = argc > 4 ? atoi(argv[4]) : 10;
  const double compute_s = argc > 5 ? atof(argv[5]) * 1e-6 : 0;
  if (rows * cols != p || rows < 1 || cols < 1) {
    if (r == 0) fprintf(stderr, "fft2d: %d x %d is not %d ranks\n", rows, cols, p);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm row, col; /* the ranks of my row (same r / cols), of my column */
  MPI_Comm_split(MPI_COMM_WORLD, r / cols, r % cols, &row);
  MPI_Comm_split(MPI_COMM_WORLD, r % cols, r / cols, &col);
  const int most = rows > cols ? rows : cols;
  double* out = calloc((size_t)most * block, sizeof(double));
  double* in = calloc((size_t)most * block, sizeof(double));
  for (int i = 0; i < most * block; ++i) out[i] = r + 1e-3 * i;
  // The clock starts before the barrier that lines the ranks up: the
  // timed run then holds every call of the profile, both barriers too (a
  // barrier over 80 ranks on VMs takes 65-200 us by the mapping).
  const double t0 = MPI_Wtime();
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < iterations; ++it) {
    compute_for(compute_s / 2);
    MPI_Alltoall(out, block, MPI_DOUBLE, in, block, MPI_DOUBLE, row);
    compute_for(compute_s / 2);
    MPI_Alltoall(in, block, MPI_DOUBLE, out, block, MPI_DOUBLE, col);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double elapsed = MPI_Wtime() - t0;
  if (r == 0) printf("fft2d: %d ranks, %d iterations, value %g, time %.9f s\n", p, iterations, out[0], elapsed);
  free(out), free(in);
  MPI_Comm_free(&row), MPI_Comm_free(&col);
  MPI_Finalize();
  return 0;
}
