/* Communicator and window ranks as world ranks. The translation of a group
 * is computed once per communicator and cached on it as an attribute, which
 * MPI frees with the communicator; MPI_COMM_WORLD needs none. */
#include <pthread.h>
#include <stdlib.h>

#include "shim.h"

typedef struct {
  rm_comm_info info;
  int slot; /* calls.c's number for this communicator, -1 until its first collective */
  int table[];
} cached;

static int comm_key = MPI_KEYVAL_INVALID, win_key = MPI_KEYVAL_INVALID;
static MPI_Group world_group = MPI_GROUP_NULL;
static int world_rank;
int rm_world_size;
static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;

static int free_comm_cache(MPI_Comm c, int key, void* value, void* extra) {
  (void)c, (void)key, (void)extra;
  rm_call_slot_free(((cached*)value)->slot);
  free(value);
  return MPI_SUCCESS;
}
static int free_win_cache(MPI_Win w, int key, void* value, void* extra) {
  (void)w, (void)key, (void)extra;
  free(value);
  return MPI_SUCCESS;
}

void rm_peers_init(void) {
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_comm_cache, &comm_key, NULL);
  PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, free_win_cache, &win_key, NULL);
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &rm_world_size);
}

/* World ranks of every member of `group` (MPI_UNDEFINED becomes -1). */
static cached* translate(MPI_Group group, int local_rank, int local_size, int is_inter) {
  int n = 0;
  PMPI_Group_size(group, &n);
  cached* c = malloc(sizeof *c + (size_t)n * sizeof(int));
  int* ranks = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
  if (!c || !ranks) {
    free(c), free(ranks);
    return NULL;
  }
  for (int i = 0; i < n; ++i) ranks[i] = i;
  if (PMPI_Group_translate_ranks(group, n, ranks, world_group, c->table) != MPI_SUCCESS) {
    free(c), free(ranks);
    return NULL;
  }
  free(ranks);
  for (int i = 0; i < n; ++i)
    if (c->table[i] == MPI_UNDEFINED) c->table[i] = -1;
  c->info = (rm_comm_info){n, local_rank, local_size, is_inter, c->table};
  c->slot = -1;
  return c;
}

int rm_comm(MPI_Comm comm, rm_comm_info* info) {
  int* slot;
  return rm_comm_cached(comm, info, &slot);
}

int rm_comm_cached(MPI_Comm comm, rm_comm_info* info, int** slot) {
  *slot = NULL;
  if (comm == MPI_COMM_NULL) return -1;
  if (comm == MPI_COMM_WORLD) {
    *info = (rm_comm_info){rm_world_size, world_rank, rm_world_size, 0, NULL};
    return 0;
  }
  rm_reorder_touch(comm); /* a send or a collective on it */
  void* value = NULL;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, comm_key, &value, &found) == MPI_SUCCESS && found) {
    *info = ((cached*)value)->info;
    *slot = &((cached*)value)->slot;
    return 0;
  }
  /* Two threads may meet a new communicator at once; one builds. */
  pthread_mutex_lock(&build_lock);
  cached* c = NULL;
  if (PMPI_Comm_get_attr(comm, comm_key, &value, &found) == MPI_SUCCESS && found) {
    c = value;
  } else {
    int inter = 0, local_rank = 0, local_size = 0;
    MPI_Group group = MPI_GROUP_NULL;
    PMPI_Comm_test_inter(comm, &inter);
    PMPI_Comm_rank(comm, &local_rank);
    PMPI_Comm_size(comm, &local_size);
    if ((inter ? PMPI_Comm_remote_group(comm, &group) : PMPI_Comm_group(comm, &group)) == MPI_SUCCESS) {
      c = translate(group, local_rank, local_size, inter);
      PMPI_Group_free(&group);
      if (c && PMPI_Comm_set_attr(comm, comm_key, c) != MPI_SUCCESS) free(c), c = NULL;
    }
  }
  pthread_mutex_unlock(&build_lock);
  if (!c) return -1;
  *info = c->info;
  *slot = &c->slot;
  return 0;
}

int rm_world_of_slow(MPI_Comm comm, int rank) {
  rm_comm_info info;
  if (rank < 0 || rank == MPI_PROC_NULL || rm_comm(comm, &info) != 0 || rank >= info.size) return -1;
  return info.world ? info.world[rank] : rank;
}

int rm_win_world_of(MPI_Win win, int rank) {
  if (rank < 0 || rank == MPI_PROC_NULL || win == MPI_WIN_NULL) return -1;
  void* value = NULL;
  int found = 0;
  cached* c = NULL;
  /* As for communicators: the lock only when the window is new. */
  if (PMPI_Win_get_attr(win, win_key, &value, &found) == MPI_SUCCESS && found) {
    c = value;
  } else {
    pthread_mutex_lock(&build_lock);
    if (PMPI_Win_get_attr(win, win_key, &value, &found) == MPI_SUCCESS && found) {
      c = value;
    } else {
      MPI_Group group = MPI_GROUP_NULL;
      if (PMPI_Win_get_group(win, &group) == MPI_SUCCESS) {
        c = translate(group, 0, 0, 0);
        PMPI_Group_free(&group);
        if (c && PMPI_Win_set_attr(win, win_key, c) != MPI_SUCCESS) free(c), c = NULL;
      }
    }
    pthread_mutex_unlock(&build_lock);
  }
  return c && rank < c->info.size ? c->info.world[rank] : -1;
}
