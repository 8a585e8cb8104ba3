/* A job that dies before MPI_Finalize: every rank sends, then kills itself.
 * The shim writes only at MPI_Finalize, so no profile (and no temporary
 * file) may be left behind. */
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, x = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0, &x, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  kill(getpid(), SIGKILL);
  MPI_Finalize();
  return 0;
}
