/* A job that states its pattern through MPI's topology calls, with
 * reorder = 1 or 0, and reports what it got. Rank 0 of the new
 * communicator prints its own reckoning, independent of rankmap: how many
 * of the topology's edges join processes on different hosts (the host of
 * each process from FAKE_HOST, set by the fake remote shell), whether the
 * coordinates and neighbours the MPI returns agree with the topology, and
 * a checksum (each process sums its neighbours' ranks, exchanged through
 * the new communicator); then each rank's host and the first CPU it is
 * bound to (-1: not bound).
 * Usage: topology_reorder KIND REORDER [AxB]   (16 processes)
 *   cart:  AxB (default 2x8), both dimensions periodic (24 edges for 2x8,
 *          32 for 4x4: a dimension of 2 has one edge a pair);
 *   graph: a ring of 16 through MPI_Graph_create (16 edges);
 *   dist:  the same ring through MPI_Dist_graph_create_adjacent;
 *   distgen: the same ring through MPI_Dist_graph_create, each process
 *          stating its two out-edges;
 *   cartmap, graphmap: the cart and graph cases built by hand as the
 *          standard describes, MPI_Cart_map / MPI_Graph_map (REORDER 1)
 *          then MPI_Comm_split by the new rank and the create call with
 *          reorder = 0. */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kN = 16, kHost = 64 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int world = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* kind = argc > 1 ? argv[1] : "cart";
  const int reorder = argc > 2 ? atoi(argv[2]) : 1;
  if (size != kN) {
    if (world == 0) fprintf(stderr, "topology_reorder: run with %d processes\n", kN);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm comm;
  int neighbours[4], count = 0, good = 1;
  /* The map calls: the old communicator split by the new rank. */
  const int by_map = strcmp(kind, "cartmap") == 0 || strcmp(kind, "graphmap") == 0;
  MPI_Comm old = MPI_COMM_WORLD;
  if (by_map) kind = strcmp(kind, "cartmap") == 0 ? "cart" : "graph";
  int dims[2] = {2, 8};
  if (argc > 3 && (sscanf(argv[3], "%dx%d", &dims[0], &dims[1]) != 2 || dims[0] * dims[1] != kN)) {
    if (world == 0) fprintf(stderr, "topology_reorder: %s is not AxB of %d\n", argv[3], kN);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (strcmp(kind, "cart") == 0) {
    const int periods[2] = {1, 1};
    if (by_map) {
      int newrank = world;
      if (reorder) MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &newrank);
      MPI_Comm_split(MPI_COMM_WORLD, 0, newrank, &old);
    }
    MPI_Cart_create(old, 2, dims, periods, by_map ? 0 : reorder, &comm);
    int rank = 0, coords[2];
    MPI_Comm_rank(comm, &rank);
    MPI_Cart_coords(comm, rank, 2, coords);
    const int rows = dims[0], cols = dims[1];
    good = coords[0] == rank / cols && coords[1] == rank % cols;
    for (int d = 0; d < 2; ++d) {
      int down = 0, up = 0;
      MPI_Cart_shift(comm, d, 1, &down, &up);
      const int row = rank / cols, col = rank % cols;
      const int want_up = d == 0 ? ((row + 1) % rows) * cols + col : row * cols + (col + 1) % cols;
      const int want_down = d == 0 ? ((row + rows - 1) % rows) * cols + col : row * cols + (col + cols - 1) % cols;
      good = good && up == want_up && down == want_down;
      neighbours[count++] = down, neighbours[count++] = up;
    }
  } else if (strcmp(kind, "graph") == 0) {
    int index[kN], edges[2 * kN];
    for (int v = 0; v < kN; ++v) {
      index[v] = 2 * (v + 1);
      edges[2 * v] = (v + kN - 1) % kN, edges[2 * v + 1] = (v + 1) % kN;
    }
    if (by_map) {
      int newrank = world;
      if (reorder) MPI_Graph_map(MPI_COMM_WORLD, kN, index, edges, &newrank);
      MPI_Comm_split(MPI_COMM_WORLD, 0, newrank, &old);
    }
    MPI_Graph_create(old, kN, index, edges, by_map ? 0 : reorder, &comm);
    int rank = 0, n = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Graph_neighbors_count(comm, rank, &n);
    MPI_Graph_neighbors(comm, rank, 2, neighbours);
    count = 2;
    good = n == 2 && neighbours[0] == (rank + kN - 1) % kN && neighbours[1] == (rank + 1) % kN;
  } else {
    const int ring[2] = {(world + kN - 1) % kN, (world + 1) % kN}, weights[2] = {1, 1};
    if (strcmp(kind, "distgen") == 0) {
      const int degree = 2;
      MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &world, &degree, ring, weights, MPI_INFO_NULL, reorder, &comm);
    } else {
      MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, ring, weights, 2, ring, weights, MPI_INFO_NULL, reorder, &comm);
    }
    int rank = 0, in = 0, out = 0, weighted = 0, sources[2], sw[2], dw[2];
    MPI_Comm_rank(comm, &rank);
    MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    good = in == 2 && out == 2;
    if (good) MPI_Dist_graph_neighbors(comm, 2, sources, sw, 2, neighbours, dw);
    count = 2;
    /* The general form may list a process's neighbours in either order. */
    for (int i = 0; good && i < 2; ++i) {
      int* list = i == 0 ? sources : neighbours;
      if (list[0] > list[1]) {
        const int t = list[0];
        list[0] = list[1], list[1] = t;
      }
    }
    const int low = (rank + kN - 1) % kN < (rank + 1) % kN ? (rank + kN - 1) % kN : (rank + 1) % kN;
    const int high = (rank + kN - 1) % kN < (rank + 1) % kN ? (rank + 1) % kN : (rank + kN - 1) % kN;
    good = good && neighbours[0] == low && neighbours[1] == high && sources[0] == low && sources[1] == high;
  }
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  /* The checksum: each process receives its neighbours' ranks (all at
   * once: neighbour lists need not pair up step by step). */
  long sum = 0;
  int theirs[4];
  MPI_Request requests[8];
  for (int i = 0; i < count; ++i) {
    MPI_Irecv(&theirs[i], 1, MPI_INT, neighbours[i], 0, comm, &requests[i]);
    MPI_Isend(&rank, 1, MPI_INT, neighbours[i], 0, comm, &requests[count + i]);
  }
  MPI_Waitall(2 * count, requests, MPI_STATUSES_IGNORE);
  for (int i = 0; i < count; ++i) sum += theirs[i];
  long total = 0;
  int all_good = 0;
  MPI_Reduce(&sum, &total, 1, MPI_LONG, MPI_SUM, 0, comm);
  MPI_Reduce(&good, &all_good, 1, MPI_INT, MPI_LAND, 0, comm);
  char host[kHost] = "";
  snprintf(host, sizeof host, "%s", getenv("FAKE_HOST") ? getenv("FAKE_HOST") : "?");
  char hosts[kN][kHost];
  MPI_Gather(host, kHost, MPI_CHAR, hosts, kHost, MPI_CHAR, 0, comm);
  cpu_set_t set;
  int cpu = -1, cpus[kN];
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) < sysconf(_SC_NPROCESSORS_ONLN))
    for (int c = CPU_SETSIZE - 1; c >= 0; --c)
      if (CPU_ISSET(c, &set)) cpu = c;
  MPI_Gather(&cpu, 1, MPI_INT, cpus, 1, MPI_INT, 0, comm);
  if (rank == 0) {
    /* The topology's edges, by rank of the new communicator. */
    int cut = 0, edges = 0;
    for (int r = 0; r < kN; ++r) {
      int ends[2], n = 0;
      if (strcmp(kind, "cart") == 0) {
        /* The next along the row and down the column; a ring of 2 has one edge a pair. */
        if (dims[1] > 2 || r % dims[1] == 0) ends[n++] = (r / dims[1]) * dims[1] + (r % dims[1] + 1) % dims[1];
        if (dims[0] > 2 || r < dims[1]) ends[n++] = (r + dims[1]) % kN;
      } else {
        ends[n++] = (r + 1) % kN;
      }
      for (int i = 0; i < n; ++i) edges += 1, cut += strcmp(hosts[r], hosts[ends[i]]) != 0;
    }
    printf("%s%s reorder=%d: %d of %d edges cross hosts; topology %s; checksum %ld\n", kind, by_map ? "map" : "",
           reorder, cut, edges, all_good ? "consistent" : "INCONSISTENT", total);
    for (int r = 0; r < kN; ++r) printf("rank %d on %s cpu %d\n", r, hosts[r], cpus[r]);
  }
  MPI_Comm_free(&comm);
  if (old != MPI_COMM_WORLD) MPI_Comm_free(&old);
  MPI_Finalize();
  return 0;
}
