/* The topology calls of reorder.c from Fortran.
 *
 * Open MPI's mpif.h / `use mpi` and `use mpi_f08` bindings, and MPICH's
 * mpi_f08 for calls without a choice buffer, call PMPI_ directly, so the C
 * functions of reorder.c never see a Fortran program's calls: these take
 * the Fortran symbols (gfortran's mpi_x_ and mpi_x_f08_; the same
 * arguments by reference, mpi_f08's ierror optional) and call the C
 * functions, which decide whether rankmap reorders. LOGICALs are nonzero
 * for .true. MPICH's mpif.h calls the C functions itself, so only its
 * mpi_f08 names are taken here.
 *
 * Fortran's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY arrive as the addresses
 * of the MPI's own Fortran objects and are turned into C's, as each MPI's
 * binding does (Open MPI: common blocks; MPICH: module variables). */
#include <stdlib.h>

#include "shim.h"

typedef MPI_Fint F;

#ifdef OPEN_MPI
extern char mpi_fortran_unweighted_ __attribute__((weak));
extern char mpi_fortran_weights_empty_ __attribute__((weak));
#define RM_F_UNWEIGHTED (&mpi_fortran_unweighted_)
#define RM_F_WEIGHTS_EMPTY (&mpi_fortran_weights_empty_)
#else
extern char __mpi_f08_link_constants_MOD_mpi_unweighted __attribute__((weak));
extern char __mpi_f08_link_constants_MOD_mpi_weights_empty __attribute__((weak));
#define RM_F_UNWEIGHTED (&__mpi_f08_link_constants_MOD_mpi_unweighted)
#define RM_F_WEIGHTS_EMPTY (&__mpi_f08_link_constants_MOD_mpi_weights_empty)
#endif

static const int* weights_of(const F* w) {
  if (w && (const void*)w == RM_F_UNWEIGHTED) return MPI_UNWEIGHTED;
  if (w && (const void*)w == RM_F_WEIGHTS_EMPTY) return MPI_WEIGHTS_EMPTY;
  return w;
}

static void set_error(F* ierr, int rc) {
  if (ierr) *ierr = rc;
}

/* A LOGICAL array as C's 0 and 1 (malloc'd; NULL when out of memory). */
static int* c_logicals(const F* values, F n) {
  int* c = malloc((size_t)(n > 0 ? n : 1) * sizeof *c);
  for (F i = 0; c && i < n; ++i) c[i] = values[i] != 0;
  return c;
}

/* ---- MPI_Cart_create ---- */

static void cart_create_f(const F* comm, const F* ndims, const F* dims, const F* periods, const F* reorder, F* out,
                          F* ierr) {
  int* c_periods = c_logicals(periods, *ndims);
  if (!c_periods) return set_error(ierr, MPI_ERR_NO_MEM);
  MPI_Comm made = MPI_COMM_NULL;
  const int rc = MPI_Cart_create(PMPI_Comm_f2c(*comm), *ndims, dims, c_periods, *reorder != 0, &made);
  free(c_periods);
  *out = PMPI_Comm_c2f(made);
  set_error(ierr, rc);
}
#ifdef OPEN_MPI
void mpi_cart_create_(const F* comm, const F* ndims, const F* dims, const F* periods, const F* reorder, F* out,
                      F* ierr) {
  cart_create_f(comm, ndims, dims, periods, reorder, out, ierr);
}
#endif
void mpi_cart_create_f08_(const F* comm, const F* ndims, const F* dims, const F* periods, const F* reorder, F* out,
                          F* ierr) {
  cart_create_f(comm, ndims, dims, periods, reorder, out, ierr);
}

/* ---- MPI_Graph_create ---- */

static void graph_create_f(const F* comm, const F* nnodes, const F* index, const F* edges, const F* reorder, F* out,
                           F* ierr) {
  MPI_Comm made = MPI_COMM_NULL;
  const int rc = MPI_Graph_create(PMPI_Comm_f2c(*comm), *nnodes, index, edges, *reorder != 0, &made);
  *out = PMPI_Comm_c2f(made);
  set_error(ierr, rc);
}
#ifdef OPEN_MPI
void mpi_graph_create_(const F* comm, const F* nnodes, const F* index, const F* edges, const F* reorder, F* out,
                       F* ierr) {
  graph_create_f(comm, nnodes, index, edges, reorder, out, ierr);
}
#endif
void mpi_graph_create_f08_(const F* comm, const F* nnodes, const F* index, const F* edges, const F* reorder, F* out,
                           F* ierr) {
  graph_create_f(comm, nnodes, index, edges, reorder, out, ierr);
}

/* ---- MPI_Dist_graph_create_adjacent ---- */

static void dist_adjacent_f(const F* comm, const F* indegree, const F* sources, const F* sourceweights,
                            const F* outdegree, const F* destinations, const F* destweights, const F* info,
                            const F* reorder, F* out, F* ierr) {
  MPI_Comm made = MPI_COMM_NULL;
  const int rc =
      MPI_Dist_graph_create_adjacent(PMPI_Comm_f2c(*comm), *indegree, sources, weights_of(sourceweights), *outdegree,
                                     destinations, weights_of(destweights), PMPI_Info_f2c(*info), *reorder != 0, &made);
  *out = PMPI_Comm_c2f(made);
  set_error(ierr, rc);
}
#ifdef OPEN_MPI
void mpi_dist_graph_create_adjacent_(const F* comm, const F* indegree, const F* sources, const F* sourceweights,
                                     const F* outdegree, const F* destinations, const F* destweights, const F* info,
                                     const F* reorder, F* out, F* ierr) {
  dist_adjacent_f(comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder, out,
                  ierr);
}
#endif
void mpi_dist_graph_create_adjacent_f08_(const F* comm, const F* indegree, const F* sources, const F* sourceweights,
                                         const F* outdegree, const F* destinations, const F* destweights, const F* info,
                                         const F* reorder, F* out, F* ierr) {
  dist_adjacent_f(comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder, out,
                  ierr);
}

/* ---- MPI_Dist_graph_create ---- */

static void dist_general_f(const F* comm, const F* n, const F* sources, const F* degrees, const F* destinations,
                           const F* weights, const F* info, const F* reorder, F* out, F* ierr) {
  MPI_Comm made = MPI_COMM_NULL;
  const int rc = MPI_Dist_graph_create(PMPI_Comm_f2c(*comm), *n, sources, degrees, destinations, weights_of(weights),
                                       PMPI_Info_f2c(*info), *reorder != 0, &made);
  *out = PMPI_Comm_c2f(made);
  set_error(ierr, rc);
}
#ifdef OPEN_MPI
void mpi_dist_graph_create_(const F* comm, const F* n, const F* sources, const F* degrees, const F* destinations,
                            const F* weights, const F* info, const F* reorder, F* out, F* ierr) {
  dist_general_f(comm, n, sources, degrees, destinations, weights, info, reorder, out, ierr);
}
#endif
void mpi_dist_graph_create_f08_(const F* comm, const F* n, const F* sources, const F* degrees, const F* destinations,
                                const F* weights, const F* info, const F* reorder, F* out, F* ierr) {
  dist_general_f(comm, n, sources, degrees, destinations, weights, info, reorder, out, ierr);
}

/* ---- MPI_Cart_map, MPI_Graph_map ---- */

static void cart_map_f(const F* comm, const F* ndims, const F* dims, const F* periods, F* newrank, F* ierr) {
  int* c_periods = c_logicals(periods, *ndims);
  if (!c_periods) return set_error(ierr, MPI_ERR_NO_MEM);
  int rank = 0;
  const int rc = MPI_Cart_map(PMPI_Comm_f2c(*comm), *ndims, dims, c_periods, &rank);
  free(c_periods);
  *newrank = rank;
  set_error(ierr, rc);
}
#ifdef OPEN_MPI
void mpi_cart_map_(const F* comm, const F* ndims, const F* dims, const F* periods, F* newrank, F* ierr) {
  cart_map_f(comm, ndims, dims, periods, newrank, ierr);
}
#endif
void mpi_cart_map_f08_(const F* comm, const F* ndims, const F* dims, const F* periods, F* newrank, F* ierr) {
  cart_map_f(comm, ndims, dims, periods, newrank, ierr);
}

static void graph_map_f(const F* comm, const F* nnodes, const F* index, const F* edges, F* newrank, F* ierr) {
  int rank = 0;
  const int rc = MPI_Graph_map(PMPI_Comm_f2c(*comm), *nnodes, index, edges, &rank);
  *newrank = rank;
  set_error(ierr, rc);
}
#ifdef OPEN_MPI
void mpi_graph_map_(const F* comm, const F* nnodes, const F* index, const F* edges, F* newrank, F* ierr) {
  graph_map_f(comm, nnodes, index, edges, newrank, ierr);
}
#endif
void mpi_graph_map_f08_(const F* comm, const F* nnodes, const F* index, const F* edges, F* newrank, F* ierr) {
  graph_map_f(comm, nnodes, index, edges, newrank, ierr);
}
