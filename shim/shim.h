/* Internal to the PMPI shim: what the wrappers share.
 *
 * Every wrapper follows one pattern: RM_ENTER, count the call's traffic if
 * this is the outermost MPI call of the thread (an MPI call the library makes
 * internally through the public name is neither counted nor timed twice),
 * call PMPI, RM_LEAVE. Counting never fails the application: a table that
 * cannot grow drops the sample and the profile says so. */
#ifndef RANKMAP_SHIM_H
#define RANKMAP_SHIM_H

#include <mpi.h>
#include <stdint.h>

typedef enum { RM_P2P = 0, RM_COLL = 1, RM_RMA = 2, RM_KINDS = 3 } rm_kind;

/* Time and nesting. */
int rm_enter(uint64_t* t0);             /* 1 when outermost and profiling */
void rm_leave(int outer, uint64_t t0);  /* adds the time spent in MPI */
#define RM_ENTER  \
  uint64_t rm_t0; \
  const int rm_outer = rm_enter(&rm_t0)
#define RM_LEAVE rm_leave(rm_outer, rm_t0)

/* A C wrapper: COUNT (one expression) when outermost, then PMPI_NAME. */
#define RM_WRAP(NAME, PARAMS, ARGS, COUNT) \
  int MPI_##NAME PARAMS {                  \
    RM_ENTER;                              \
    if (rm_outer) COUNT;                   \
    const int rc = PMPI_##NAME ARGS;       \
    RM_LEAVE;                              \
    return rc;                             \
  }

/* Life cycle (state.c): started after MPI_Init, stopped in MPI_Finalize. */
void rm_start(int thread_level);
void rm_start_if_initialized(void); /* after a Fortran init */
void rm_stop_and_write(void);
int rm_active(void);

/* Traffic to a world rank (no-op for a negative rank). */
void rm_count(rm_kind kind, int world_dst, uint64_t bytes, uint64_t msgs);
uint64_t rm_bytes(MPI_Datatype type, MPI_Count count);

/* Ranks (peers.c). A communicator's ranks as world ranks: its local group,
 * or for an inter-communicator its remote group (where sends go). */
typedef struct {
  int size;        /* of the group that ranks refer to */
  int local_rank;  /* this process in the local group */
  int local_size;
  int is_inter;
  const int* world; /* world rank of each rank of that group */
} rm_comm_info;
int rm_comm(MPI_Comm comm, rm_comm_info* info); /* 0 on success */
int rm_world_of(MPI_Comm comm, int rank);        /* -1: PROC_NULL or unknown */
int rm_win_world_of(MPI_Win win, int rank);
void rm_peers_init(void);

/* Persistent requests (p2p.c): what Start must count. */
void rm_persistent_add(MPI_Request request, int world_dst, uint64_t bytes);
void rm_persistent_start(MPI_Request request);
void rm_persistent_free(MPI_Request request);

/* Collective models (collectives.c), from the calling rank's view. */
void rm_model_bcast(MPI_Comm comm, int root, uint64_t bytes);
void rm_model_reduce(MPI_Comm comm, int root, uint64_t bytes);
void rm_model_allreduce(MPI_Comm comm, uint64_t bytes);
void rm_model_gather(MPI_Comm comm, int root, uint64_t bytes);
void rm_model_scatterv(MPI_Comm comm, int root, const uint64_t* bytes_to); /* bytes_to[size] at root */
void rm_model_scatter(MPI_Comm comm, int root, uint64_t bytes_each);
void rm_model_allgatherv(MPI_Comm comm, const uint64_t* block); /* block[size]; intra-communicators */
void rm_model_allgather(MPI_Comm comm, uint64_t bytes_each);
void rm_model_alltoall_to(MPI_Comm comm, const uint64_t* bytes_to); /* bytes_to[size] */
void rm_model_alltoall(MPI_Comm comm, uint64_t bytes_each);
/* block[size], or NULL when every block has `equal` bytes. */
void rm_model_reduce_scatter(MPI_Comm comm, const uint64_t* block, uint64_t equal);
void rm_model_scan(MPI_Comm comm, uint64_t bytes, int exclusive);
void rm_model_barrier(MPI_Comm comm);
/* Neighbourhood: out-neighbours of a topology communicator. */
int rm_out_neighbours(MPI_Comm comm, int** out, int* count); /* caller frees *out */

#endif
