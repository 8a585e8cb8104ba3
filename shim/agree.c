/* Whether this job reorders, decided by every process together at MPI_Init.
 *
 * One process's environment must never decide whether a collective
 * happens: with RANKMAP_MACHINE set on some processes only (a per-rank
 * environment, an MPMD launch), a process that gathers places while
 * another does not meets the application's first collective instead, and
 * its sums come out wrong. So every process, set or not, takes part in
 * one allreduce of a hash of the machine file's text (0: unset), on a
 * communicator of the shim's own; the job reorders only when every hash
 * is the same and not 0. The text read here is the one the topology calls
 * parse, so MPI_Cart_map and MPI_Graph_map, which choose without
 * communicating, are given the same inputs on every process. When the
 * processes disagree, rank 0 says so in one line and every topology call
 * is MPI's own. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

MPI_Comm rm_private_world = MPI_COMM_NULL;
const char* rm_machine_text;

enum { RM_MACHINE_MAX = 64 << 20 }; /* a machine file is a few kB; read no further */

/* The file's text (malloc'd, NUL-terminated), or NULL when unreadable. */
static char* read_text(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  size_t size = 0, room = 4096;
  char* text = malloc(room);
  while (text) {
    size += fread(text + size, 1, room - 1 - size, f);
    if (size < room - 1 || room >= RM_MACHINE_MAX) break;
    char* bigger = realloc(text, room * 2);
    if (!bigger) free(text);
    text = bigger, room *= 2;
  }
  const int failed = ferror(f);
  fclose(f);
  if (!text || failed) {
    free(text);
    return NULL;
  }
  text[size] = '\0';
  return text;
}

static uint64_t fnv1a_bytes(const char* s, uint64_t h) {
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

void rm_agree_start(void) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (PMPI_Comm_dup(MPI_COMM_WORLD, &rm_private_world) != MPI_SUCCESS) {
    rm_private_world = MPI_COMM_NULL; /* every process fails the same collective call */
    return;
  }
  PMPI_Comm_set_errhandler(rm_private_world, MPI_ERRORS_RETURN);
  const char* path = getenv("RANKMAP_MACHINE");
  const int set = path && *path;
  char* text = set ? read_text(path) : NULL;
  /* 0 unset; an unreadable file hashes as its absence of text, so that
   * processes that all fail to read it agree, and the machine's loader
   * then says why. */
  uint64_t hash = 0;
  if (set) hash = fnv1a_bytes(text ? text : "", 1469598103934665603ULL) | 1;
  /* The largest hash and the largest complement: equal everywhere iff the
   * smallest is the largest. */
  uint64_t mine[2] = {hash, ~hash}, most[2] = {0, 0};
  const int agreed_call = PMPI_Allreduce(mine, most, 2, MPI_UINT64_T, MPI_MAX, rm_private_world) == MPI_SUCCESS;
  const uint64_t highest = most[0], lowest = ~most[1];
  if (agreed_call && highest != 0 && highest == lowest && text) {
    rm_machine_text = text;
    return;
  }
  free(text);
  if (agreed_call && highest != 0 && rank == 0) {
    if (highest != lowest)
      fprintf(stderr,
              "rankmap: reorder: RANKMAP_MACHINE is not the same machine file on every process (unset on some, or "
              "files that differ); every topology call is the MPI's own\n");
    else
      fprintf(stderr, "rankmap: reorder: RANKMAP_MACHINE=%.300s cannot be read; every topology call is the MPI's own\n",
              set ? path : "");
  }
}
