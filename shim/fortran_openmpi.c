/* Fortran under Open MPI. Its mpif.h / `use mpi` and `use mpi_f08` bindings
 * call PMPI_ directly, so the C wrappers never see a Fortran program's
 * calls: these wrap the Fortran symbols themselves (gfortran names: mpi_x_
 * and mpi_x_f08_) and call their pmpi_ twins. Both bindings pass handles as
 * Fortran integers by reference (an mpi_f08 handle is a type holding just
 * that integer), and mpi_f08's optional ierror may be NULL, which is only
 * passed on. MPICH's Fortran bindings call the C MPI_ functions, which the
 * C wrappers count: this file is not built for MPICH. */
#include <stdlib.h>

#include "shim.h"

typedef MPI_Fint F;

static MPI_Comm comm_of(const F* c) { return PMPI_Comm_f2c(*c); }
static MPI_Datatype type_of(const F* t) { return PMPI_Type_f2c(*t); }

static void send_to(const F* comm, const F* dest, const F* type, const F* count) {
  rm_count(RM_P2P, rm_world_of(comm_of(comm), *dest), rm_bytes(type_of(type), *count), 1);
}

static void persistent_made(const F* request, const F* comm, const F* dest, const F* type, const F* count) {
  rm_persistent_add(PMPI_Request_f2c(*request), rm_world_of(comm_of(comm), *dest), rm_bytes(type_of(type), *count));
}

static void start_all(const F* n, const F* requests) {
  for (F i = 0; i < *n; ++i) rm_persistent_start(PMPI_Request_f2c(requests[i]));
}

/* Fortran's MPI_IN_PLACE is the address of this common block (both
 * bindings share the one symbol), not C's MPI_IN_PLACE. */
extern char mpi_fortran_in_place_ __attribute__((weak));
static int in_place(const void* buf) { return buf == &mpi_fortran_in_place_; }

/* Counts arrays are passed to the C helpers as they are. */
_Static_assert(sizeof(F) == sizeof(int), "MPI_Fint is not int");

/* An array of Fortran type handles as C handles, one per rank of comm. */
static int types_of(const F* comm, const F* types, MPI_Datatype* out, int room) {
  rm_comm_info c;
  if (rm_comm(comm_of(comm), &c) != 0 || c.size > room) return -1;
  for (int i = 0; i < c.size; ++i) out[i] = type_of(&types[i]);
  return 0;
}

static void alltoallw(const F* comm, const void* sendbuf, const F* sn, const F* st, const F* rn, const F* rt) {
  rm_comm_info c;
  if (rm_comm(comm_of(comm), &c) != 0) return;
  const int n = c.size > 0 ? c.size : 1;
  MPI_Datatype stypes[n], rtypes[n];
  if (types_of(comm, st, stypes, n) == 0 && types_of(comm, rt, rtypes, n) == 0)
    rm_coll_alltoallw(comm_of(comm), in_place(sendbuf), sn, stypes, MPI_DATATYPE_NULL, rn, rtypes, MPI_DATATYPE_NULL);
}

static void neighbours_w(const F* comm, const F* counts, const F* types) {
  int *out, n;
  if (rm_out_neighbours(comm_of(comm), &out, &n) != 0) return;
  free(out);
  MPI_Datatype t[n > 0 ? n : 1];
  for (int i = 0; i < n; ++i) t[i] = type_of(&types[i]);
  rm_coll_neighbours_w(comm_of(comm), counts, t);
}

static void rma(const F* win, const F* target, const F* type, const F* count) {
  rm_count_rma(PMPI_Win_f2c(*win), *target, type_of(type), *count);
}

/* Defines mpi_NAME_ and mpi_NAME_f08_ around pmpi_NAME_ and pmpi_NAME_f08_. */
#define FWRAP1(SYMBOL, PARAMS, ARGS, COUNT, AFTER) \
  void p##SYMBOL PARAMS;                           \
  void SYMBOL PARAMS {                             \
    RM_ENTER;                                      \
    if (rm_outer) COUNT;                           \
    p##SYMBOL ARGS;                                \
    if (rm_outer) AFTER;                           \
    RM_LEAVE;                                      \
  }
#define FWRAP(NAME, PARAMS, ARGS, COUNT, AFTER)     \
  FWRAP1(mpi_##NAME##_, PARAMS, ARGS, COUNT, AFTER) \
  FWRAP1(mpi_##NAME##_f08_, PARAMS, ARGS, COUNT, AFTER)
#define NONE (void)0

#define P_SEND (void* b, F* n, F* t, F* d, F* tag, F* c, F* e)
#define A_SEND (b, n, t, d, tag, c, e)
FWRAP(send, P_SEND, A_SEND, send_to(c, d, t, n), NONE)
FWRAP(bsend, P_SEND, A_SEND, send_to(c, d, t, n), NONE)
FWRAP(ssend, P_SEND, A_SEND, send_to(c, d, t, n), NONE)
FWRAP(rsend, P_SEND, A_SEND, send_to(c, d, t, n), NONE)

#define P_ISEND (void* b, F* n, F* t, F* d, F* tag, F* c, F* r, F* e)
#define A_ISEND (b, n, t, d, tag, c, r, e)
FWRAP(isend, P_ISEND, A_ISEND, send_to(c, d, t, n), NONE)
FWRAP(ibsend, P_ISEND, A_ISEND, send_to(c, d, t, n), NONE)
FWRAP(issend, P_ISEND, A_ISEND, send_to(c, d, t, n), NONE)
FWRAP(irsend, P_ISEND, A_ISEND, send_to(c, d, t, n), NONE)
FWRAP(send_init, P_ISEND, A_ISEND, NONE, persistent_made(r, c, d, t, n))
FWRAP(bsend_init, P_ISEND, A_ISEND, NONE, persistent_made(r, c, d, t, n))
FWRAP(ssend_init, P_ISEND, A_ISEND, NONE, persistent_made(r, c, d, t, n))
FWRAP(rsend_init, P_ISEND, A_ISEND, NONE, persistent_made(r, c, d, t, n))
FWRAP(start, (F * r, F* e), (r, e), rm_persistent_start(PMPI_Request_f2c(*r)), NONE)
FWRAP(startall, (F * n, F* r, F* e), (n, r, e), start_all(n, r), NONE)
FWRAP(request_free, (F * r, F* e), (r, e), rm_persistent_free(PMPI_Request_f2c(*r)), NONE)

FWRAP(sendrecv, (void* sb, F* sn, F* st, F* d, F* stag, void* rb, F* rn, F* rt, F* s, F* rtag, F* c, F* status, F* e),
      (sb, sn, st, d, stag, rb, rn, rt, s, rtag, c, status, e), send_to(c, d, st, sn), NONE)
FWRAP(sendrecv_replace, (void* b, F* n, F* t, F* d, F* stag, F* s, F* rtag, F* c, F* status, F* e),
      (b, n, t, d, stag, s, rtag, c, status, e), send_to(c, d, t, n), NONE)
FWRAP(recv, (void* b, F* n, F* t, F* s, F* tag, F* c, F* status, F* e), (b, n, t, s, tag, c, status, e), NONE, NONE)
FWRAP(wait, (F * r, F* status, F* e), (r, status, e), NONE, NONE)
FWRAP(waitall, (F * n, F* r, F* status, F* e), (n, r, status, e), NONE, NONE)

FWRAP(bcast, (void* b, F* n, F* t, F* root, F* c, F* e), (b, n, t, root, c, e),
      rm_model_bcast(comm_of(c), *root, rm_bytes(type_of(t), *n)), NONE)
FWRAP(reduce, (void* s, void* d, F* n, F* t, F* op, F* root, F* c, F* e), (s, d, n, t, op, root, c, e),
      rm_model_reduce(comm_of(c), *root, rm_bytes(type_of(t), *n)), NONE)
FWRAP(allreduce, (void* s, void* d, F* n, F* t, F* op, F* c, F* e), (s, d, n, t, op, c, e),
      rm_model_allreduce(comm_of(c), rm_bytes(type_of(t), *n)), NONE)
FWRAP(gather, (void* s, F* sn, F* st, void* d, F* dn, F* dt, F* root, F* c, F* e), (s, sn, st, d, dn, dt, root, c, e),
      rm_model_gather(comm_of(c), *root, rm_bytes(type_of(st), *sn)), NONE)
FWRAP(scatter, (void* s, F* sn, F* st, void* d, F* dn, F* dt, F* root, F* c, F* e), (s, sn, st, d, dn, dt, root, c, e),
      rm_model_scatter(comm_of(c), *root, rm_bytes(type_of(st), *sn)), NONE)
FWRAP(allgather, (void* s, F* sn, F* st, void* d, F* dn, F* dt, F* c, F* e), (s, sn, st, d, dn, dt, c, e),
      rm_model_allgather(comm_of(c), rm_bytes(type_of(dt), *dn)), NONE)
FWRAP(alltoall, (void* s, F* sn, F* st, void* d, F* dn, F* dt, F* c, F* e), (s, sn, st, d, dn, dt, c, e),
      rm_model_alltoall(comm_of(c), rm_bytes(type_of(dt), *dn)), NONE)
FWRAP(alltoallv, (void* s, F* sn, F* sd, F* st, void* d, F* dn, F* dd, F* dt, F* c, F* e),
      (s, sn, sd, st, d, dn, dd, dt, c, e),
      rm_coll_alltoallw(comm_of(c), in_place(s), sn, NULL, type_of(st), dn, NULL, type_of(dt)), NONE)
FWRAP(reduce_scatter_block, (void* s, void* d, F* n, F* t, F* op, F* c, F* e), (s, d, n, t, op, c, e),
      rm_model_reduce_scatter(comm_of(c), NULL, rm_bytes(type_of(t), *n)), NONE)
FWRAP(scan, (void* s, void* d, F* n, F* t, F* op, F* c, F* e), (s, d, n, t, op, c, e),
      rm_model_scan(comm_of(c), rm_bytes(type_of(t), *n), 0), NONE)
FWRAP(exscan, (void* s, void* d, F* n, F* t, F* op, F* c, F* e), (s, d, n, t, op, c, e),
      rm_model_scan(comm_of(c), rm_bytes(type_of(t), *n), 1), NONE)
FWRAP(barrier, (F * c, F* e), (c, e), rm_model_barrier(comm_of(c)), NONE)
/* Communicator management: timed, no traffic (communicators.c). A
 * communicator or group made from a reordered one uses its ranks
 * (reorder_watch.c): Open MPI's Fortran never reaches communicators.c. */
#define USES(C) rm_reorder_touch(comm_of(C))
FWRAP(comm_dup, (F * c, F* n, F* e), (c, n, e), USES(c), NONE)
FWRAP(comm_split, (F * c, F* color, F* key, F* n, F* e), (c, color, key, n, e), USES(c), NONE)
FWRAP(comm_create, (F * c, F* g, F* n, F* e), (c, g, n, e), USES(c), NONE)
FWRAP(comm_group, (F * c, F* g, F* e), (c, g, e), USES(c), NONE)
FWRAP(cart_sub, (F * c, F* keep, F* n, F* e), (c, keep, n, e), USES(c), NONE)
FWRAP(comm_free, (F * c, F* e), (c, e), NONE, NONE)

/* The v- and w-forms. */
#define P_GATHERV(...) (void* s, F* sn, F* st, void* d, F* dn, F* dd, F* dt, F* root, F* c, __VA_ARGS__)
#define A_GATHERV(...) (s, sn, st, d, dn, dd, dt, root, c, __VA_ARGS__)
#define C_GATHERV rm_coll_gather(comm_of(c), *root, *sn, type_of(st))
#define P_SCATTERV(...) (void* s, F* sn, F* sd, F* st, void* d, F* dn, F* dt, F* root, F* c, __VA_ARGS__)
#define A_SCATTERV(...) (s, sn, sd, st, d, dn, dt, root, c, __VA_ARGS__)
#define C_SCATTERV rm_coll_scatterv(comm_of(c), *root, sn, type_of(st))
#define P_ALLGATHERV(...) (void* s, F* sn, F* st, void* d, F* dn, F* dd, F* dt, F* c, __VA_ARGS__)
#define A_ALLGATHERV(...) (s, sn, st, d, dn, dd, dt, c, __VA_ARGS__)
#define C_ALLGATHERV rm_coll_allgatherv(comm_of(c), *sn, type_of(st), dn, type_of(dt))
#define P_ALLTOALLW(...) (void* s, F* sn, F* sd, F* st, void* d, F* dn, F* dd, F* dt, F* c, __VA_ARGS__)
#define A_ALLTOALLW(...) (s, sn, sd, st, d, dn, dd, dt, c, __VA_ARGS__)
#define C_ALLTOALLW alltoallw(c, s, sn, st, dn, dt)
#define P_REDSCAT(...) (void* s, void* d, F* n, F* t, F* op, F* c, __VA_ARGS__)
#define A_REDSCAT(...) (s, d, n, t, op, c, __VA_ARGS__)
#define C_REDSCAT rm_coll_reduce_scatter(comm_of(c), n, type_of(t))
FWRAP(gatherv, P_GATHERV(F* e), A_GATHERV(e), C_GATHERV, NONE)
FWRAP(scatterv, P_SCATTERV(F* e), A_SCATTERV(e), C_SCATTERV, NONE)
FWRAP(allgatherv, P_ALLGATHERV(F* e), A_ALLGATHERV(e), C_ALLGATHERV, NONE)
FWRAP(alltoallw, P_ALLTOALLW(F* e), A_ALLTOALLW(e), C_ALLTOALLW, NONE)
FWRAP(reduce_scatter, P_REDSCAT(F* e), A_REDSCAT(e), C_REDSCAT, NONE)

/* Non-blocking collectives: counted at the call, as the C wrappers do. */
#define P_ROOTED (void* s, F* sn, F* st, void* d, F* dn, F* dt, F* root, F* c, F* r, F* e)
#define A_ROOTED (s, sn, st, d, dn, dt, root, c, r, e)
#define P_ALL (void* s, F* sn, F* st, void* d, F* dn, F* dt, F* c, F* r, F* e)
#define A_ALL (s, sn, st, d, dn, dt, c, r, e)
#define P_RED (void* s, void* d, F* n, F* t, F* op, F* c, F* r, F* e)
#define A_RED (s, d, n, t, op, c, r, e)
FWRAP(ibcast, (void* b, F* n, F* t, F* root, F* c, F* r, F* e), (b, n, t, root, c, r, e),
      rm_model_bcast(comm_of(c), *root, rm_bytes(type_of(t), *n)), NONE)
FWRAP(ireduce, (void* s, void* d, F* n, F* t, F* op, F* root, F* c, F* r, F* e), (s, d, n, t, op, root, c, r, e),
      rm_model_reduce(comm_of(c), *root, rm_bytes(type_of(t), *n)), NONE)
FWRAP(iallreduce, P_RED, A_RED, rm_model_allreduce(comm_of(c), rm_bytes(type_of(t), *n)), NONE)
FWRAP(igather, P_ROOTED, A_ROOTED, rm_coll_gather(comm_of(c), *root, *sn, type_of(st)), NONE)
FWRAP(iscatter, P_ROOTED, A_ROOTED, rm_model_scatter(comm_of(c), *root, rm_bytes(type_of(st), *sn)), NONE)
FWRAP(iallgather, P_ALL, A_ALL, rm_coll_allgather(comm_of(c), *sn, type_of(st), *dn, type_of(dt)), NONE)
FWRAP(ialltoall, P_ALL, A_ALL, rm_model_alltoall(comm_of(c), rm_bytes(type_of(dt), *dn)), NONE)
FWRAP(igatherv, P_GATHERV(F* r, F* e), A_GATHERV(r, e), C_GATHERV, NONE)
FWRAP(iscatterv, P_SCATTERV(F* r, F* e), A_SCATTERV(r, e), C_SCATTERV, NONE)
FWRAP(iallgatherv, P_ALLGATHERV(F* r, F* e), A_ALLGATHERV(r, e), C_ALLGATHERV, NONE)
FWRAP(ialltoallv, (void* s, F* sn, F* sd, F* st, void* d, F* dn, F* dd, F* dt, F* c, F* r, F* e),
      (s, sn, sd, st, d, dn, dd, dt, c, r, e),
      rm_coll_alltoallw(comm_of(c), in_place(s), sn, NULL, type_of(st), dn, NULL, type_of(dt)), NONE)
FWRAP(ialltoallw, P_ALLTOALLW(F* r, F* e), A_ALLTOALLW(r, e), C_ALLTOALLW, NONE)
FWRAP(ireduce_scatter, P_REDSCAT(F* r, F* e), A_REDSCAT(r, e), C_REDSCAT, NONE)
FWRAP(ireduce_scatter_block, P_RED, A_RED, rm_model_reduce_scatter(comm_of(c), NULL, rm_bytes(type_of(t), *n)), NONE)
FWRAP(iscan, P_RED, A_RED, rm_model_scan(comm_of(c), rm_bytes(type_of(t), *n), 0), NONE)
FWRAP(iexscan, P_RED, A_RED, rm_model_scan(comm_of(c), rm_bytes(type_of(t), *n), 1), NONE)
FWRAP(ibarrier, (F * c, F* r, F* e), (c, r, e), rm_model_barrier(comm_of(c)), NONE)

/* Neighbourhood collectives, blocking and not. */
#define P_NALL(...) (void* s, F* sn, F* st, void* d, F* dn, F* dt, F* c, __VA_ARGS__)
#define A_NALL(...) (s, sn, st, d, dn, dt, c, __VA_ARGS__)
#define C_NALL rm_coll_neighbours(comm_of(c), rm_bytes(type_of(st), *sn))
#define P_NALLV(...) (void* s, F* sn, F* st, void* d, F* dn, F* dd, F* dt, F* c, __VA_ARGS__)
#define A_NALLV(...) (s, sn, st, d, dn, dd, dt, c, __VA_ARGS__)
#define P_NV(...) (void* s, F* sn, F* sd, F* st, void* d, F* dn, F* dd, F* dt, F* c, __VA_ARGS__)
#define A_NV(...) (s, sn, sd, st, d, dn, dd, dt, c, __VA_ARGS__)
#define C_NV rm_coll_neighbours_v(comm_of(c), sn, type_of(st))
#define P_NW(...) (void* s, F* sn, MPI_Aint* sd, F* st, void* d, F* dn, MPI_Aint* dd, F* dt, F* c, __VA_ARGS__)
#define A_NW(...) (s, sn, sd, st, d, dn, dd, dt, c, __VA_ARGS__)
#define C_NW neighbours_w(c, sn, st)
FWRAP(neighbor_allgather, P_NALL(F* e), A_NALL(e), C_NALL, NONE)
FWRAP(ineighbor_allgather, P_NALL(F* r, F* e), A_NALL(r, e), C_NALL, NONE)
FWRAP(neighbor_alltoall, P_NALL(F* e), A_NALL(e), C_NALL, NONE)
FWRAP(ineighbor_alltoall, P_NALL(F* r, F* e), A_NALL(r, e), C_NALL, NONE)
FWRAP(neighbor_allgatherv, P_NALLV(F* e), A_NALLV(e), C_NALL, NONE)
FWRAP(ineighbor_allgatherv, P_NALLV(F* r, F* e), A_NALLV(r, e), C_NALL, NONE)
FWRAP(neighbor_alltoallv, P_NV(F* e), A_NV(e), C_NV, NONE)
FWRAP(ineighbor_alltoallv, P_NV(F* r, F* e), A_NV(r, e), C_NV, NONE)
FWRAP(neighbor_alltoallw, P_NW(F* e), A_NW(e), C_NW, NONE)
FWRAP(ineighbor_alltoallw, P_NW(F* r, F* e), A_NW(r, e), C_NW, NONE)

/* One-sided: origin bytes for Put and Accumulate, target bytes for Get. */
#define P_PUT(...) (void* o, F* on, F* ot, F* tr, MPI_Aint* td, F* tn, F* tt, F* w, __VA_ARGS__)
#define A_PUT(...) (o, on, ot, tr, td, tn, tt, w, __VA_ARGS__)
#define P_ACC(...) (void* o, F* on, F* ot, F* tr, MPI_Aint* td, F* tn, F* tt, F* op, F* w, __VA_ARGS__)
#define A_ACC(...) (o, on, ot, tr, td, tn, tt, op, w, __VA_ARGS__)
#define P_GACC(...) \
  (void* o, F* on, F* ot, void* res, F* rn, F* rt, F* tr, MPI_Aint* td, F* tn, F* tt, F* op, F* w, __VA_ARGS__)
#define A_GACC(...) (o, on, ot, res, rn, rt, tr, td, tn, tt, op, w, __VA_ARGS__)
FWRAP(put, P_PUT(F* e), A_PUT(e), rma(w, tr, ot, on), NONE)
FWRAP(rput, P_PUT(F* r, F* e), A_PUT(r, e), rma(w, tr, ot, on), NONE)
FWRAP(get, P_PUT(F* e), A_PUT(e), rma(w, tr, tt, tn), NONE)
FWRAP(rget, P_PUT(F* r, F* e), A_PUT(r, e), rma(w, tr, tt, tn), NONE)
FWRAP(accumulate, P_ACC(F* e), A_ACC(e), rma(w, tr, ot, on), NONE)
FWRAP(raccumulate, P_ACC(F* r, F* e), A_ACC(r, e), rma(w, tr, ot, on), NONE)
FWRAP(get_accumulate, P_GACC(F* e), A_GACC(e), rma(w, tr, tt, tn), NONE)
FWRAP(rget_accumulate, P_GACC(F* r, F* e), A_GACC(r, e), rma(w, tr, tt, tn), NONE)
static const F one = 1;
FWRAP(fetch_and_op, (void* o, void* res, F* t, F* tr, MPI_Aint* td, F* op, F* w, F* e), (o, res, t, tr, td, op, w, e),
      rma(w, tr, t, &one), NONE)
FWRAP(compare_and_swap, (void* o, void* cmp, void* res, F* t, F* tr, MPI_Aint* td, F* w, F* e),
      (o, cmp, res, t, tr, td, w, e), rma(w, tr, t, &one), NONE)

/* Timed only: the waits and synchronisations that make up time in MPI. */
FWRAP(irecv, (void* b, F* n, F* t, F* s, F* tag, F* c, F* r, F* e), (b, n, t, s, tag, c, r, e), NONE, NONE)
FWRAP(waitany, (F * n, F* r, F* i, F* status, F* e), (n, r, i, status, e), NONE, NONE)
FWRAP(waitsome, (F * n, F* r, F* o, F* i, F* status, F* e), (n, r, o, i, status, e), NONE, NONE)
FWRAP(test, (F * r, F* f, F* status, F* e), (r, f, status, e), NONE, NONE)
FWRAP(testall, (F * n, F* r, F* f, F* status, F* e), (n, r, f, status, e), NONE, NONE)
FWRAP(probe, (F * s, F* tag, F* c, F* status, F* e), (s, tag, c, status, e), NONE, NONE)
FWRAP(iprobe, (F * s, F* tag, F* c, F* f, F* status, F* e), (s, tag, c, f, status, e), NONE, NONE)
FWRAP(win_fence, (F * a, F* w, F* e), (a, w, e), NONE, NONE)
FWRAP(win_lock, (F * l, F* rank, F* a, F* w, F* e), (l, rank, a, w, e), NONE, NONE)
FWRAP(win_unlock, (F * rank, F* w, F* e), (rank, w, e), NONE, NONE)
FWRAP(win_lock_all, (F * a, F* w, F* e), (a, w, e), NONE, NONE)
FWRAP(win_unlock_all, (F * w, F* e), (w, e), NONE, NONE)
FWRAP(win_flush, (F * rank, F* w, F* e), (rank, w, e), NONE, NONE)
FWRAP(win_flush_all, (F * w, F* e), (w, e), NONE, NONE)

/* Start and stop: Open MPI's Fortran init does not pass through MPI_Init. */
void pmpi_init_(F* e);
void pmpi_init_f08_(F* e);
void pmpi_init_thread_(F* required, F* provided, F* e);
void pmpi_init_thread_f08_(F* required, F* provided, F* e);
void pmpi_finalize_(F* e);
void pmpi_finalize_f08_(F* e);

void mpi_init_(F* e) { pmpi_init_(e), rm_start_if_initialized(); }
void mpi_init_f08_(F* e) { pmpi_init_f08_(e), rm_start_if_initialized(); }
void mpi_init_thread_(F* required, F* provided, F* e) {
  pmpi_init_thread_(required, provided, e), rm_start_if_initialized();
}
void mpi_init_thread_f08_(F* required, F* provided, F* e) {
  pmpi_init_thread_f08_(required, provided, e), rm_start_if_initialized();
}
void mpi_finalize_(F* e) { rm_stop_and_write(), pmpi_finalize_(e); }
void mpi_finalize_f08_(F* e) { rm_stop_and_write(), pmpi_finalize_f08_(e); }
