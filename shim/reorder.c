/* MPI's topology calls with reorder = 1, answered by rankmap: with
 * RANKMAP_MACHINE=machine.toml set, MPI_Cart_create, MPI_Graph_create,
 * MPI_Dist_graph_create_adjacent and MPI_Dist_graph_create renumber the
 * processes of the new communicator so that the topology's neighbours run
 * close on the machine (rankmap_reorder, over the C API); MPI_Cart_map and
 * MPI_Graph_map return the rank the create calls would give.
 *
 * How: every process tells rank 0 where it runs (its host, from
 * RANKMAP_HOST or MPI_Get_processor_name, and the first CPU it is bound
 * to); rank 0 maps the topology's graph onto exactly those places and
 * broadcasts the choice; the new communicator is PMPI_Comm_split of the
 * old one with the chosen order, and the MPI's own create call with
 * reorder = 0 on it, so that every topology query stays the MPI's own.
 * Rank r of the new communicator takes the role of rank r of the topology
 * (its grid coordinates, its graph neighbours).
 *
 * It lives in the profiling shim, so that one preloaded library profiles
 * and reorders in the same run; librankmap is linked only through its C
 * API. Safe by construction: reorder = 0, processes that did not all name
 * the same machine file at MPI_Init (agree.c), MPI_COMM_NULL, an
 * inter-communicator, a topology of another size than the communicator,
 * weights on some processes and MPI_UNWEIGHTED on others, a host the
 * machine file does not name, or any failure of the mapping gives exactly
 * the MPI's own call (one line on rank 0's stderr says why, once a process
 * for each reason). Only calls the standard already makes collective
 * communicate, and then on a duplicate of the old communicator that is the
 * shim's own, never on one the application uses; the map calls, which the
 * standard does not make collective, answer alone from the places learnt
 * at MPI_Init (places.c). A reordered communicator freed before anyone
 * communicated on it stops the job (reorder_watch.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rankmap/rankmap.h"
#include "shim.h"

/* Each reason once a process (a job may meet several), on rank 0 only. */
static void say_once(int rank, const char* why) {
  enum { kReasons = 32 };
  static uint64_t said[kReasons];
  static int count;
  if (rank != 0) return;
  uint64_t h = 1469598103934665603ULL;
  for (const char* c = why; *c; ++c) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
  for (int i = 0; i < count; ++i)
    if (said[i] == h) return;
  if (count < kReasons) said[count++] = h;
  fprintf(stderr, "rankmap: reorder: %s; the MPI's own order is kept\n", why);
}

/* The topology's graph, built the same on every process from what the
 * call was given (Cartesian, graph) or gathered (dist-graph). */
typedef int (*rm_graph_builder)(const void* arg, rankmap_graph** out, rankmap_error* err);

/* With RANKMAP_REORDER_TIMES set, rank 0 says where a reordering call's
 * time went (bench/reorder_cost.sh). */
static double rm_times[4]; /* gather, engine, broadcast, new communicator */

/* Maps the topology's graph onto the processes' places (node[p], cpu[p]
 * for each rank p of the old communicator; hosts a comma list in node
 * order): order[r] = the old rank of the process that takes new rank r.
 * Returns 1 when reordered, 0 when the old order stays (why says why). */
static int map_places(int size, const int32_t* node, const int32_t* cpu, const char* hosts, rm_graph_builder build,
                      const void* arg, int* order, char* why, size_t why_size) {
  /* Filled by the library on its failures; a graph builder's own is memory. */
  rankmap_error err = {RANKMAP_ERR_MEMORY, "out of memory making the topology's graph"};
  rankmap_machine* machine = NULL;
  rankmap_allocation* allocation = NULL;
  rankmap_context* context = NULL;
  rankmap_graph* graph = NULL;
  uint32_t* process_of_rank = calloc((size_t)size, sizeof *process_of_rank);
  rankmap_reordering result;
  int reordered = 0;
  if (!process_of_rank) {
    snprintf(why, why_size, "out of memory");
  } else if (rankmap_machine_parse(rm_machine_text, &machine, &err) != RANKMAP_OK ||
             rankmap_allocation_create(machine, hosts, 0, 0, &allocation, &err) != RANKMAP_OK ||
             rankmap_context_create("default", 1, &context, &err) != RANKMAP_OK ||
             /* Every rank computes the same order at once: one thread each
              * keeps the node's cores to the application. */
             rankmap_context_set_threads(context, 1, &err) != RANKMAP_OK || build(arg, &graph, &err) != RANKMAP_OK ||
             rankmap_reorder(graph, machine, allocation, context, (uint32_t)size, node, cpu, process_of_rank, &result,
                             &err) != RANKMAP_OK) {
    snprintf(why, why_size, "%s", err.message);
  } else if (result.identity) {
    snprintf(why, why_size, "%s", result.why);
  } else {
    for (int r = 0; r < size; ++r) order[r] = (int)process_of_rank[r];
    reordered = 1;
  }
  rankmap_graph_free(graph);
  rankmap_context_free(context);
  rankmap_allocation_free(allocation);
  rankmap_machine_free(machine);
  free(process_of_rank);
  return reordered;
}

/* Rank 0 chooses; `order` (size entries) gets, for each new rank, the old
 * rank of the process that takes it. Returns 1 when reordered, 0 when the
 * old order stays (said once on rank 0). Collective over `comm`. */
static int choose_order(MPI_Comm comm, rm_graph_builder build, const void* arg, int* order) {
  const double t0 = PMPI_Wtime();
  int rank = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  rm_place mine;
  rm_my_place(&mine);
  rm_place* places = rank == 0 ? calloc((size_t)size, sizeof *places) : NULL;
  int ok = rank != 0 || places != NULL;
  PMPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, places, (int)sizeof mine, MPI_BYTE, 0, comm);
  /* order[0..size-1], then a status: 1 reordered, 0 kept. */
  int* answer = calloc((size_t)size + 1, sizeof *answer);
  if (!answer) ok = 0;
  char why[600] = "";
  const double t1 = PMPI_Wtime();
  if (rank == 0 && ok && answer) {
    int32_t* node = calloc((size_t)size, sizeof *node);
    int32_t* cpu = calloc((size_t)size, sizeof *cpu);
    char* hosts = NULL;
    if (!node || !cpu || rm_number_hosts(places, size, node, &hosts) < 0) {
      snprintf(why, sizeof why, "out of memory");
    } else {
      for (int p = 0; p < size; ++p) cpu[p] = places[p].cpu;
      answer[size] = map_places(size, node, cpu, hosts, build, arg, answer, why, sizeof why);
    }
    free(node), free(cpu), free(hosts);
  }
  free(places);
  const double t2 = PMPI_Wtime();
  /* Every process must hold the answer before rank 0 sends it. */
  int held = answer != NULL, everyone = 0;
  PMPI_Allreduce(&held, &everyone, 1, MPI_INT, MPI_MIN, comm);
  if (everyone) PMPI_Bcast(answer, size + 1, MPI_INT, 0, comm);
  int reordered = everyone && answer[size] == 1;
  /* Everyone must agree: a process that could not take part keeps all on the MPI's own order. */
  int all = 0;
  PMPI_Allreduce(&reordered, &all, 1, MPI_INT, MPI_MIN, comm);
  if (all)
    memcpy(order, answer, (size_t)size * sizeof *order);
  else
    say_once(rank, *why ? why : "a process could not take part");
  free(answer);
  rm_times[0] = t1 - t0, rm_times[1] = t2 - t1, rm_times[2] = PMPI_Wtime() - t2;
  return all;
}

/* The same choice made by this process alone, from the places learnt at
 * MPI_Init (places.c), for MPI_Cart_map and MPI_Graph_map, which the
 * standard does not make collective: every process that asks computes the
 * same answer (the engine is deterministic), and none waits for another.
 * Returns the new rank of this process, or -1 when the old order stays. */
static int choose_alone(MPI_Comm comm, rm_graph_builder build, const void* arg) {
  int rank = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  int32_t* node = malloc((size_t)size * sizeof *node);
  int32_t* cpu = malloc((size_t)size * sizeof *cpu);
  int* order = malloc((size_t)size * sizeof *order);
  char* hosts = NULL;
  char why[600] = "";
  int mine = -1;
  if (!node || !cpu || !order)
    snprintf(why, sizeof why, "out of memory");
  else if (rm_places_of(comm, size, node, cpu, &hosts) < 0)
    snprintf(why, sizeof why, "the processes' places were not learnt at MPI_Init");
  else if (map_places(size, node, cpu, hosts, build, arg, order, why, sizeof why))
    for (int r = 0; r < size; ++r)
      if (order[r] == rank) mine = r;
  if (mine < 0) say_once(rank, *why ? why : "no new rank for this process");
  free(node), free(cpu), free(order), free(hosts);
  return mine;
}

static void say_times(MPI_Comm comm, double since) {
  int rank = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  if (rank != 0 || !getenv("RANKMAP_REORDER_TIMES")) return;
  rm_times[3] = PMPI_Wtime() - since;
  fprintf(stderr,
          "rankmap: reorder: %d processes: gather %.1f ms, engine %.1f ms, broadcast %.1f ms, new communicator %.1f "
          "ms (and once at MPI_Init, every place for the map calls: %.1f ms)\n",
          size, 1e3 * rm_times[0], 1e3 * rm_times[1], 1e3 * rm_times[2], 1e3 * rm_times[3], 1e3 * rm_places_seconds);
}

/* The communicator whose rank r is old rank order[r]. */
static int split_in_order(MPI_Comm comm, const int* order, MPI_Comm* out) {
  int rank = 0, size = 0, key = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  for (int r = 0; r < size; ++r)
    if (order[r] == rank) key = r;
  return PMPI_Comm_split(comm, 0, key, out);
}

/* Whether rankmap should try: reorder asked, a machine named, an
 * intra-communicator of `expected` processes. When the communicator is
 * the reason not to, rank 0 says so once; the caller makes the MPI's own
 * call. */
static int wanted(MPI_Comm comm, int reorder, int expected) {
  if (!reorder || !rm_machine_text) return 0; /* not every process named the same machine: agree.c */
  int inter = 0, size = 0, rank = 0;
  if (comm == MPI_COMM_NULL) {
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    say_once(rank, "MPI_COMM_NULL is not a communicator");
    return 0;
  }
  rm_reorder_touch(comm); /* a topology made on a reordered communicator uses its ranks */
  PMPI_Comm_rank(comm, &rank);
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) {
    say_once(rank, "an inter-communicator");
    return 0;
  }
  PMPI_Comm_size(comm, &size);
  if (size != expected) {
    say_once(rank, "a topology of another size than the communicator");
    return 0;
  }
  return 1;
}

/* A communicator of the shim's own with comm's processes, for its
 * collectives: the duplicate of MPI_COMM_WORLD made at MPI_Init (agree.c)
 * for the world itself, else a duplicate made now (collective over comm,
 * as the create call is). Returns 0 when none could be had. */
static int private_copy(MPI_Comm comm, MPI_Comm* work) {
  if (comm == MPI_COMM_WORLD && rm_private_world != MPI_COMM_NULL) {
    *work = rm_private_world;
    return 1;
  }
  return PMPI_Comm_dup(comm, work) == MPI_SUCCESS;
}

/* Frees a copy made by private_copy (not the world's). */
static void release_copy(MPI_Comm* work) {
  if (*work != MPI_COMM_NULL && *work != rm_private_world) PMPI_Comm_free(work);
}

/* The cells of a Cartesian grid (0 for a size below 1, capped past 2^30 by
 * the callers). */
static long long cart_cells(int ndims, const int dims[]) {
  long long n = 1;
  for (int d = 0; d < ndims && dims && n <= 1LL << 30; ++d) n *= dims[d] > 0 ? dims[d] : 0;
  return n;
}

/* ---- MPI_Cart_create ---- */

typedef struct {
  int ndims;
  const int* dims;
  const int* periods;
} rm_cart;

static int build_cart(const void* arg, rankmap_graph** out, rankmap_error* err) {
  const rm_cart* c = arg;
  int* periods = malloc((size_t)c->ndims * sizeof *periods);
  if (!periods) return RANKMAP_ERR_MEMORY;
  for (int d = 0; d < c->ndims; ++d) periods[d] = c->periods[d] != 0;
  const int rc = rankmap_graph_cartesian(c->ndims, c->dims, periods, out, err);
  free(periods);
  return rc;
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm* comm_cart) {
  const long long n = cart_cells(ndims, dims);
  if (ndims < 1 || !dims || !periods || n > 1 << 30 || !wanted(comm, reorder, (int)n))
    return PMPI_Cart_create(comm, ndims, dims, periods, reorder, comm_cart);
  MPI_Comm work;
  if (!private_copy(comm, &work)) return PMPI_Cart_create(comm, ndims, dims, periods, reorder, comm_cart);
  int size = 0;
  PMPI_Comm_size(work, &size);
  int* order = malloc((size_t)size * sizeof *order);
  const rm_cart cart = {ndims, dims, periods};
  /* Every process takes part (malloc failing makes it decline, not skip). */
  int dummy[1];
  const int reordered = choose_order(work, build_cart, &cart, order ? order : dummy) && order;
  MPI_Comm ordered;
  const double since = PMPI_Wtime();
  int rc = reordered ? split_in_order(work, order, &ordered) : MPI_ERR_OTHER;
  free(order);
  if (rc == MPI_SUCCESS) {
    rc = PMPI_Cart_create(ordered, ndims, dims, periods, 0, comm_cart);
    /* The split keeps the processes: the watch asks its question there. */
    if (rc == MPI_SUCCESS) rm_watch_reordered(*comm_cart, &ordered);
    if (ordered != MPI_COMM_NULL) PMPI_Comm_free(&ordered);
    say_times(comm, since);
  } else {
    rc = PMPI_Cart_create(comm, ndims, dims, periods, reorder, comm_cart);
  }
  release_copy(&work);
  return rc;
}

/* MPI_Cart_map: the rank MPI_Cart_create with reorder would give. */
int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  const long long n = cart_cells(ndims, dims);
  if (ndims < 1 || !dims || !periods || !newrank || n > 1 << 30 || !wanted(comm, 1, (int)n))
    return PMPI_Cart_map(comm, ndims, dims, periods, newrank);
  const rm_cart cart = {ndims, dims, periods};
  const int mine = choose_alone(comm, build_cart, &cart);
  if (mine < 0) return PMPI_Cart_map(comm, ndims, dims, periods, newrank);
  *newrank = mine;
  return MPI_SUCCESS;
}

/* ---- MPI_Graph_create ---- */

typedef struct {
  int nnodes;
  const int* index;
  const int* edges;
} rm_graph_arg;

static int build_graph(const void* arg, rankmap_graph** out, rankmap_error* err) {
  const rm_graph_arg* g = arg;
  uint64_t* offsets = malloc(((size_t)g->nnodes + 1) * sizeof *offsets);
  const int total = g->nnodes > 0 ? g->index[g->nnodes - 1] : 0;
  uint32_t* targets = malloc((size_t)(total > 0 ? total : 1) * sizeof *targets);
  uint64_t* bytes = malloc((size_t)(total > 0 ? total : 1) * sizeof *bytes);
  int rc = RANKMAP_ERR_MEMORY;
  if (offsets && targets && bytes) {
    offsets[0] = 0;
    for (int v = 0; v < g->nnodes; ++v) offsets[v + 1] = (uint64_t)g->index[v];
    for (int e = 0; e < total; ++e) targets[e] = (uint32_t)g->edges[e], bytes[e] = 1;
    rc = rankmap_graph_create_csr((uint32_t)g->nnodes, offsets, targets, bytes, NULL, out, err);
  }
  free(offsets), free(targets), free(bytes);
  return rc;
}

int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm* comm_graph) {
  if (nnodes < 1 || !index || !edges || !wanted(comm, reorder, nnodes))
    return PMPI_Graph_create(comm, nnodes, index, edges, reorder, comm_graph);
  MPI_Comm work;
  if (!private_copy(comm, &work)) return PMPI_Graph_create(comm, nnodes, index, edges, reorder, comm_graph);
  int* order = malloc((size_t)nnodes * sizeof *order);
  const rm_graph_arg graph = {nnodes, index, edges};
  int dummy[1];
  const int reordered = choose_order(work, build_graph, &graph, order ? order : dummy) && order;
  MPI_Comm ordered;
  int rc = reordered ? split_in_order(work, order, &ordered) : MPI_ERR_OTHER;
  free(order);
  if (rc == MPI_SUCCESS) {
    rc = PMPI_Graph_create(ordered, nnodes, index, edges, 0, comm_graph);
    /* The split keeps the processes: the watch asks its question there. */
    if (rc == MPI_SUCCESS) rm_watch_reordered(*comm_graph, &ordered);
    if (ordered != MPI_COMM_NULL) PMPI_Comm_free(&ordered);
  } else {
    rc = PMPI_Graph_create(comm, nnodes, index, edges, reorder, comm_graph);
  }
  release_copy(&work);
  return rc;
}

/* MPI_Graph_map: the rank MPI_Graph_create with reorder would give. */
int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  if (nnodes < 1 || !index || !edges || !newrank || !wanted(comm, 1, nnodes))
    return PMPI_Graph_map(comm, nnodes, index, edges, newrank);
  const rm_graph_arg graph = {nnodes, index, edges};
  const int mine = choose_alone(comm, build_graph, &graph);
  if (mine < 0) return PMPI_Graph_map(comm, nnodes, index, edges, newrank);
  *newrank = mine;
  return MPI_SUCCESS;
}

/* ---- MPI_Dist_graph_create_adjacent ----
 * Each process states its own edges; the graph over the old ranks (the
 * roles) is gathered everywhere, so that the process that takes rank r
 * states role r's edges on the new communicator. */

typedef struct {
  int size;
  const int* out_count; /* per role */
  const int* out_start;
  const int* targets; /* role numbers */
  const int* weights; /* or NULL: 1 each */
} rm_dist_arg;

static int build_dist(const void* arg, rankmap_graph** out, rankmap_error* err) {
  const rm_dist_arg* g = arg;
  const int total = g->out_start[g->size - 1] + g->out_count[g->size - 1];
  uint64_t* offsets = malloc(((size_t)g->size + 1) * sizeof *offsets);
  uint32_t* targets = malloc((size_t)(total > 0 ? total : 1) * sizeof *targets);
  uint64_t* bytes = malloc((size_t)(total > 0 ? total : 1) * sizeof *bytes);
  int rc = RANKMAP_ERR_MEMORY;
  if (offsets && targets && bytes) {
    offsets[0] = 0;
    for (int v = 0; v < g->size; ++v) offsets[v + 1] = offsets[v] + (uint64_t)g->out_count[v];
    for (int e = 0; e < total; ++e) {
      targets[e] = (uint32_t)g->targets[e];
      bytes[e] = g->weights && g->weights[e] > 0 ? (uint64_t)g->weights[e] : 1;
    }
    rc = rankmap_graph_create_csr((uint32_t)g->size, offsets, targets, bytes, NULL, out, err);
  }
  free(offsets), free(targets), free(bytes);
  return rc;
}

/* Gathers every process's list (count, values) to all; NULL on every
 * process when any one cannot hold the whole (collective either way). */
static int* gather_lists(MPI_Comm comm, int size, int count, const int* values, int* counts, int* starts) {
  PMPI_Allgather(&count, 1, MPI_INT, counts, 1, MPI_INT, comm);
  long long total = 0;
  for (int p = 0; p < size; ++p) starts[p] = (int)total, total += counts[p];
  int* all = total < (1LL << 30) ? malloc((size_t)(total > 0 ? total : 1) * sizeof *all) : NULL;
  int held = all != NULL, everyone = 0;
  PMPI_Allreduce(&held, &everyone, 1, MPI_INT, MPI_MIN, comm);
  if (!everyone) {
    free(all);
    return NULL;
  }
  int zero = 0;
  PMPI_Allgatherv(count > 0 ? values : &zero, count, MPI_INT, all, counts, starts, MPI_INT, comm);
  return all;
}

/* How one side (in or out) of a process states its weights. A side of
 * degree 0 says nothing: the standard lets it pass MPI_WEIGHTS_EMPTY,
 * MPI_UNWEIGHTED or any array. */
enum { RM_SIDE_SILENT = 0, RM_SIDE_UNWEIGHTED = 1, RM_SIDE_WEIGHTED = 2, RM_SIDE_INVALID = 4 };
static int side_kind(int degree, const int* weights) {
  if (degree <= 0) return RM_SIDE_SILENT;
  if (weights == MPI_UNWEIGHTED) return RM_SIDE_UNWEIGHTED;
  if (weights == MPI_WEIGHTS_EMPTY || !weights) return RM_SIDE_INVALID;
  return RM_SIDE_WEIGHTED;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm* comm_dist_graph) {
  int rank = 0, size = 0;
  if (comm != MPI_COMM_NULL) PMPI_Comm_rank(comm, &rank), PMPI_Comm_size(comm, &size);
  MPI_Comm work;
  if (!wanted(comm, reorder, size) || !private_copy(comm, &work)) {
    return PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations, destweights,
                                           info, reorder, comm_dist_graph);
  }
  /* Weightedness belongs to the call, not to one process: the process that
   * takes role r states role r's edges, so it must be given role r's
   * weights, or MPI_UNWEIGHTED everywhere, never another process's
   * sentinel. Weights on some processes and MPI_UNWEIGHTED on others (or
   * MPI_WEIGHTS_EMPTY for edges) is left to the MPI's own call. */
  const int mine = side_kind(indegree, sourceweights) | side_kind(outdegree, destweights);
  int kinds = 0;
  PMPI_Allreduce(&mine, &kinds, 1, MPI_INT, MPI_BOR, work);
  const int mixed = (kinds & RM_SIDE_INVALID) || ((kinds & RM_SIDE_WEIGHTED) && (kinds & RM_SIDE_UNWEIGHTED));
  const int weighted = (kinds & RM_SIDE_WEIGHTED) != 0;
  int* counts[4];
  int* starts[4];
  int* lists[4] = {NULL, NULL, NULL, NULL};
  int good = !mixed;
  for (int i = 0; i < 4; ++i) {
    counts[i] = malloc((size_t)size * sizeof(int));
    starts[i] = malloc((size_t)size * sizeof(int));
    if (!counts[i] || !starts[i]) good = 0;
  }
  /* Out-lists, out-weights, in-lists, in-weights: every role's (mixed is
   * the same on every process, so either all gather or none). */
  int have = 0;
  if (!mixed) {
    int everyone_good = 0;
    PMPI_Allreduce(&good, &everyone_good, 1, MPI_INT, MPI_MIN, work);
    if (everyone_good) {
      lists[0] = gather_lists(work, size, outdegree, destinations, counts[0], starts[0]);
      lists[1] =
          gather_lists(work, size, weighted ? outdegree : 0, weighted ? destweights : NULL, counts[1], starts[1]);
      lists[2] = gather_lists(work, size, indegree, sources, counts[2], starts[2]);
      lists[3] =
          gather_lists(work, size, weighted ? indegree : 0, weighted ? sourceweights : NULL, counts[3], starts[3]);
    }
    have = everyone_good && lists[0] && lists[2] && (!weighted || (lists[1] && lists[3]));
  }
  int everyone = 0;
  if (!mixed) PMPI_Allreduce(&have, &everyone, 1, MPI_INT, MPI_MIN, work);
  int* order = malloc((size_t)size * sizeof *order);
  int reordered = 0;
  if (mixed) {
    say_once(rank, "weights on some processes and MPI_UNWEIGHTED (or MPI_WEIGHTS_EMPTY for edges) on others");
  } else if (everyone) {
    const rm_dist_arg graph = {size, counts[0], starts[0], lists[0], weighted ? lists[1] : NULL};
    int dummy[1];
    reordered = choose_order(work, build_dist, &graph, order ? order : dummy) && order;
  } else {
    say_once(rank, "out of memory gathering the graph");
  }
  int rc;
  MPI_Comm ordered;
  if (reordered && split_in_order(work, order, &ordered) == MPI_SUCCESS) {
    int role = 0;
    PMPI_Comm_rank(ordered, &role);
    /* Role r's edges, in role numbers = ranks of the new communicator. */
    const int in = counts[2][role], out = counts[0][role];
    const int* in_weights = !weighted ? MPI_UNWEIGHTED : in > 0 ? lists[3] + starts[3][role] : MPI_WEIGHTS_EMPTY;
    const int* out_weights = !weighted ? MPI_UNWEIGHTED : out > 0 ? lists[1] + starts[1][role] : MPI_WEIGHTS_EMPTY;
    rc = PMPI_Dist_graph_create_adjacent(ordered, in, lists[2] + starts[2][role], in_weights, out,
                                         lists[0] + starts[0][role], out_weights, info, 0, comm_dist_graph);
    /* The split keeps the processes: the watch asks its question there. */
    if (rc == MPI_SUCCESS) rm_watch_reordered(*comm_dist_graph, &ordered);
    if (ordered != MPI_COMM_NULL) PMPI_Comm_free(&ordered);
  } else {
    rc = PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations, destweights,
                                         info, reorder, comm_dist_graph);
  }
  free(order);
  for (int i = 0; i < 4; ++i) free(counts[i]), free(starts[i]), free(lists[i]);
  release_copy(&work);
  return rc;
}

/* ---- MPI_Dist_graph_create ----
 * Any process may state any edges; they are gathered to rank 0, which
 * builds the graph over the old ranks (the roles). On the new communicator
 * every process states the same edges again: role numbers are its ranks. */

typedef struct {
  int size;
  int edges;          /* on rank 0: the gathered edges */
  const int* triples; /* source, destination, weight */
} rm_dist_general;

static int build_dist_general(const void* arg, rankmap_graph** out, rankmap_error* err) {
  const rm_dist_general* g = arg;
  uint64_t* offsets = calloc((size_t)g->size + 1, sizeof *offsets);
  uint32_t* targets = malloc((size_t)(g->edges > 0 ? g->edges : 1) * sizeof *targets);
  uint64_t* bytes = malloc((size_t)(g->edges > 0 ? g->edges : 1) * sizeof *bytes);
  uint64_t* fill = calloc((size_t)g->size, sizeof *fill);
  int rc = RANKMAP_ERR_MEMORY;
  if (offsets && targets && bytes && fill) {
    rc = RANKMAP_OK;
    for (int e = 0; e < g->edges && rc == RANKMAP_OK; ++e)
      if (g->triples[3 * e] < 0 || g->triples[3 * e] >= g->size)
        rc = RANKMAP_ERR_INPUT;
      else
        ++offsets[g->triples[3 * e] + 1];
    for (int v = 0; v < g->size; ++v) offsets[v + 1] += offsets[v];
    for (int e = 0; e < g->edges && rc == RANKMAP_OK; ++e) {
      const int v = g->triples[3 * e];
      const uint64_t at = offsets[v] + fill[v]++;
      targets[at] = (uint32_t)g->triples[3 * e + 1];
      bytes[at] = g->triples[3 * e + 2] > 0 ? (uint64_t)g->triples[3 * e + 2] : 1;
    }
    if (rc == RANKMAP_OK)
      rc = rankmap_graph_create_csr((uint32_t)g->size, offsets, targets, bytes, NULL, out, err);
    else if (err)
      snprintf(err->message, sizeof err->message, "a source outside the communicator");
  }
  free(offsets), free(targets), free(bytes), free(fill);
  return rc;
}

int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[], const int destinations[],
                          const int weights[], MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  int rank = 0, size = 0;
  if (comm != MPI_COMM_NULL) PMPI_Comm_rank(comm, &rank), PMPI_Comm_size(comm, &size);
  MPI_Comm work;
  if (!wanted(comm, reorder, size) || n < 0 || !private_copy(comm, &work))
    return PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info, reorder, comm_dist_graph);
  const int weighted = weights != MPI_UNWEIGHTED && weights != MPI_WEIGHTS_EMPTY;
  long long mine = 0;
  for (int i = 0; i < n; ++i) mine += degrees[i] > 0 ? degrees[i] : 0;
  int* triples = mine < (1LL << 28) ? malloc((size_t)(mine > 0 ? 3 * mine : 1) * sizeof *triples) : NULL;
  int count = triples ? (int)(3 * mine) : 0;
  for (int i = 0, e = 0; triples && i < n; ++i)
    for (int k = 0; k < degrees[i]; ++k, ++e) {
      triples[3 * e] = sources[i];
      triples[3 * e + 1] = destinations[e];
      triples[3 * e + 2] = weighted ? weights[e] : 1;
    }
  int* counts = rank == 0 ? malloc((size_t)size * sizeof *counts) : NULL;
  int* starts = rank == 0 ? malloc((size_t)size * sizeof *starts) : NULL;
  PMPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, work);
  long long total = 0;
  for (int p = 0; rank == 0 && p < size; ++p) starts[p] = (int)total, total += counts[p];
  int* all = rank == 0 && total < (1LL << 30) ? malloc((size_t)(total > 0 ? total : 1) * sizeof *all) : NULL;
  int held = (triples != NULL) && (rank != 0 || (counts && starts && all)), everyone = 0;
  PMPI_Allreduce(&held, &everyone, 1, MPI_INT, MPI_MIN, work);
  int* order = malloc((size_t)size * sizeof *order);
  int reordered = 0;
  if (everyone) {
    PMPI_Gatherv(triples, count, MPI_INT, all, counts, starts, MPI_INT, 0, work);
    const rm_dist_general graph = {size, (int)(total / 3), all};
    int dummy[1];
    reordered = choose_order(work, build_dist_general, &graph, order ? order : dummy) && order;
  } else {
    say_once(rank, "out of memory gathering the graph");
  }
  free(triples), free(counts), free(starts), free(all);
  int rc;
  MPI_Comm ordered;
  if (reordered && split_in_order(work, order, &ordered) == MPI_SUCCESS) {
    rc = PMPI_Dist_graph_create(ordered, n, sources, degrees, destinations, weights, info, 0, comm_dist_graph);
    /* The split keeps the processes: the watch asks its question there. */
    if (rc == MPI_SUCCESS) rm_watch_reordered(*comm_dist_graph, &ordered);
    if (ordered != MPI_COMM_NULL) PMPI_Comm_free(&ordered);
  } else {
    rc = PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info, reorder, comm_dist_graph);
  }
  free(order);
  release_copy(&work);
  return rc;
}
