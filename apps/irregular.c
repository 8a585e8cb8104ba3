/* An irregular exchange stated through MPI_Dist_graph_create_adjacent: a
 * random geometric graph of P ranks (points in the unit square from a
 * seeded generator, joined when closer than a radius that gives about
 * DEGREE neighbours each), each edge weighted by the bytes it carries
 * (1 to 8 KiB, drawn once per edge). Every rank computes the same graph;
 * rank r of the new communicator plays vertex r. Each iteration sends every
 * neighbour its edge's bytes, after COMPUTE_US microseconds (compute.h).
 * Rank 0 prints the edge count, whether MPI_Dist_graph_neighbors agrees
 * with the graph, and the time of the iterations between two barriers.
 * With --world the exchange runs on a copy of MPI_COMM_WORLD, no graph
 * communicator made (SimGrid's SMPI implements no MPI_Dist_graph_create_adjacent).
 * Usage: irregular [--reorder | --world] SEED [DEGREE] [ITERATIONS] [COMPUTE_US] */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute.h"

static uint64_t next_random(uint64_t* state) { /* splitmix64 */
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* The neighbours of vertex v and their bytes; returns how many. */
static int neighbours_of(int v, int p, const double* x, const double* y, double radius, uint64_t seed, int* near,
                         int* bytes, int max) {
  int n = 0;
  for (int u = 0; u < p && n < max; ++u) {
    const double dx = x[u] - x[v], dy = y[u] - y[v];
    if (u == v || dx * dx + dy * dy > radius * radius) continue;
    /* The edge's bytes from the pair alone, the same seen from either end. */
    uint64_t state = seed ^ ((uint64_t)(u < v ? u : v) << 32 | (uint64_t)(u < v ? v : u));
    near[n] = u;
    bytes[n++] = 1024 * (int)(1 + next_random(&state) % 8);
  }
  return n;
}

static int by_value(const void* a, const void* b) {
  return (*(const int*)a > *(const int*)b) - (*(const int*)a < *(const int*)b);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int p = 0, world = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  int reorder = 0, world_only = 0;
  if (argc > 1 && strcmp(argv[1], "--reorder") == 0) reorder = 1, ++argv, --argc;
  if (argc > 1 && strcmp(argv[1], "--world") == 0) world_only = 1, ++argv, --argc;
  if (argc < 2) {
    if (world == 0) fprintf(stderr, "usage: irregular [--reorder | --world] SEED [DEGREE] [ITERATIONS] [COMPUTE_US]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const uint64_t seed = strtoull(argv[1], NULL, 10);
  const double degree = argc > 2 ? atof(argv[2]) : 6;
  const int iterations = argc > 3 ? atoi(argv[3]) : 10;
  const double compute_s = argc > 4 ? atof(argv[4]) * 1e-6 : 0;
  double* x = malloc((size_t)p * sizeof *x);
  double* y = malloc((size_t)p * sizeof *y);
  uint64_t state = seed;
  for (int v = 0; v < p; ++v)
    x[v] = (double)(next_random(&state) >> 11) / 9007199254740992.0,
    y[v] = (double)(next_random(&state) >> 11) / 9007199254740992.0;
  /* About `degree` points in a disc of this radius, on average. */
  const double radius = sqrt(degree / (3.141592653589793 * p));
  int* near = malloc((size_t)p * sizeof *near);
  int* bytes = malloc((size_t)p * sizeof *bytes);
  int n = neighbours_of(world, p, x, y, radius, seed, near, bytes, p);
  MPI_Comm graph;
  if (world_only)
    MPI_Comm_dup(MPI_COMM_WORLD, &graph);
  else
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, near, bytes, n, near, bytes, MPI_INFO_NULL, reorder, &graph);
  int vertex = 0;
  MPI_Comm_rank(graph, &vertex);
  n = neighbours_of(vertex, p, x, y, radius, seed, near, bytes, p);
  /* What MPI says the neighbours are, against the graph's. */
  int in = 0, out = 0, weighted = 0, disagree = !world_only;
  if (!world_only) MPI_Dist_graph_neighbors_count(graph, &in, &out, &weighted);
  if (!world_only && in == n && out == n) {
    int* sources = malloc((size_t)(n + 1) * sizeof *sources);
    int* sw = malloc((size_t)(n + 1) * sizeof *sw);
    int* destinations = malloc((size_t)(n + 1) * sizeof *destinations);
    int* dw = malloc((size_t)(n + 1) * sizeof *dw);
    int* want = malloc((size_t)(n + 1) * sizeof *want);
    MPI_Dist_graph_neighbors(graph, n, sources, sw, n, destinations, dw);
    memcpy(want, near, (size_t)n * sizeof *want);
    qsort(sources, (size_t)n, sizeof(int), by_value), qsort(destinations, (size_t)n, sizeof(int), by_value);
    qsort(want, (size_t)n, sizeof(int), by_value);
    disagree =
        memcmp(sources, want, (size_t)n * sizeof(int)) != 0 || memcmp(destinations, want, (size_t)n * sizeof(int)) != 0;
    free(sources), free(sw), free(destinations), free(dw), free(want);
  }
  int disagreeing = 0, edges = 0;
  MPI_Reduce(&disagree, &disagreeing, 1, MPI_INT, MPI_SUM, 0, graph);
  MPI_Reduce(&n, &edges, 1, MPI_INT, MPI_SUM, 0, graph);
  char* out_buf = calloc(8 * 1024, (size_t)(n > 0 ? n : 1));
  char* in_buf = calloc(8 * 1024, (size_t)(n > 0 ? n : 1));
  MPI_Request* q = malloc((size_t)(2 * n + 1) * sizeof *q);
  // The clock starts before the barrier that lines the ranks up: the
  // timed run then holds every call of the profile, both barriers too (a
  // barrier over 80 ranks on VMs takes 65-200 us by the mapping).
  const double t0 = MPI_Wtime();
  MPI_Barrier(graph);
  for (int it = 0; it < iterations; ++it) {
    compute_for(compute_s);
    for (int i = 0; i < n; ++i) {
      MPI_Irecv(in_buf + (size_t)i * 8192, bytes[i], MPI_BYTE, near[i], 0, graph, &q[i]);
      MPI_Isend(out_buf + (size_t)i * 8192, bytes[i], MPI_BYTE, near[i], 0, graph, &q[n + i]);
    }
    MPI_Waitall(2 * n, q, MPI_STATUSES_IGNORE);
  }
  MPI_Barrier(graph);
  const double elapsed = MPI_Wtime() - t0;
  if (vertex == 0)
    printf("irregular: %d ranks, %d edges, MPI_Dist_graph_neighbors agrees on %d of %d ranks, time %.9f s\n", p,
           edges / 2, p - disagreeing, p, elapsed);
  free(x), free(y), free(near), free(bytes), free(out_buf), free(in_buf), free(q);
  MPI_Comm_free(&graph);
  MPI_Finalize();
  return 0;
}
