/* Where processes run, for reorder.c: this process's host and first bound
 * CPU, hosts numbered in order of first appearance, and (when the
 * processes agreed on RANKMAP_MACHINE, agree.c) every world process's
 * place, learnt once at MPI_Init on the shim's own communicator, so that
 * MPI_Cart_map and MPI_Graph_map, which need not be called by every
 * process, can answer without communicating.
 *
 * The world's places are kept small: each process sends a 64-bit hash of
 * its host name and its CPU (16 bytes), and one process a host sends the
 * name; a million processes on 20,000 hosts hold 21 MB each, not 260 MB. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

void rm_my_place(rm_place* place) {
  memset(place, 0, sizeof *place);
  const char* host = getenv("RANKMAP_HOST");
  if (host && *host) {
    snprintf(place->host, sizeof place->host, "%s", host);
  } else {
    int len = 0;
    char name[MPI_MAX_PROCESSOR_NAME];
    if (PMPI_Get_processor_name(name, &len) != MPI_SUCCESS) name[0] = '\0';
    snprintf(place->host, sizeof place->host, "%s", name);
  }
  place->cpu = -1;
  cpu_set_t set;
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) < online)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) {
        place->cpu = c;
        break;
      }
}

/* ---- Numbering in order of first appearance, in O(n log n) ---- */

typedef struct {
  int (*same_order)(const void* items, int a, int b); /* strcmp-like */
  const void* items;
} rm_key_order;

static int by_key_then_index(const void* a, const void* b, void* arg) {
  const rm_key_order* order = arg;
  const int x = *(const int*)a, y = *(const int*)b;
  const int c = order->same_order(order->items, x, y);
  return c != 0 ? c : (x > y) - (x < y);
}

/* group[p] = the number of p's key in order of first appearance; returns
 * how many keys, or -1 out of memory. */
static int number_by_key(int n, const rm_key_order* order, int32_t* group) {
  int* index = malloc((size_t)(n > 0 ? n : 1) * sizeof *index);
  int* first = malloc((size_t)(n > 0 ? n : 1) * sizeof *first);
  if (!index || !first) {
    free(index), free(first);
    return -1;
  }
  for (int p = 0; p < n; ++p) index[p] = p;
  qsort_r(index, (size_t)n, sizeof *index, by_key_then_index, (void*)order);
  /* Sorted by key, then by index: a run's first is the key's first appearance. */
  for (int i = 0; i < n; ++i)
    first[index[i]] =
        i > 0 && order->same_order(order->items, index[i - 1], index[i]) == 0 ? first[index[i - 1]] : index[i];
  int groups = 0;
  for (int p = 0; p < n; ++p) group[p] = first[p] == p ? groups++ : group[first[p]];
  free(index), free(first);
  return groups;
}

static int host_order(const void* items, int a, int b) {
  const rm_place* places = items;
  return strcmp(places[a].host, places[b].host);
}

/* names[0..n-1] joined by commas (malloc'd; NULL out of memory). */
static char* comma_list(const char* const* names, int n) {
  size_t length = 1;
  for (int k = 0; k < n; ++k) length += strlen(names[k]) + 1;
  char* list = malloc(length);
  if (!list) return NULL;
  char* at = list;
  *at = '\0';
  for (int k = 0; k < n; ++k) at += sprintf(at, "%s%s", k > 0 ? "," : "", names[k]);
  return list;
}

int rm_number_hosts(rm_place* places, int n, int32_t* node, char** hosts) {
  *hosts = NULL;
  for (int p = 0; p < n; ++p) places[p].host[sizeof places[p].host - 1] = '\0';
  const rm_key_order order = {host_order, places};
  const int nodes = number_by_key(n, &order, node);
  if (nodes < 0) return -1;
  /* The hosts in node order: each node's first process's. */
  const char** names = malloc((size_t)(nodes > 0 ? nodes : 1) * sizeof *names);
  if (!names) return -1;
  for (int p = 0, next = 0; p < n; ++p)
    if (node[p] == next) names[next++] = places[p].host;
  *hosts = comma_list(names, nodes);
  free(names);
  return *hosts ? nodes : -1;
}

/* ---- Every world process's place, learnt at MPI_Init ---- */

typedef struct {
  uint64_t host_hash;
  int32_t cpu;
  int32_t unused;
} rm_small_place;

static rm_small_place* world_places; /* NULL until learnt, or when not */
static int32_t* world_node;          /* per world rank */
static char (*world_hosts)[RM_HOST_MAX];

static uint64_t fnv1a(const char* s) {
  uint64_t h = 1469598103934665603ULL;
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

static int hash_order(const void* items, int a, int b) {
  const rm_small_place* places = items;
  return (places[a].host_hash > places[b].host_hash) - (places[a].host_hash < places[b].host_hash);
}

double rm_places_seconds;

void rm_places_start(void) {
  if (!rm_machine_text) return;
  const MPI_Comm world = rm_private_world;
  const double t0 = PMPI_Wtime();
  int size = 0;
  PMPI_Comm_size(world, &size);
  rm_place mine;
  rm_my_place(&mine);
  const rm_small_place small = {fnv1a(mine.host), mine.cpu, 0};
  rm_small_place* all = malloc((size_t)size * sizeof *all);
  int32_t* node = malloc((size_t)size * sizeof *node);
  int* counts = malloc((size_t)size * sizeof *counts);
  int* starts = malloc((size_t)size * sizeof *starts);
  /* Every process must hold the tables before any sends: else none learns. */
  int held = all && node && counts && starts, everyone = 0;
  PMPI_Allreduce(&held, &everyone, 1, MPI_INT, MPI_MIN, world);
  char(*hosts)[RM_HOST_MAX] = NULL;
  int nodes = -1;
  if (everyone) {
    PMPI_Allgather(&small, (int)sizeof small, MPI_BYTE, all, (int)sizeof small, MPI_BYTE, world);
    const rm_key_order order = {hash_order, all};
    nodes = number_by_key(size, &order, node);
    hosts = nodes > 0 ? malloc((size_t)nodes * sizeof *hosts) : NULL;
  }
  held = hosts != NULL, everyone = 0;
  PMPI_Allreduce(&held, &everyone, 1, MPI_INT, MPI_MIN, world);
  if (everyone) {
    /* The first process of each host sends its name. */
    int32_t next = 0;
    int rank = 0;
    PMPI_Comm_rank(world, &rank);
    for (int p = 0; p < size; ++p) {
      const int first = node[p] == next;
      counts[p] = first ? RM_HOST_MAX : 0;
      starts[p] = first ? next * RM_HOST_MAX : 0;
      next += first;
    }
    PMPI_Allgatherv(mine.host, counts[rank], MPI_CHAR, hosts, counts, starts, MPI_CHAR, world);
    world_places = all, world_node = node, world_hosts = hosts;
    all = NULL, node = NULL, hosts = NULL;
  }
  free(all), free(node), free(hosts), free(counts), free(starts);
  rm_places_seconds = PMPI_Wtime() - t0;
}

int rm_places_of(MPI_Comm comm, int size, int32_t* node, int32_t* cpu, char** hosts) {
  *hosts = NULL;
  if (!world_places) return -1;
  int world_size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  /* World nodes renumbered in order of first appearance in comm. */
  int32_t* local = malloc((size_t)world_size * sizeof *local);
  int32_t* first = malloc((size_t)world_size * sizeof *first);
  if (!local || !first) {
    free(local), free(first);
    return -1;
  }
  for (int w = 0; w < world_size; ++w) local[w] = -1;
  int nodes = 0;
  for (int p = 0; p < size; ++p) {
    const int w = rm_world_of(comm, p);
    if (w < 0) {
      free(local), free(first);
      return -1;
    }
    const int32_t n = world_node[w];
    if (local[n] < 0) first[nodes] = n, local[n] = nodes++;
    node[p] = local[n];
    cpu[p] = world_places[w].cpu;
  }
  const char** names = malloc((size_t)(nodes > 0 ? nodes : 1) * sizeof *names);
  for (int k = 0; names && k < nodes; ++k) names[k] = world_hosts[first[k]];
  *hosts = names ? comma_list(names, nodes) : NULL;
  free(names), free(local), free(first);
  return *hosts ? nodes : -1;
}
