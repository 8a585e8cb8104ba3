/* Ping-pong that measures the shim's cost inside one job: blocks of rounds
 * alternate between the MPI_ entry points (the shim's wrappers when it is
 * preloaded) and the PMPI_ ones (never wrapped), in ABBA order so that a
 * slow drift of the machine cancels. Both paths run in the same processes,
 * on the same cores and buffers, so the run-to-run noise of separate jobs
 * (placement, frequency, neighbours on a shared VM) drops out.
 * Prints: bytes, median ratio of MPI_ to PMPI_ block times, total ratio.
 * Without the shim both paths are the same code: the ratio is the method's
 * own error.  Usage: ab_pingpong BYTES ROUNDS_PER_BLOCK BLOCKS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*send_fn)(const void*, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status*);

static double block(int rank, char* buf, int bytes, int rounds, send_fn send, recv_fn recv) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < rounds; ++i) {
    if (rank == 0) {
      send(buf, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      recv(buf, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      recv(buf, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      send(buf, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
  }
  return MPI_Wtime() - t0;
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 4) {
    if (rank == 0) fprintf(stderr, "usage: ab_pingpong BYTES ROUNDS_PER_BLOCK BLOCKS\n");
    MPI_Finalize();
    return 2;
  }
  const int bytes = atoi(argv[1]), rounds = atoi(argv[2]), pairs = atoi(argv[3]) / 2;
  char* buf = calloc((size_t)bytes + 1, 1);
  double* ratio = calloc((size_t)pairs, sizeof *ratio);
  double wrapped_total = 0, direct_total = 0;
  block(rank, buf, bytes, rounds, MPI_Send, MPI_Recv); /* warm-up: both paths */
  block(rank, buf, bytes, rounds, PMPI_Send, PMPI_Recv);
  for (int p = 0; p < pairs; ++p) {
    double wrapped, direct;
    if (p % 2 == 0) {
      wrapped = block(rank, buf, bytes, rounds, MPI_Send, MPI_Recv);
      direct = block(rank, buf, bytes, rounds, PMPI_Send, PMPI_Recv);
    } else {
      direct = block(rank, buf, bytes, rounds, PMPI_Send, PMPI_Recv);
      wrapped = block(rank, buf, bytes, rounds, MPI_Send, MPI_Recv);
    }
    ratio[p] = wrapped / direct;
    wrapped_total += wrapped;
    direct_total += direct;
  }
  qsort(ratio, (size_t)pairs, sizeof *ratio, by_value);
  if (rank == 0)
    printf("%d %.4f %.4f %.4f\n", bytes, ratio[pairs / 2], wrapped_total / direct_total,
           direct_total / pairs / rounds * 1e6);
  free(ratio);
  free(buf);
  MPI_Finalize();
  return 0;
}
