/* One MPI_Cart_create with reorder = 1 over MPI_COMM_WORLD (3D, periodic,
 * MPI_Dims_create's shape), timed; rank 0 prints the slowest process's
 * time. Under the shim with RANKMAP_MACHINE and RANKMAP_REORDER_TIMES set,
 * rank 0 also says where the time went (shim/reorder.c). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0, rank = 0, dims[3] = {0, 0, 0};
  const int periods[3] = {1, 1, 1};
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Dims_create(size, 3, dims);
  MPI_Comm cart;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 1, &cart);
  double took = MPI_Wtime() - start, slowest = 0;
  MPI_Reduce(&took, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("MPI_Cart_create %dx%dx%d reorder=1: %.1f ms (slowest process)\n", dims[0], dims[1], dims[2], 1e3 * slowest);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}
