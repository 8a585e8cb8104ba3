/* Collective wrappers: each turns its call into the calling rank's sends
 * under the model of models.c, counted as collective traffic. Blocking and
 * non-blocking forms count alike, at the call. Block sizes come from the
 * receive side where the send side may be MPI_IN_PLACE (MPI requires the
 * two to match). */
#include <stdlib.h>

#include "shim.h"

#define WRAP RM_WRAP

static int comm_size(MPI_Comm comm) {
  rm_comm_info c;
  return rm_comm(comm, &c) == 0 ? c.size : 0;
}
static int is_inter(MPI_Comm comm) {
  rm_comm_info c;
  return rm_comm(comm, &c) == 0 && c.is_inter;
}

/* Bytes of every rank's block: counts[i] elements of types[i], or of
 * `type` when types is NULL. NULL when there is nothing to count; the
 * caller frees it. */
static uint64_t* block_bytes(MPI_Comm comm, const int* counts, const MPI_Datatype* types, MPI_Datatype type) {
  const int p = comm_size(comm);
  if (!counts || p <= 0) return NULL;
  uint64_t* bytes = malloc(sizeof(uint64_t) * (size_t)p);
  if (!bytes) return NULL;
  for (int i = 0; i < p; ++i) bytes[i] = rm_bytes(types ? types[i] : type, counts[i]);
  return bytes;
}

void rm_coll_gather(MPI_Comm comm, int root, int count, MPI_Datatype type) {
  rm_model_gather(comm, root, rm_bytes(type, count));
}

void rm_coll_scatterv(MPI_Comm comm, int root, const int* counts, MPI_Datatype type) {
  rm_comm_info c;
  if (rm_comm(comm, &c) != 0) return;
  /* The others send nothing, but the model records their call too. */
  if (c.is_inter ? root != MPI_ROOT : c.local_rank != root) {
    rm_model_scatterv(comm, root, NULL);
    return;
  }
  uint64_t* bytes = block_bytes(comm, counts, NULL, type);
  if (bytes) rm_model_scatterv(comm, root, bytes);
  free(bytes);
}

/* Intra: the receive block (the send side may be MPI_IN_PLACE). Inter: the
 * receive side is the remote group's; this rank sends its own. */
void rm_coll_allgather(MPI_Comm comm, int sendcount, MPI_Datatype sendtype, int count, MPI_Datatype type) {
  rm_model_allgather(comm, is_inter(comm) ? rm_bytes(sendtype, sendcount) : rm_bytes(type, count));
}

/* Intra: every rank's block, from the receive counts that every rank
 * knows. Inter: those are the remote group's; this rank sends its own. */
void rm_coll_allgatherv(MPI_Comm comm, int sendcount, MPI_Datatype sendtype, const int* counts, MPI_Datatype type) {
  if (is_inter(comm)) return rm_model_allgather(comm, rm_bytes(sendtype, sendcount));
  uint64_t* block = block_bytes(comm, counts, NULL, type);
  if (block) rm_model_allgatherv(comm, block);
  free(block);
}

void rm_coll_alltoallw(MPI_Comm comm, int in_place, const int* scounts, const MPI_Datatype* stypes, MPI_Datatype stype,
                       const int* rcounts, const MPI_Datatype* rtypes, MPI_Datatype rtype) {
  /* In place, the blocks sent are the ones the receive side describes. */
  uint64_t* bytes = in_place ? block_bytes(comm, rcounts, rtypes, rtype) : block_bytes(comm, scounts, stypes, stype);
  if (bytes) rm_model_alltoall_to(comm, bytes);
  free(bytes);
}

void rm_coll_reduce_scatter(MPI_Comm comm, const int* counts, MPI_Datatype type) {
  uint64_t* block = block_bytes(comm, counts, NULL, type);
  if (block) rm_model_reduce_scatter(comm, block, 0);
  free(block);
}

/* Neighbourhood collectives: block i to out-neighbour i, all in one round. */
static void neighbour_send(MPI_Comm comm, int rank, uint64_t bytes) {
  const int world = rm_world_of(comm, rank);
  rm_count(RM_COLL, world, bytes, 1);
  rm_call_step_to(0, world, bytes);
}
static int neighbours(MPI_Comm comm, int** out, int* n) {
  if (rm_out_neighbours(comm, out, n) != 0) return -1;
  if (rm_active()) rm_call_begin(comm, "neighbour");
  return 0;
}
void rm_coll_neighbours(MPI_Comm comm, uint64_t bytes) {
  int *out, n;
  if (neighbours(comm, &out, &n) != 0) return;
  for (int i = 0; i < n; ++i) neighbour_send(comm, out[i], bytes);
  free(out);
}
void rm_coll_neighbours_v(MPI_Comm comm, const int* counts, MPI_Datatype type) {
  int *out, n;
  if (!counts || neighbours(comm, &out, &n) != 0) return;
  for (int i = 0; i < n; ++i) neighbour_send(comm, out[i], rm_bytes(type, counts[i]));
  free(out);
}
void rm_coll_neighbours_w(MPI_Comm comm, const int* counts, const MPI_Datatype* types) {
  int *out, n;
  if (!counts || !types || neighbours(comm, &out, &n) != 0) return;
  for (int i = 0; i < n; ++i) neighbour_send(comm, out[i], rm_bytes(types[i], counts[i]));
  free(out);
}

#define P_BCAST (void* b, int n, MPI_Datatype t, int root, MPI_Comm c)
WRAP(Bcast, P_BCAST, (b, n, t, root, c), rm_model_bcast(c, root, rm_bytes(t, n)))
WRAP(Ibcast, (void* b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request* r), (b, n, t, root, c, r),
     rm_model_bcast(c, root, rm_bytes(t, n)))

WRAP(Reduce, (const void* s, void* d, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c), (s, d, n, t, o, root, c),
     rm_model_reduce(c, root, rm_bytes(t, n)))
WRAP(Ireduce, (const void* s, void* d, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c, MPI_Request* r),
     (s, d, n, t, o, root, c, r), rm_model_reduce(c, root, rm_bytes(t, n)))

WRAP(Allreduce, (const void* s, void* d, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c), (s, d, n, t, o, c),
     rm_model_allreduce(c, rm_bytes(t, n)))
WRAP(Iallreduce, (const void* s, void* d, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request* r),
     (s, d, n, t, o, c, r), rm_model_allreduce(c, rm_bytes(t, n)))

WRAP(Gather, (const void* s, int sn, MPI_Datatype st, void* d, int dn, MPI_Datatype dt, int root, MPI_Comm c),
     (s, sn, st, d, dn, dt, root, c), rm_coll_gather(c, root, sn, st))
WRAP(Igather,
     (const void* s, int sn, MPI_Datatype st, void* d, int dn, MPI_Datatype dt, int root, MPI_Comm c, MPI_Request* r),
     (s, sn, st, d, dn, dt, root, c, r), rm_coll_gather(c, root, sn, st))
WRAP(Gatherv,
     (const void* s, int sn, MPI_Datatype st, void* d, const int dn[], const int dd[], MPI_Datatype dt, int root,
      MPI_Comm c),
     (s, sn, st, d, dn, dd, dt, root, c), rm_coll_gather(c, root, sn, st))
WRAP(Igatherv,
     (const void* s, int sn, MPI_Datatype st, void* d, const int dn[], const int dd[], MPI_Datatype dt, int root,
      MPI_Comm c, MPI_Request* r),
     (s, sn, st, d, dn, dd, dt, root, c, r), rm_coll_gather(c, root, sn, st))

WRAP(Scatter, (const void* s, int sn, MPI_Datatype st, void* d, int dn, MPI_Datatype dt, int root, MPI_Comm c),
     (s, sn, st, d, dn, dt, root, c), rm_model_scatter(c, root, rm_bytes(st, sn)))
WRAP(Iscatter,
     (const void* s, int sn, MPI_Datatype st, void* d, int dn, MPI_Datatype dt, int root, MPI_Comm c, MPI_Request* r),
     (s, sn, st, d, dn, dt, root, c, r), rm_model_scatter(c, root, rm_bytes(st, sn)))
WRAP(Scatterv,
     (const void* s, const int sn[], const int sd[], MPI_Datatype st, void* d, int dn, MPI_Datatype dt, int root,
      MPI_Comm c),
     (s, sn, sd, st, d, dn, dt, root, c), rm_coll_scatterv(c, root, sn, st))
WRAP(Iscatterv,
     (const void* s, const int sn[], const int sd[], MPI_Datatype st, void* d, int dn, MPI_Datatype dt, int root,
      MPI_Comm c, MPI_Request* r),
     (s, sn, sd, st, d, dn, dt, root, c, r), rm_coll_scatterv(c, root, sn, st))

WRAP(Allgather, (const void* s, int sn, MPI_Datatype st, void* d, int dn, MPI_Datatype dt, MPI_Comm c),
     (s, sn, st, d, dn, dt, c), rm_coll_allgather(c, sn, st, dn, dt))
WRAP(Iallgather, (const void* s, int sn, MPI_Datatype st, void* d, int dn, MPI_Datatype dt, MPI_Comm c, MPI_Request* r),
     (s, sn, st, d, dn, dt, c, r), rm_coll_allgather(c, sn, st, dn, dt))
WRAP(Allgatherv,
     (const void* s, int sn, MPI_Datatype st, void* d, const int dn[], const int dd[], MPI_Datatype dt, MPI_Comm c),
     (s, sn, st, d, dn, dd, dt, c), rm_coll_allgatherv(c, sn, st, dn, dt))
WRAP(Iallgatherv,
     (const void* s, int sn, MPI_Datatype st, void* d, const int dn[], const int dd[], MPI_Datatype dt, MPI_Comm c,
      MPI_Request* r),
     (s, sn, st, d, dn, dd, dt, c, r), rm_coll_allgatherv(c, sn, st, dn, dt))

WRAP(Alltoall, (const void* s, int sn, MPI_Datatype st, void* d, int dn, MPI_Datatype dt, MPI_Comm c),
     (s, sn, st, d, dn, dt, c), rm_model_alltoall(c, rm_bytes(dt, dn)))
WRAP(Ialltoall, (const void* s, int sn, MPI_Datatype st, void* d, int dn, MPI_Datatype dt, MPI_Comm c, MPI_Request* r),
     (s, sn, st, d, dn, dt, c, r), rm_model_alltoall(c, rm_bytes(dt, dn)))
WRAP(Alltoallv,
     (const void* s, const int sn[], const int sd[], MPI_Datatype st, void* d, const int dn[], const int dd[],
      MPI_Datatype dt, MPI_Comm c),
     (s, sn, sd, st, d, dn, dd, dt, c), rm_coll_alltoallw(c, s == MPI_IN_PLACE, sn, NULL, st, dn, NULL, dt))
WRAP(Ialltoallv,
     (const void* s, const int sn[], const int sd[], MPI_Datatype st, void* d, const int dn[], const int dd[],
      MPI_Datatype dt, MPI_Comm c, MPI_Request* r),
     (s, sn, sd, st, d, dn, dd, dt, c, r), rm_coll_alltoallw(c, s == MPI_IN_PLACE, sn, NULL, st, dn, NULL, dt))
WRAP(Alltoallw,
     (const void* s, const int sn[], const int sd[], const MPI_Datatype st[], void* d, const int dn[], const int dd[],
      const MPI_Datatype dt[], MPI_Comm c),
     (s, sn, sd, st, d, dn, dd, dt, c),
     rm_coll_alltoallw(c, s == MPI_IN_PLACE, sn, st, MPI_DATATYPE_NULL, dn, dt, MPI_DATATYPE_NULL))
WRAP(Ialltoallw,
     (const void* s, const int sn[], const int sd[], const MPI_Datatype st[], void* d, const int dn[], const int dd[],
      const MPI_Datatype dt[], MPI_Comm c, MPI_Request* r),
     (s, sn, sd, st, d, dn, dd, dt, c, r),
     rm_coll_alltoallw(c, s == MPI_IN_PLACE, sn, st, MPI_DATATYPE_NULL, dn, dt, MPI_DATATYPE_NULL))

WRAP(Reduce_scatter, (const void* s, void* d, const int n[], MPI_Datatype t, MPI_Op o, MPI_Comm c), (s, d, n, t, o, c),
     rm_coll_reduce_scatter(c, n, t))
WRAP(Ireduce_scatter, (const void* s, void* d, const int n[], MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request* r),
     (s, d, n, t, o, c, r), rm_coll_reduce_scatter(c, n, t))
WRAP(Reduce_scatter_block, (const void* s, void* d, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c), (s, d, n, t, o, c),
     rm_model_reduce_scatter(c, NULL, rm_bytes(t, n)))
WRAP(Ireduce_scatter_block, (const void* s, void* d, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request* r),
     (s, d, n, t, o, c, r), rm_model_reduce_scatter(c, NULL, rm_bytes(t, n)))

WRAP(Scan, (const void* s, void* d, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c), (s, d, n, t, o, c),
     rm_model_scan(c, rm_bytes(t, n), 0))
WRAP(Iscan, (const void* s, void* d, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request* r),
     (s, d, n, t, o, c, r), rm_model_scan(c, rm_bytes(t, n), 0))
WRAP(Exscan, (const void* s, void* d, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c), (s, d, n, t, o, c),
     rm_model_scan(c, rm_bytes(t, n), 1))
WRAP(Iexscan, (const void* s, void* d, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request* r),
     (s, d, n, t, o, c, r), rm_model_scan(c, rm_bytes(t, n), 1))

WRAP(Barrier, (MPI_Comm c), (c), rm_model_barrier(c))
WRAP(Ibarrier, (MPI_Comm c, MPI_Request* r), (c, r), rm_model_barrier(c))

WRAP(Neighbor_allgather, (const void* s, int sn, MPI_Datatype st, void* d, int dn, MPI_Datatype dt, MPI_Comm c),
     (s, sn, st, d, dn, dt, c), rm_coll_neighbours(c, rm_bytes(st, sn)))
WRAP(Ineighbor_allgather,
     (const void* s, int sn, MPI_Datatype st, void* d, int dn, MPI_Datatype dt, MPI_Comm c, MPI_Request* r),
     (s, sn, st, d, dn, dt, c, r), rm_coll_neighbours(c, rm_bytes(st, sn)))
WRAP(Neighbor_allgatherv,
     (const void* s, int sn, MPI_Datatype st, void* d, const int dn[], const int dd[], MPI_Datatype dt, MPI_Comm c),
     (s, sn, st, d, dn, dd, dt, c), rm_coll_neighbours(c, rm_bytes(st, sn)))
WRAP(Ineighbor_allgatherv,
     (const void* s, int sn, MPI_Datatype st, void* d, const int dn[], const int dd[], MPI_Datatype dt, MPI_Comm c,
      MPI_Request* r),
     (s, sn, st, d, dn, dd, dt, c, r), rm_coll_neighbours(c, rm_bytes(st, sn)))
WRAP(Neighbor_alltoall, (const void* s, int sn, MPI_Datatype st, void* d, int dn, MPI_Datatype dt, MPI_Comm c),
     (s, sn, st, d, dn, dt, c), rm_coll_neighbours(c, rm_bytes(st, sn)))
WRAP(Ineighbor_alltoall,
     (const void* s, int sn, MPI_Datatype st, void* d, int dn, MPI_Datatype dt, MPI_Comm c, MPI_Request* r),
     (s, sn, st, d, dn, dt, c, r), rm_coll_neighbours(c, rm_bytes(st, sn)))
WRAP(Neighbor_alltoallv,
     (const void* s, const int sn[], const int sd[], MPI_Datatype st, void* d, const int dn[], const int dd[],
      MPI_Datatype dt, MPI_Comm c),
     (s, sn, sd, st, d, dn, dd, dt, c), rm_coll_neighbours_v(c, sn, st))
WRAP(Ineighbor_alltoallv,
     (const void* s, const int sn[], const int sd[], MPI_Datatype st, void* d, const int dn[], const int dd[],
      MPI_Datatype dt, MPI_Comm c, MPI_Request* r),
     (s, sn, sd, st, d, dn, dd, dt, c, r), rm_coll_neighbours_v(c, sn, st))
WRAP(Neighbor_alltoallw,
     (const void* s, const int sn[], const MPI_Aint sd[], const MPI_Datatype st[], void* d, const int dn[],
      const MPI_Aint dd[], const MPI_Datatype dt[], MPI_Comm c),
     (s, sn, sd, st, d, dn, dd, dt, c), rm_coll_neighbours_w(c, sn, st))
WRAP(Ineighbor_alltoallw,
     (const void* s, const int sn[], const MPI_Aint sd[], const MPI_Datatype st[], void* d, const int dn[],
      const MPI_Aint dd[], const MPI_Datatype dt[], MPI_Comm c, MPI_Request* r),
     (s, sn, sd, st, d, dn, dd, dt, c, r), rm_coll_neighbours_w(c, sn, st))
