/* Fortran under Open MPI. Its mpif.h / `use mpi` and `use mpi_f08` bindings
 * call PMPI_ directly, so the C wrappers never see a Fortran program's
 * calls: these wrap the Fortran symbols themselves (gfortran names: mpi_x_
 * and mpi_x_f08_) and call their pmpi_ twins. Both bindings pass handles as
 * Fortran integers by reference (an mpi_f08 handle is a type holding just
 * that integer), and mpi_f08's optional ierror may be NULL, which is only
 * passed on. MPICH's Fortran bindings call the C MPI_ functions, which the
 * C wrappers count: this file is not built for MPICH. */
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

static void counts_to(const F* comm, const F* counts, const F* type, void (*model)(MPI_Comm, const uint64_t*)) {
  rm_comm_info c;
  if (rm_comm(comm_of(comm), &c) != 0) return;
  uint64_t bytes[c.size > 0 ? c.size : 1];
  for (int i = 0; i < c.size; ++i) bytes[i] = rm_bytes(type_of(type), counts[i]);
  model(comm_of(comm), bytes);
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
#define FWRAP(NAME, PARAMS, ARGS, COUNT, AFTER)               \
  FWRAP1(mpi_##NAME##_, PARAMS, ARGS, COUNT, AFTER)          \
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

FWRAP(sendrecv,
      (void* sb, F* sn, F* st, F* d, F* stag, void* rb, F* rn, F* rt, F* s, F* rtag, F* c, F* status, F* e),
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
FWRAP(scatter, (void* s, F* sn, F* st, void* d, F* dn, F* dt, F* root, F* c, F* e),
      (s, sn, st, d, dn, dt, root, c, e), rm_model_scatter(comm_of(c), *root, rm_bytes(type_of(st), *sn)), NONE)
FWRAP(allgather, (void* s, F* sn, F* st, void* d, F* dn, F* dt, F* c, F* e), (s, sn, st, d, dn, dt, c, e),
      rm_model_allgather(comm_of(c), rm_bytes(type_of(dt), *dn)), NONE)
FWRAP(alltoall, (void* s, F* sn, F* st, void* d, F* dn, F* dt, F* c, F* e), (s, sn, st, d, dn, dt, c, e),
      rm_model_alltoall(comm_of(c), rm_bytes(type_of(dt), *dn)), NONE)
FWRAP(alltoallv, (void* s, F* sn, F* sd, F* st, void* d, F* dn, F* dd, F* dt, F* c, F* e),
      (s, sn, sd, st, d, dn, dd, dt, c, e), counts_to(c, sn, st, rm_model_alltoall_to), NONE)
FWRAP(reduce_scatter_block, (void* s, void* d, F* n, F* t, F* op, F* c, F* e), (s, d, n, t, op, c, e),
      rm_model_reduce_scatter(comm_of(c), NULL, rm_bytes(type_of(t), *n)), NONE)
FWRAP(scan, (void* s, void* d, F* n, F* t, F* op, F* c, F* e), (s, d, n, t, op, c, e),
      rm_model_scan(comm_of(c), rm_bytes(type_of(t), *n), 0), NONE)
FWRAP(exscan, (void* s, void* d, F* n, F* t, F* op, F* c, F* e), (s, d, n, t, op, c, e),
      rm_model_scan(comm_of(c), rm_bytes(type_of(t), *n), 1), NONE)
FWRAP(barrier, (F * c, F* e), (c, e), rm_model_barrier(comm_of(c)), NONE)

/* Start and stop: Open MPI's Fortran init does not pass through MPI_Init. */
void pmpi_init_(F* e);
void pmpi_init_f08_(F* e);
void pmpi_init_thread_(F* required, F* provided, F* e);
void pmpi_init_thread_f08_(F* required, F* provided, F* e);
void pmpi_finalize_(F* e);
void pmpi_finalize_f08_(F* e);

void mpi_init_(F* e) { pmpi_init_(e), rm_start_if_initialized(); }
void mpi_init_f08_(F* e) { pmpi_init_f08_(e), rm_start_if_initialized(); }
void mpi_init_thread_(F* required, F* provided, F* e) { pmpi_init_thread_(required, provided, e), rm_start_if_initialized(); }
void mpi_init_thread_f08_(F* required, F* provided, F* e) { pmpi_init_thread_f08_(required, provided, e), rm_start_if_initialized(); }
void mpi_finalize_(F* e) { rm_stop_and_write(), pmpi_finalize_(e); }
void mpi_finalize_f08_(F* e) { rm_stop_and_write(), pmpi_finalize_f08_(e); }
