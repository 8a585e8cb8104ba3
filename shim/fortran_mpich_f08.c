/* MPICH's mpi_f08 bindings: those with a choice buffer (sends, most
 * collectives) call the C MPI_ functions, which the C wrappers count; those
 * without one call PMPI_ directly, so init, finalize, barriers and
 * persistent starts are wrapped here (gfortran names mpi_x_f08_, calling
 * MPICH's profiling twins pmpir_x_f08_). Handles are Fortran integers by
 * reference; the optional ierror may be NULL and is only passed on. */
#include "shim.h"

typedef MPI_Fint F;

void pmpir_init_f08_(F* e);
void pmpir_init_thread_f08_(F* required, F* provided, F* e);
void pmpir_finalize_f08_(F* e);
void pmpir_barrier_f08_(F* comm, F* e);
void pmpir_ibarrier_f08_(F* comm, F* request, F* e);
void pmpir_start_f08_(F* request, F* e);
void pmpir_startall_f08_(F* n, F* requests, F* e);
void pmpir_request_free_f08_(F* request, F* e);
void pmpir_wait_f08_(F* request, F* status, F* e);
void pmpir_waitall_f08_(F* n, F* requests, F* statuses, F* e);
void pmpir_comm_dup_f08_(F* comm, F* made, F* e);
void pmpir_comm_split_f08_(F* comm, F* color, F* key, F* made, F* e);
void pmpir_comm_create_f08_(F* comm, F* group, F* made, F* e);
void pmpir_comm_group_f08_(F* comm, F* group, F* e);
void pmpir_cart_sub_f08_(F* comm, F* keep, F* made, F* e);

void mpi_init_f08_(F* e) { pmpir_init_f08_(e), rm_start_if_initialized(); }
void mpi_init_thread_f08_(F* required, F* provided, F* e) {
  pmpir_init_thread_f08_(required, provided, e), rm_start_if_initialized();
}
void mpi_finalize_f08_(F* e) { rm_stop_and_write(), pmpir_finalize_f08_(e); }

void mpi_barrier_f08_(F* comm, F* e) {
  RM_ENTER;
  if (rm_outer) rm_model_barrier(PMPI_Comm_f2c(*comm));
  pmpir_barrier_f08_(comm, e);
  RM_LEAVE;
}

void mpi_ibarrier_f08_(F* comm, F* request, F* e) {
  RM_ENTER;
  if (rm_outer) rm_model_barrier(PMPI_Comm_f2c(*comm));
  pmpir_ibarrier_f08_(comm, request, e);
  RM_LEAVE;
}

void mpi_start_f08_(F* request, F* e) {
  RM_ENTER;
  if (rm_outer) rm_persistent_start(PMPI_Request_f2c(*request));
  pmpir_start_f08_(request, e);
  RM_LEAVE;
}

void mpi_startall_f08_(F* n, F* requests, F* e) {
  RM_ENTER;
  if (rm_outer)
    for (F i = 0; i < *n; ++i) rm_persistent_start(PMPI_Request_f2c(requests[i]));
  pmpir_startall_f08_(n, requests, e);
  RM_LEAVE;
}

void mpi_request_free_f08_(F* request, F* e) {
  RM_ENTER;
  rm_persistent_free(PMPI_Request_f2c(*request));
  pmpir_request_free_f08_(request, e);
  RM_LEAVE;
}

/* A communicator or group made from a reordered one uses its ranks
 * (reorder_watch.c). */
#define DERIVES(NAME, PARAMS, ARGS)                       \
  void mpi_##NAME##_f08_ PARAMS {                         \
    RM_ENTER;                                             \
    if (rm_outer) rm_reorder_touch(PMPI_Comm_f2c(*comm)); \
    pmpir_##NAME##_f08_ ARGS;                             \
    RM_LEAVE;                                             \
  }
DERIVES(comm_dup, (F * comm, F* made, F* e), (comm, made, e))
DERIVES(comm_split, (F * comm, F* color, F* key, F* made, F* e), (comm, color, key, made, e))
DERIVES(comm_create, (F * comm, F* group, F* made, F* e), (comm, group, made, e))
DERIVES(comm_group, (F * comm, F* group, F* e), (comm, group, e))
DERIVES(cart_sub, (F * comm, F* keep, F* made, F* e), (comm, keep, made, e))

/* Timed only. */
void mpi_wait_f08_(F* request, F* status, F* e) {
  RM_ENTER;
  pmpir_wait_f08_(request, status, e);
  RM_LEAVE;
}

void mpi_waitall_f08_(F* n, F* requests, F* statuses, F* e) {
  RM_ENTER;
  pmpir_waitall_f08_(n, requests, statuses, e);
  RM_LEAVE;
}
