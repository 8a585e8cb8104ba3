/* Applications written for MPIs that never reordered.
 *
 * Open MPI and MPICH return the old order from every topology call, so
 * code that reads its coordinates and neighbours from a reordered
 * communicator, frees it, and then sends on its world communicator with
 * those ranks has always worked (LAMMPS's `map cart/reorder`,
 * ProcMap::cart_map). Under a real reorder those ranks name other
 * processes there, and the job hangs at its first exchange.
 *
 * The rule: a communicator rankmap reordered that is freed before any of
 * its processes communicated on it (a send, a collective, a window, a
 * communicator or group derived from it) can only have lent its ranks to
 * another communicator. Then the job stops at once, with one line from
 * rank 0 that says so and what to use instead, rather than hang. A job
 * that communicates on it, on any one process, runs as before.
 *
 * Each reordered communicator carries an attribute with a duplicate of it
 * that is the shim's own. Its delete callback, which MPI runs inside
 * MPI_Comm_free (from C or Fortran), asks every process whether it used
 * the communicator with a non-blocking allreduce on that duplicate, and
 * waits a bounded time: a process that never frees its copy (erroneous,
 * but seen) delays the others by that time, never hangs them. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"

typedef struct {
  MPI_Comm own; /* the shim's duplicate: the question is asked there */
  int used;
} rm_watch;

static int watch_key = MPI_KEYVAL_INVALID;
int rm_watching; /* reordered communicators alive: 0 keeps rm_reorder_touch free */

enum {
  RM_WATCH_WAIT_SECONDS = 10, /* for every process to answer whether it used the communicator */
  RM_WATCH_LINE_SECONDS = 1,  /* rank 0's line on its way through the launcher before its abort */
  RM_WATCH_STOP_SECONDS = 30, /* the others, before they stop the job without rank 0 */
};

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void stop_the_job(MPI_Comm own) {
  int rank = 0;
  PMPI_Comm_rank(own, &rank);
  if (rank == 0) {
    fprintf(stderr,
            "rankmap: reorder: the application freed its reordered communicator without communicating on it, so "
            "it will use those ranks on another communicator, where they name other processes (code written for "
            "MPIs that never reorder); stopping now rather than hang. Run it without RANKMAP_MACHINE (or with "
            "reorder = 0: for LAMMPS, `processors * * * map cart`) and let `rankmap run` place its ranks at "
            "launch\n");
    fflush(stderr);
    /* The launcher reads a process's output and its abort on different
     * channels: under load a job under Hydra ended without the line (or
     * MPICH's own), the abort seemingly acted on first. A second lets the
     * line through. */
    sleep(RM_WATCH_LINE_SECONDS);
  } else {
    /* Rank 0's abort ends this process; aborting sooner could cut rank 0
     * off before its line. The wait is bounded: should rank 0 never get
     * there, this process stops the job itself. */
    sleep(RM_WATCH_STOP_SECONDS);
  }
  PMPI_Abort(MPI_COMM_WORLD, 1);
}

static int on_free(MPI_Comm comm, int key, void* value, void* extra) {
  (void)comm, (void)key, (void)extra;
  rm_watch* w = value;
  --rm_watching;
  int used = w->used, anyone = 1, done = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  if (PMPI_Iallreduce(&used, &anyone, 1, MPI_INT, MPI_MAX, w->own, &request) != MPI_SUCCESS) {
    PMPI_Comm_free(&w->own);
    free(w);
    return MPI_SUCCESS;
  }
  const double until = seconds() + RM_WATCH_WAIT_SECONDS;
  while (!done && PMPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done && seconds() < until)
    usleep(1000);
  if (!done) { /* a process that does not free its copy: give up the question, leave its request */
    free(w);
    return MPI_SUCCESS;
  }
  if (!anyone) stop_the_job(w->own);
  PMPI_Comm_free(&w->own);
  free(w);
  return MPI_SUCCESS;
}

void rm_watch_reordered(MPI_Comm made, MPI_Comm* spare) {
  if (watch_key == MPI_KEYVAL_INVALID &&
      PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_free, &watch_key, NULL) != MPI_SUCCESS)
    return;
  rm_watch* w = malloc(sizeof *w);
  /* The caller's spare duplicate of the old communicator (the same
   * processes) when it has one of its own, else a duplicate of `made`:
   * collective over `made`, whose processes all come here after the same
   * call. */
  MPI_Comm own = MPI_COMM_NULL;
  int dup = 0;
  if (spare && *spare != MPI_COMM_NULL && *spare != rm_private_world)
    own = *spare, *spare = MPI_COMM_NULL, dup = 1;
  else
    dup = PMPI_Comm_dup(made, &own) == MPI_SUCCESS;
  if (!w || !dup) { /* this process never asks: the others give up after their wait, and go on */
    if (dup) PMPI_Comm_free(&own);
    free(w);
    return;
  }
  PMPI_Comm_set_errhandler(own, MPI_ERRORS_RETURN);
  w->own = own, w->used = 0;
  if (PMPI_Comm_set_attr(made, watch_key, w) != MPI_SUCCESS) {
    PMPI_Comm_free(&own);
    free(w);
    return;
  }
  ++rm_watching;
}

void rm_reorder_touch_slow(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || comm == MPI_COMM_WORLD || watch_key == MPI_KEYVAL_INVALID) return;
  void* value = NULL;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, watch_key, &value, &found) == MPI_SUCCESS && found) ((rm_watch*)value)->used = 1;
}
