/* MPI_THREAD_MULTIPLE: 4 threads per rank each send 1000 messages of 8
 * bytes to the right while receiving as many from the left, concurrently.
 * Expected: exactly 4000 messages and 32000 bytes to the right. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, MESSAGES = 1000 };
static int right, left;

static void* talk(void* arg) {
  const int tag = (int)(long)arg;
  double out = tag, in;
  for (int i = 0; i < MESSAGES; ++i) {
    MPI_Request rr;
    MPI_Irecv(&in, 1, MPI_DOUBLE, left, tag, MPI_COMM_WORLD, &rr);
    MPI_Send(&out, 1, MPI_DOUBLE, right, tag, MPI_COMM_WORLD);
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
  }
  return NULL;
}

int main(int argc, char** argv) {
  int provided, r, p;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided != MPI_THREAD_MULTIPLE) {
    fprintf(stderr, "threads: MPI_THREAD_MULTIPLE not provided\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  right = (r + 1) % p, left = (r + p - 1) % p;
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; ++i) pthread_create(&t[i], NULL, talk, (void*)i);
  for (int i = 0; i < THREADS; ++i) pthread_join(t[i], NULL);
  MPI_Finalize();
  return 0;
}
