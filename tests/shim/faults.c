/* A job that fails mid-run, after traffic: `abort` (rank 1 calls MPI_Abort
 * with 3 while the others wait for it in MPI), `kill` (rank 1 is killed by
 * SIGKILL), or `all` (every rank is killed, before MPI_Finalize). The
 * launcher ends the job either way; the shim must neither hang it nor
 * change its exit status, and leave no file: it writes only at
 * MPI_Finalize, through a rename. `after`: every rank finalizes, then
 * rank 1 exits with 3 (as Open MPI's runtime can fail a finished job):
 * the profile is whole and kept, the status passed on. */
#include <mpi.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, x = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0, &x, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  if (argc > 1 && strcmp(argv[1], "all") == 0) kill(getpid(), SIGKILL);
  if (argc > 1 && strcmp(argv[1], "after") == 0) {
    MPI_Finalize();
    return rank == 1 ? 3 : 0;
  }
  if (rank == 1) {
    if (argc > 1 && strcmp(argv[1], "kill") == 0) kill(getpid(), SIGKILL);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Recv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* never sent */
  MPI_Finalize();
  return 0;
}
