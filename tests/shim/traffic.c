/* A job of known traffic for the shim's tests: every send kind, with a
 * distinct size each, so that a send counted twice or under the wrong peer
 * shows. tests/shim/check_profile.py holds the expected counts, worked out
 * from this program's calls (and, for collectives, from its own
 * implementation of the documented models). Runs on 4 or 8 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char buf[1 << 20], rbuf[1 << 20];

/* Receive from `left` while `send` goes to the right; any send kind. */
#define RING(SEND_CALL, COUNT, TYPE)                            \
  do {                                                          \
    MPI_Request rr;                                             \
    MPI_Irecv(rbuf, COUNT, TYPE, left, 1, MPI_COMM_WORLD, &rr); \
    SEND_CALL;                                                  \
    MPI_Wait(&rr, MPI_STATUS_IGNORE);                           \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int r, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const int right = (r + 1) % p, left = (r + p - 1) % p;
  MPI_Request q[4];

  /* Blocking sends to the right. */
  RING(MPI_Send(buf, 10, MPI_DOUBLE, right, 1, MPI_COMM_WORLD), 10, MPI_DOUBLE); /* 80 */
  static char attach[1 << 16];
  MPI_Buffer_attach(attach, sizeof attach);
  RING(MPI_Bsend(buf, 3, MPI_INT, right, 1, MPI_COMM_WORLD), 3, MPI_INT);   /* 12 */
  RING(MPI_Ssend(buf, 5, MPI_CHAR, right, 1, MPI_COMM_WORLD), 5, MPI_CHAR); /* 5 */
  {
    /* Rsend needs the receive posted first: a barrier orders them. */
    MPI_Request rr;
    MPI_Irecv(rbuf, 7, MPI_SHORT, left, 2, MPI_COMM_WORLD, &rr);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Rsend(buf, 7, MPI_SHORT, right, 2, MPI_COMM_WORLD); /* 14 */
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
  }
  /* Non-blocking sends. */
  RING((MPI_Isend(buf, 11, MPI_INT, right, 1, MPI_COMM_WORLD, &q[0]), MPI_Wait(&q[0], MPI_STATUS_IGNORE)), 11,
       MPI_INT); /* 44 */
  RING((MPI_Ibsend(buf, 13, MPI_CHAR, right, 1, MPI_COMM_WORLD, &q[0]), MPI_Wait(&q[0], MPI_STATUS_IGNORE)), 13,
       MPI_CHAR); /* 13 */
  RING((MPI_Issend(buf, 17, MPI_CHAR, right, 1, MPI_COMM_WORLD, &q[0]), MPI_Wait(&q[0], MPI_STATUS_IGNORE)), 17,
       MPI_CHAR); /* 17 */
  {
    MPI_Request rr;
    MPI_Irecv(rbuf, 19, MPI_CHAR, left, 3, MPI_COMM_WORLD, &rr);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Irsend(buf, 19, MPI_CHAR, right, 3, MPI_COMM_WORLD, &q[0]); /* 19 */
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
  }
  MPI_Sendrecv(buf, 21, MPI_CHAR, right, 4, rbuf, 21, MPI_CHAR, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* 21 */
  MPI_Sendrecv_replace(buf, 23, MPI_CHAR, right, 5, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);             /* 23 */

  /* Persistent: counted at each start. Send_init started 3 times: 3 x 29. */
  MPI_Send_init(buf, 29, MPI_CHAR, right, 1, MPI_COMM_WORLD, &q[0]);
  for (int i = 0; i < 3; ++i) RING((MPI_Start(&q[0]), MPI_Wait(&q[0], MPI_STATUS_IGNORE)), 29, MPI_CHAR);
  MPI_Request_free(&q[0]);
  /* Bsend_init and Ssend_init started together, twice: 2 x (31 + 33). */
  MPI_Bsend_init(buf, 31, MPI_CHAR, right, 7, MPI_COMM_WORLD, &q[0]);
  MPI_Ssend_init(buf, 33, MPI_CHAR, right, 8, MPI_COMM_WORLD, &q[1]);
  for (int i = 0; i < 2; ++i) {
    MPI_Irecv(rbuf, 31, MPI_CHAR, left, 7, MPI_COMM_WORLD, &q[2]);
    MPI_Irecv(rbuf + 64, 33, MPI_CHAR, left, 8, MPI_COMM_WORLD, &q[3]);
    MPI_Startall(2, q);
    MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
  }
  MPI_Request_free(&q[0]);
  MPI_Request_free(&q[1]);

  /* Not counted: MPI_PROC_NULL. Counted: a send to self (37). */
  MPI_Send(buf, 1000, MPI_CHAR, MPI_PROC_NULL, 9, MPI_COMM_WORLD);
  MPI_Isend(buf, 37, MPI_CHAR, r, 9, MPI_COMM_WORLD, &q[0]);
  MPI_Recv(rbuf, 37, MPI_CHAR, r, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);

  /* A sub-communicator with reordered ranks: same parity, highest world
   * rank first. Every member but its rank 0 sends 41 bytes to rank 0. */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, r % 2, -r, &half);
  int hr, hp;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hp);
  if (hr == 0)
    for (int i = 1; i < hp; ++i) MPI_Recv(rbuf, 41, MPI_CHAR, MPI_ANY_SOURCE, 10, half, MPI_STATUS_IGNORE);
  else
    MPI_Send(buf, 41, MPI_CHAR, 0, 10, half);
  MPI_Bcast(buf, 64, MPI_CHAR, 0, half); /* collective on reordered ranks */
  MPI_Allreduce(MPI_IN_PLACE, buf, 1, MPI_DOUBLE, MPI_SUM, half);
  MPI_Alltoall(buf, 1, MPI_CHAR, rbuf, 1, MPI_CHAR, half); /* pairwise on 2 ranks, linear on 4 */

  /* An inter-communicator between the lower and the upper half of the
   * world: each rank sends 43 bytes to the remote rank of its own index. */
  MPI_Comm side, inter;
  const int lower = r < p / 2;
  MPI_Comm_split(MPI_COMM_WORLD, lower, r, &side);
  MPI_Intercomm_create(side, 0, MPI_COMM_WORLD, lower ? p / 2 : 0, 11, &inter);
  int sr;
  MPI_Comm_rank(side, &sr);
  {
    MPI_Request rr;
    MPI_Irecv(rbuf, 43, MPI_CHAR, sr, 12, inter, &rr);
    MPI_Send(buf, 43, MPI_CHAR, sr, 12, inter);
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
  }
  /* Inter-communicator broadcast: the lower side's rank 0 to every upper rank (24). */
  if (lower)
    MPI_Bcast(buf, 24, MPI_CHAR, sr == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
  else
    MPI_Bcast(buf, 24, MPI_CHAR, 0, inter);

  /* Collectives on the world. */
  MPI_Bcast(buf, 100, MPI_DOUBLE, 1, MPI_COMM_WORLD);  /* 800: binomial */
  MPI_Bcast(buf, 200000, MPI_CHAR, 0, MPI_COMM_WORLD); /* scatter + ring when p >= 8 */
  MPI_Reduce(buf, rbuf, 50, MPI_INT, MPI_SUM, 2, MPI_COMM_WORLD);
  MPI_Allreduce(buf, rbuf, 16, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);    /* 128: doubling */
  MPI_Allreduce(buf, rbuf, 10001, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* 80008: ring */
  MPI_Gather(buf, 2, MPI_DOUBLE, rbuf, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int counts[64], displs[64];
  for (int i = 0; i < p; ++i) counts[i] = i + 1, displs[i] = 8 * i;
  MPI_Gatherv(buf, r + 1, MPI_INT, rbuf, counts, displs, MPI_INT, 3, MPI_COMM_WORLD);
  MPI_Scatter(buf, 3, MPI_INT, rbuf, 3, MPI_INT, 3, MPI_COMM_WORLD);
  MPI_Scatterv(buf, counts, displs, MPI_INT, rbuf, r + 1, MPI_INT, 1, MPI_COMM_WORLD);
  MPI_Allgather(buf, 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Allgatherv(buf, r + 1, MPI_CHAR, rbuf, counts, displs, MPI_CHAR, MPI_COMM_WORLD);
  MPI_Alltoall(buf, 2, MPI_INT, rbuf, 2, MPI_INT, MPI_COMM_WORLD);
  int scounts[64], sdispls[64], rcounts[64], rdispls[64];
  for (int i = 0; i < p; ++i) {
    scounts[i] = (r + i) % 3 + 1, sdispls[i] = 4 * i;
    rcounts[i] = (i + r) % 3 + 1, rdispls[i] = 4 * i;
  }
  MPI_Alltoallv(buf, scounts, sdispls, MPI_CHAR, rbuf, rcounts, rdispls, MPI_CHAR, MPI_COMM_WORLD);
  MPI_Reduce_scatter_block(buf, rbuf, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce_scatter(buf, rbuf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Scan(buf, rbuf, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Exscan(buf, rbuf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Ibarrier(MPI_COMM_WORLD, &q[0]);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  MPI_Iallreduce(buf, rbuf, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q[0]);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);

  /* Neighbourhood: a periodic ring as a Cartesian communicator, 6 bytes to
   * each of the two neighbours. */
  MPI_Comm ring;
  int dims[1] = {p}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  MPI_Neighbor_alltoall(buf, 6, MPI_CHAR, rbuf, 6, MPI_CHAR, ring);
  MPI_Neighbor_allgather(buf, 5, MPI_CHAR, rbuf, 5, MPI_CHAR, ring);

  /* One-sided, per target: Put 16 to r+1, Get 24 from r+2, Accumulate 8 to r+3. */
  MPI_Win win;
  MPI_Win_create(rbuf, 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  MPI_Put(buf, 16, MPI_CHAR, (r + 1) % p, 0, 16, MPI_CHAR, win);
  MPI_Get(buf + 64, 24, MPI_CHAR, (r + 2) % p, 64, 24, MPI_CHAR, win);
  MPI_Accumulate(buf, 2, MPI_INT, (r + 3) % p, 128, 2, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);

#if MPI_VERSION >= 4
  /* MPI 4 (MPICH): large-count and non-blocking sendrecv. */
  RING(MPI_Send_c(buf, 53, MPI_CHAR, right, 1, MPI_COMM_WORLD), 53, MPI_CHAR);
  MPI_Isendrecv(buf, 47, MPI_CHAR, right, 13, rbuf, 47, MPI_CHAR, left, 13, MPI_COMM_WORLD, &q[0]);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
#endif

  MPI_Comm_free(&ring);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&side);
  MPI_Comm_free(&half);
  int size;
  void* old;
  MPI_Buffer_detach(&old, &size);
  MPI_Finalize();
  return 0;
}
