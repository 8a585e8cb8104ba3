/* Ping-pong between ranks 0 and 1: prints the mean round-trip time in
 * microseconds for a message size, after a warm-up.
 * Usage: pingpong BYTES [ROUNDS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  const int bytes = argc > 1 ? atoi(argv[1]) : 8, rounds = argc > 2 ? atoi(argv[2]) : 100000;
  char* buf = calloc((size_t)bytes + 1, 1);
  double t0 = 0;
  for (int i = -rounds / 10; i < rounds; ++i) {
    if (i == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
    }
    if (r == 0) {
      MPI_Send(buf, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (r == 1) {
      MPI_Recv(buf, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
  }
  const double us = (MPI_Wtime() - t0) / rounds * 1e6;
  if (r == 0) printf("%d %.4f\n", bytes, us);
  free(buf);
  MPI_Finalize();
  return 0;
}
