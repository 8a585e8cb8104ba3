/* A 3D halo exchange, the pattern of structured-grid codes: ranks on a
 * periodic PX x PY x PZ Cartesian grid (rank order: Z fastest, as
 * MPI_Cart_create numbers them), each iteration sending a face of
 * FACE doubles to each of its six neighbours and summing a residual, after
 * COMPUTE_US microseconds of computation (compute.h).
 * Rank 0 prints the time of the iterations, between two barriers.
 *
 * --reorder=MODE states the grid to MPI with reorder = 1 (default: off,
 * MPI_Cart_create with reorder = 0): `cart` through MPI_Cart_create, `dist`
 * through MPI_Dist_graph_create_adjacent with each neighbour weighted by
 * the bytes of a face (the form Open MPI's treematch reorders). Either way
 * rank r of the new communicator plays grid cell r, and its neighbours are
 * the cells next to r; in `dist` mode rank 0 also says whether
 * MPI_Dist_graph_neighbors agrees with them.
 * Usage: halo3d [--reorder=cart|dist] PX PY PZ [FACE] [ITERATIONS] [COMPUTE_US]
 *        (PX*PY*PZ = ranks) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute.h"

/* The cell next to `cell` along dimension d, `step` away, on the periodic grid. */
static int next_cell(const int dims[3], int cell, int d, int step) {
  int c[3] = {cell / (dims[1] * dims[2]), (cell / dims[2]) % dims[1], cell % dims[2]};
  c[d] = (c[d] + step + dims[d]) % dims[d];
  return (c[0] * dims[1] + c[1]) * dims[2] + c[2];
}

static int by_value(const void* a, const void* b) {
  return (*(const int*)a > *(const int*)b) - (*(const int*)a < *(const int*)b);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int p, r;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  const char* mode = "off";
  if (argc > 1 && strncmp(argv[1], "--reorder=", 10) == 0) mode = argv[1] + 10, ++argv, --argc;
  if (argc < 4 || (strcmp(mode, "off") != 0 && strcmp(mode, "cart") != 0 && strcmp(mode, "dist") != 0)) {
    if (r == 0) fprintf(stderr, "usage: halo3d [--reorder=cart|dist] PX PY PZ [FACE] [ITERATIONS] [COMPUTE_US]\n");
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
  int lo[3], hi[3];
  if (strcmp(mode, "dist") == 0) {
    int near[6], weights[6];
    for (int d = 0; d < 3; ++d) {
      near[2 * d] = next_cell(dims, r, d, -1), near[2 * d + 1] = next_cell(dims, r, d, 1);
      weights[2 * d] = weights[2 * d + 1] = face * (int)sizeof(double);
    }
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 6, near, weights, 6, near, weights, MPI_INFO_NULL, 1, &grid);
    int cell = 0;
    MPI_Comm_rank(grid, &cell);
    for (int d = 0; d < 3; ++d) lo[d] = next_cell(dims, cell, d, -1), hi[d] = next_cell(dims, cell, d, 1);
    /* What MPI says the neighbours are, against the grid's, as multisets. */
    int in = 0, out = 0, weighted = 0, agree = 0, disagree = 0;
    MPI_Dist_graph_neighbors_count(grid, &in, &out, &weighted);
    if (in == 6 && out == 6) {
      int sources[6], sw[6], destinations[6], dw[6], want[6];
      MPI_Dist_graph_neighbors(grid, 6, sources, sw, 6, destinations, dw);
      for (int d = 0; d < 3; ++d) want[2 * d] = lo[d], want[2 * d + 1] = hi[d];
      qsort(sources, 6, sizeof(int), by_value), qsort(destinations, 6, sizeof(int), by_value);
      qsort(want, 6, sizeof(int), by_value);
      agree = memcmp(sources, want, sizeof want) == 0 && memcmp(destinations, want, sizeof want) == 0;
    }
    disagree = !agree;
    int total = 0;
    MPI_Reduce(&disagree, &total, 1, MPI_INT, MPI_SUM, 0, grid);
    if (cell == 0) printf("halo3d: MPI_Dist_graph_neighbors agrees with the grid on %d of %d ranks\n", p - total, p);
  } else {
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, strcmp(mode, "cart") == 0, &grid);
    for (int d = 0; d < 3; ++d) MPI_Cart_shift(grid, d, 1, &lo[d], &hi[d]);
  }
  double* out = calloc(6 * (size_t)face, sizeof(double));
  double* in = calloc(6 * (size_t)face, sizeof(double));
  double residual = 1;
  // The clock starts before the barrier that lines the ranks up: the
  // timed run then holds every call of the profile, both barriers too (a
  // barrier over 80 ranks on VMs takes 65-200 us by the mapping).
  const double t0 = MPI_Wtime();
  MPI_Barrier(grid);
  for (int it = 0; it < iterations; ++it) {
    compute_for(compute_s);
    MPI_Request q[12];
    int n = 0;
    for (int d = 0; d < 3; ++d) {
      MPI_Irecv(in + (2 * d) * face, face, MPI_DOUBLE, lo[d], 2 * d, grid, &q[n++]);
      MPI_Irecv(in + (2 * d + 1) * face, face, MPI_DOUBLE, hi[d], 2 * d + 1, grid, &q[n++]);
      MPI_Isend(out + (2 * d) * face, face, MPI_DOUBLE, hi[d], 2 * d, grid, &q[n++]);
      MPI_Isend(out + (2 * d + 1) * face, face, MPI_DOUBLE, lo[d], 2 * d + 1, grid, &q[n++]);
    }
    MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 6 * face; ++i) out[i] = 0.5 * in[i] + 1e-3;
    double local = out[0], sum = 0;
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, grid);
    residual = sum;
  }
  MPI_Barrier(grid);
  const double elapsed = MPI_Wtime() - t0;
  int cell = 0;
  MPI_Comm_rank(grid, &cell);
  if (cell == 0)
    printf("halo3d: %d ranks, %d iterations, residual %g, time %.9f s\n", p, iterations, residual, elapsed);
  free(out), free(in);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}
