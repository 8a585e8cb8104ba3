/* MPI-4 partitioned sends (MPICH only here: Open MPI 4.1 is MPI 3.1).
 * Rank 0 sends 4 partitions of 100 ints to rank 1, started twice:
 * check_profile.py expects 2 messages of 1600 bytes from 0 to 1. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  static int buf[400];
  MPI_Request req = MPI_REQUEST_NULL;
  if (rank == 0) MPI_Psend_init(buf, 4, 100, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  if (rank == 1) MPI_Precv_init(buf, 4, 100, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  for (int round = 0; round < 2 && rank < 2; ++round) {
    MPI_Start(&req);
    if (rank == 0)
      for (int p = 0; p < 4; ++p) MPI_Pready(p, req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  if (rank < 2) MPI_Request_free(&req);
  MPI_Finalize();
  return 0;
}
