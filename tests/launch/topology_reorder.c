/* A job that states its pattern through MPI's topology calls, with
 * reorder = 1 or 0, and reports what it got. Rank 0 of the new
 * communicator prints its own reckoning, independent of rankmap: how many
 * of the topology's edges join processes on different hosts (the host of
 * each process from FAKE_HOST, set by the fake remote shell), whether the
 * coordinates and neighbours the MPI returns agree with the topology, and
 * a checksum (each process sums its neighbours' ranks, exchanged through
 * the new communicator); then each rank's host and the first CPU it is
 * bound to (-1: not bound).
 * Usage: topology_reorder KIND[,KIND...] REORDER [AxB]   (16 processes)
 *   REORDER 0 or 1, or "both": 0 then 1 in one run (two lines).
 *   cart:  AxB (default 2x8), both dimensions periodic (24 edges for 2x8,
 *          32 for 4x4: a dimension of 2 has one edge a pair);
 *   graph: a ring of 16 through MPI_Graph_create (16 edges);
 *   dist:  the same ring through MPI_Dist_graph_create_adjacent;
 *   distgen: the same ring through MPI_Dist_graph_create, each process
 *          stating its two out-edges;
 *   cartmap, graphmap: the cart and graph cases built by hand as the
 *          standard describes, MPI_Cart_map / MPI_Graph_map (REORDER 1)
 *          then MPI_Comm_split by the new rank and the create call with
 *          reorder = 0.
 *   dist with REORDER 1 then also states a graph whose even processes
 *          have no edges, in every mix of weights (weight_mixes below).
 *   freed: the cart case as LAMMPS's ProcMap::cart_map does it: coordinates
 *          and neighbours read from the new communicator, which is freed,
 *          then an exchange with those neighbours on MPI_COMM_WORLD.
 *   agree: an allreduce on MPI_COMM_WORLD first, then MPI_Cart_map on
 *          every process and MPI_Cart_create, as cart.
 * With TOPO_VARY=R:unset,S:PATH, process R unsets RANKMAP_MACHINE and
 * process S sets it to PATH before MPI_Init (a per-rank environment). */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kN = 16, kHost = 64 };

/* The launcher's rank before MPI_Init (Open MPI, MPICH's Hydra). */
static int launch_rank(void) {
  const char* r = getenv("OMPI_COMM_WORLD_RANK");
  if (!r) r = getenv("PMI_RANK");
  return r ? atoi(r) : -1;
}

static void vary_environment(void) {
  const char* vary = getenv("TOPO_VARY");
  char list[512];
  snprintf(list, sizeof list, "%s", vary ? vary : "");
  for (char *save = NULL, *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
    int who = -1, at = 0;
    if (sscanf(item, "%d:%n", &who, &at) != 1 || at == 0 || who != launch_rank()) continue;
    if (strcmp(item + at, "unset") == 0)
      unsetenv("RANKMAP_MACHINE");
    else
      setenv("RANKMAP_MACHINE", item + at, 1);
  }
}

/* Role r's edges in the graph of weight_mixes: the odd processes form a
 * ring, each joined to the odd processes 2 before and after it; the even
 * ones have none. Returns the degree (in and out alike). */
static int odd_ring(int r, int ends[2]) {
  if (r % 2 == 0) return 0;
  ends[0] = (r + kN - 2) % kN, ends[1] = (r + 2) % kN;
  return 2;
}

/* One MPI_Dist_graph_create_adjacent of the odd ring with reorder = 1,
 * each process stating its weights as `how` says for it:
 *   'w' weights (out: role + 1000 + 1000 i, in: role + 3000 + 1000 i),
 *   'e' MPI_WEIGHTS_EMPTY, 'u' MPI_UNWEIGHTED, 'a' an array (degree 0).
 * Each process then checks, for the rank r it got, that the MPI reports
 * role r's degree, neighbours and weights (none when unweighted), and
 * sends r to its out-neighbours through the new communicator: what it
 * receives must sum to its in-neighbours' ranks. expect_weighted: 1 or 0,
 * or -1 for the MPI's own call, whose weights are each process's own.
 * Rank 0 of the world prints one line. */
static void weight_mix(const char* name, const char* how, int expect_weighted) {
  int world = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  int ends[2] = {0, 0}, in_w[2], out_w[2], spare[2] = {7, 7};
  const int degree = odd_ring(world, ends);
  for (int i = 0; i < 2; ++i) out_w[i] = world + 1000 + 1000 * i, in_w[i] = world + 3000 + 1000 * i;
  const char mode = how[world];
  const int* iw = mode == 'w' ? in_w : mode == 'e' ? MPI_WEIGHTS_EMPTY : mode == 'u' ? MPI_UNWEIGHTED : spare;
  const int* ow = mode == 'w' ? out_w : mode == 'e' ? MPI_WEIGHTS_EMPTY : mode == 'u' ? MPI_UNWEIGHTED : spare;
  MPI_Comm comm;
  const int rc =
      MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, degree, ends, iw, degree, ends, ow, MPI_INFO_NULL, 1, &comm);
  int good = rc == MPI_SUCCESS, moved = 0;
  if (good) {
    int r = 0, in = -1, out = -1, weighted = -1, role_ends[2] = {0, 0};
    MPI_Comm_rank(comm, &r);
    moved = r != world;
    const int role_degree = odd_ring(r, role_ends);
    MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    /* A process without edges may be weighted or not: only those with edges say. */
    good = in == role_degree && out == role_degree &&
           (expect_weighted < 0 || role_degree == 0 || (weighted != 0) == expect_weighted);
    int sources[2] = {-1, -1}, dests[2] = {-1, -1}, sw[2] = {-1, -1}, dw[2] = {-1, -1};
    if (good && role_degree > 0) {
      MPI_Dist_graph_neighbors(comm, 2, sources, weighted ? sw : MPI_UNWEIGHTED, 2, dests,
                               weighted ? dw : MPI_UNWEIGHTED);
      for (int i = 0; i < 2; ++i) {
        good = good && sources[i] == role_ends[i] && dests[i] == role_ends[i];
        if (weighted && expect_weighted > 0)
          good = good && dw[i] == r + 1000 + 1000 * i && sw[i] == r + 3000 + 1000 * i;
      }
    }
    int theirs[2] = {0, 0};
    MPI_Request requests[4];
    for (int i = 0; i < role_degree; ++i) {
      MPI_Irecv(&theirs[i], 1, MPI_INT, role_ends[i], 1, comm, &requests[i]);
      MPI_Isend(&r, 1, MPI_INT, role_ends[i], 1, comm, &requests[role_degree + i]);
    }
    MPI_Waitall(2 * role_degree, requests, MPI_STATUSES_IGNORE);
    if (role_degree > 0) good = good && theirs[0] + theirs[1] == role_ends[0] + role_ends[1];
    MPI_Comm_free(&comm);
  }
  int all_good = 0, any_moved = 0;
  MPI_Reduce(&good, &all_good, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
  MPI_Reduce(&moved, &any_moved, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
  if (world == 0)
    printf("weights %s: %s, %s\n", name, all_good ? "consistent" : "INCONSISTENT",
           any_moved ? "reordered" : "the MPI's own order");
  fflush(stdout);
}

/* Every mix of weights on the odd ring (even processes have no edges). */
static void weight_mixes(void) {
  weight_mix("all", "wwwwwwwwwwwwwwww", 1);
  weight_mix("empty-on-degree-0", "ewewewewewewewew", 1);
  weight_mix("unweighted-on-degree-0", "uwuwuwuwuwuwuwuw", 1);
  weight_mix("arrays-on-degree-0", "awawawawawawawaw", 1);
  weight_mix("unweighted", "uuuuuuuuuuuuuuuu", 0);
  weight_mix("empty-and-unweighted", "eueueueueueueueu", 0);
  /* Weights on some edges, MPI_UNWEIGHTED on others: the MPI's own call. */
  weight_mix("mixed", "eweweweweweueueu", -1);
  /* MPI_COMM_NULL is no communicator: the MPI's own error. */
  int world = 0, dims[1] = {kN}, periods[1] = {1};
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm none = MPI_COMM_NULL;
  const int rc = MPI_Cart_create(MPI_COMM_NULL, 1, dims, periods, 1, &none);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  if (world == 0) printf("null: %s\n", rc != MPI_SUCCESS ? "the MPI's error" : "ACCEPTED");
  /* A reordered grid used only through what is made from it, then freed:
   * its rows (MPI_Cart_sub), and its group translated to the world's
   * ranks. Both are uses: the job goes on. */
  int grid_dims[2] = {2, 8}, grid_periods[2] = {1, 1}, keep[2] = {0, 1}, row_sum = 0, up = 0, down = 0;
  MPI_Comm grid, row;
  MPI_Cart_create(MPI_COMM_WORLD, 2, grid_dims, grid_periods, 1, &grid);
  MPI_Cart_sub(grid, keep, &row);
  MPI_Comm_free(&grid);
  MPI_Allreduce(&world, &row_sum, 1, MPI_INT, MPI_SUM, row);
  MPI_Comm_free(&row);
  MPI_Cart_create(MPI_COMM_WORLD, 2, grid_dims, grid_periods, 1, &grid);
  MPI_Cart_shift(grid, 1, 1, &down, &up);
  MPI_Group grid_group, world_group;
  MPI_Comm_group(grid, &grid_group);
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int ends[2] = {down, up}, world_ends[2];
  MPI_Group_translate_ranks(grid_group, 2, ends, world_group, world_ends);
  MPI_Group_free(&grid_group), MPI_Group_free(&world_group);
  MPI_Comm_free(&grid);
  int from_down = -1;
  MPI_Sendrecv(&world, 1, MPI_INT, world_ends[1], 3, &from_down, 1, MPI_INT, world_ends[0], 3, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  int good = from_down == world_ends[0], all_good = 0;
  MPI_Reduce(&good, &all_good, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
  if (world == 0)
    printf("derived: rows %s, translated neighbours %s\n", row_sum > 0 ? "summed" : "EMPTY",
           all_good ? "met" : "MISSED");
}

/* LAMMPS's ProcMap::cart_map: the neighbours of the reordered grid, used
 * on MPI_COMM_WORLD after the grid is freed. */
static void freed_grid(void) {
  int dims[2] = {2, 8}, periods[2] = {1, 1}, world = 0, down = 0, up = 0, coords[2];
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
  MPI_Cart_get(cart, 2, dims, periods, coords);
  MPI_Cart_shift(cart, 1, 1, &down, &up);
  MPI_Comm_free(&cart);
  int from_down = -1;
  MPI_Sendrecv(&world, 1, MPI_INT, up, 2, &from_down, 1, MPI_INT, down, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int good = from_down == down, all_good = 0;
  MPI_Reduce(&good, &all_good, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
  if (world == 0) printf("freed: the exchange on MPI_COMM_WORLD %s\n", all_good ? "met its neighbours" : "went wrong");
}

/* One topology of KIND made with `reorder`, checked and reported (the
 * lines above); `dims_arg` AxB or NULL. */
static void one_pass(const char* kind, int reorder, const char* dims_arg) {
  int world = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Comm comm;
  int neighbours[4], count = 0, good = 1;
  /* The map calls: the old communicator split by the new rank. */
  const int by_map = strcmp(kind, "cartmap") == 0 || strcmp(kind, "graphmap") == 0;
  MPI_Comm old = MPI_COMM_WORLD;
  if (by_map) kind = strcmp(kind, "cartmap") == 0 ? "cart" : "graph";
  int dims[2] = {2, 8};
  if (dims_arg && (sscanf(dims_arg, "%dx%d", &dims[0], &dims[1]) != 2 || dims[0] * dims[1] != kN)) {
    if (world == 0) fprintf(stderr, "topology_reorder: %s is not AxB of %d\n", dims_arg, kN);
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
}

int main(int argc, char** argv) {
  vary_environment();
  MPI_Init(&argc, &argv);
  int world = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* kind = argc > 1 ? argv[1] : "cart";
  if (size != kN) {
    if (world == 0) fprintf(stderr, "topology_reorder: run with %d processes\n", kN);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (strcmp(kind, "freed") == 0) {
    freed_grid();
    MPI_Finalize();
    return 0;
  }
  if (strcmp(kind, "agree") == 0) {
    /* The application's own sum comes first, and must be right. */
    int sum = 0, want = kN * (kN - 1) / 2;
    MPI_Allreduce(&world, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* Cart_map chooses without communicating: the new ranks must still be
     * a permutation. */
    int dims[2] = {2, 8}, periods[2] = {1, 1}, newrank = -1, ranks[kN], seen[kN] = {0}, unique = 1;
    MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &newrank);
    MPI_Gather(&newrank, 1, MPI_INT, ranks, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int p = 0; world == 0 && p < kN; ++p) {
      if (ranks[p] < 0 || ranks[p] >= kN || seen[ranks[p]]++) unique = 0;
    }
    if (world == 0)
      printf("agree: allreduce %d (want %d); Cart_map %s\n", sum, want, unique ? "a permutation" : "DUPLICATES");
    kind = "cart";
  }
  const char* reorder_arg = argc > 2 ? argv[2] : "1";
  const int both = strcmp(reorder_arg, "both") == 0;
  const int reorder = both ? 1 : atoi(reorder_arg);
  /* KIND may list several ("cart,graph,dist"): one launch checks them all,
   * in turn (a launch of 16 processes costs seconds on two cores). */
  char kinds[256];
  snprintf(kinds, sizeof kinds, "%s", kind);
  for (char *next = kinds, *one; (one = strsep(&next, ",")) != NULL;) {
    if (both) one_pass(one, 0, argc > 3 ? argv[3] : NULL);
    one_pass(one, reorder, argc > 3 ? argv[3] : NULL);
    if (reorder && strcmp(one, "dist") == 0) weight_mixes();
  }
  MPI_Finalize();
  return 0;
}
