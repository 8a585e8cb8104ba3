/* Collectives as rank-to-rank traffic: what the calling rank sends under the
 * algorithm an MPI library typically picks, Open MPI 4.1's fixed decision
 * where the rounds depend on it (Alltoall, Barrier), with each send's
 * round (docs/profile-format.md lists them; tests/shim/check_profile.py
 * implements them a second time). Each rank
 * records only its own sends, so the whole job adds up without any
 * exchange. Inter-communicators: every rank sends straight to the remote
 * group (linear), as their collectives have no tree over both groups. */
#include <stdlib.h>

#include "shim.h"

static int comm_size(MPI_Comm comm) {
  rm_comm_info c;
  return rm_comm(comm, &c) == 0 ? c.size : 0;
}

enum {
  BCAST_SHORT = 12288,   /* below: binomial tree; above: scatter + ring allgather */
  BCAST_MIN_RANKS = 8,   /* fewer ranks: always the tree */
  ALLREDUCE_SHORT = 2048 /* up to: recursive doubling; above: ring */
};

/* A send of the current call (rm_call_begin) in `round`: the algorithm's
 * rounds run one after another, the sends of one round at once. */
static void to(const rm_comm_info* c, int rank, uint64_t bytes, int round) {
  if (rank < 0 || rank >= c->size) return;
  const int world = c->world ? c->world[rank] : rank;
  rm_count(RM_COLL, world, bytes, 1);
  rm_call_step_to(round, world, bytes);
}

/* log2 of the smallest power of two >= p. */
static int levels(int p) {
  int l = 0;
  while ((1 << l) < p) ++l;
  return l;
}
static int log2_of(int power) { return __builtin_ctz((unsigned)power); }

/* Bytes of chunk j when `bytes` is cut into p chunks of ceil(bytes/p). */
static uint64_t chunk(uint64_t bytes, int p, int j) {
  const uint64_t size = (bytes + (uint64_t)p - 1) / (uint64_t)p;
  const uint64_t lo = (uint64_t)j * size, hi = lo + size;
  if (lo >= bytes) return 0;
  return (hi > bytes ? bytes : hi) - lo;
}

/* The communicator, and the start of the call's record under `algorithm`
 * (inter-communicators: "inter_linear", whatever the call). */
static int info(MPI_Comm comm, rm_comm_info* c, const char* algorithm) {
  if (!rm_active() || rm_comm(comm, c) != 0) return -1;
  rm_call_begin(comm, c->is_inter ? "inter_linear" : algorithm);
  return 0;
}

/* Inter-communicators: rooted calls. root is MPI_ROOT in the sending group. */
static void inter_rooted_send(const rm_comm_info* c, int root, uint64_t bytes_each, int from_root) {
  if (from_root) {
    if (root == MPI_ROOT)
      for (int i = 0; i < c->size; ++i) to(c, i, bytes_each, 0);
  } else if (root >= 0) {
    to(c, root, bytes_each, 0);
  }
}

void rm_model_bcast(MPI_Comm comm, int root, uint64_t bytes) {
  rm_comm_info c;
  const int tree = bytes < BCAST_SHORT || comm_size(comm) < BCAST_MIN_RANKS;
  if (info(comm, &c, tree ? "bcast_binomial" : "bcast_scatter_ring")) return;
  if (c.is_inter) return inter_rooted_send(&c, root, bytes, 1);
  const int p = c.size, vr = (c.local_rank - root + p) % p;
  if (p < 2) return;
  /* A send over distance `mask` is in round levels - 1 - log2(mask): the
   * root's farthest child first. */
  const int top = levels(p) - 1;
  if (tree) {
    /* Binomial tree: the whole message to each child. */
    int mask = 1;
    while (mask < p && !(vr & mask)) mask <<= 1;
    for (mask >>= 1; mask > 0; mask >>= 1)
      if (vr + mask < p) to(&c, (vr + mask + root) % p, bytes, top - log2_of(mask));
    return;
  }
  /* Binomial scatter of p chunks, then a ring allgather of the chunks. */
  int mask = 1;
  while (mask < p && !(vr & mask)) mask <<= 1;
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vr + mask >= p) continue;
    const int last = vr + 2 * mask < p ? vr + 2 * mask : p;
    uint64_t part = 0;
    for (int j = vr + mask; j < last; ++j) part += chunk(bytes, p, j);
    if (part) to(&c, (vr + mask + root) % p, part, top - log2_of(mask));
  }
  for (int s = 0; s < p - 1; ++s) {
    const uint64_t b = chunk(bytes, p, ((vr - s) % p + p) % p);
    if (b) to(&c, (c.local_rank + 1) % p, b, top + 1 + s);
  }
}

void rm_model_reduce(MPI_Comm comm, int root, uint64_t bytes) {
  rm_comm_info c;
  if (info(comm, &c, "reduce_binomial")) return;
  if (c.is_inter) return inter_rooted_send(&c, root, bytes, 0);
  const int p = c.size, vr = (c.local_rank - root + p) % p;
  /* Binomial tree: each non-root sends once, to the rank without its lowest
   * set bit, in the round of that bit (the leaves first). */
  if (vr != 0) to(&c, ((vr & (vr - 1)) + root) % p, bytes, log2_of(vr & -vr));
}

void rm_model_allreduce(MPI_Comm comm, uint64_t bytes) {
  rm_comm_info c;
  if (info(comm, &c, bytes <= ALLREDUCE_SHORT ? "allreduce_rdb" : "allreduce_ring")) return;
  if (c.is_inter) {
    for (int i = 0; i < c.size; ++i) to(&c, i, bytes, 0);
    return;
  }
  const int p = c.size, r = c.local_rank;
  if (p < 2) return;
  if (bytes <= ALLREDUCE_SHORT) {
    /* Rounds: 0 the pairing, 1 + k the exchange over 2^k, then the hand-back. */
    /* Recursive doubling; the first 2*rem ranks pair up first when p is
     * not a power of two, and the odd ones hand the result back. */
    int pof2 = 1;
    while (pof2 * 2 <= p) pof2 *= 2;
    const int rem = p - pof2;
    int newrank;
    if (r < 2 * rem) {
      if (r % 2 == 0)
        to(&c, r + 1, bytes, 0), newrank = -1;
      else
        newrank = r / 2;
    } else {
      newrank = r - rem;
    }
    if (newrank >= 0)
      for (int mask = 1; mask < pof2; mask <<= 1) {
        const int nd = newrank ^ mask;
        to(&c, nd < rem ? nd * 2 + 1 : nd + rem, bytes, 1 + log2_of(mask));
      }
    if (r < 2 * rem && r % 2 == 1) to(&c, r - 1, bytes, 1 + log2_of(pof2));
    return;
  }
  /* Ring: reduce-scatter, then allgather, p chunks each way. */
  const int right = (r + 1) % p;
  for (int s = 0; s < p - 1; ++s) {
    const uint64_t b = chunk(bytes, p, ((r - s - 1) % p + p) % p);
    if (b) to(&c, right, b, s);
  }
  for (int s = 0; s < p - 1; ++s) {
    const uint64_t b = chunk(bytes, p, ((r - s) % p + p) % p);
    if (b) to(&c, right, b, p - 1 + s);
  }
}

/* Gather: linear, each rank's block straight to the root. */
void rm_model_gather(MPI_Comm comm, int root, uint64_t bytes) {
  rm_comm_info c;
  if (info(comm, &c, "gather_linear")) return;
  if (c.is_inter) return inter_rooted_send(&c, root, bytes, 0);
  if (c.local_rank != root) to(&c, root, bytes, 0);
}

/* Scatter: linear, the root sends each rank its block. */
void rm_model_scatterv(MPI_Comm comm, int root, const uint64_t* bytes_to) {
  rm_comm_info c;
  if (info(comm, &c, "scatter_linear")) return;
  if (c.is_inter ? root != MPI_ROOT : c.local_rank != root) return;
  for (int i = 0; i < c.size; ++i)
    if (c.is_inter || i != root) to(&c, i, bytes_to[i], 0);
}

void rm_model_scatter(MPI_Comm comm, int root, uint64_t bytes_each) {
  rm_comm_info c;
  if (info(comm, &c, "scatter_linear")) return;
  if (c.is_inter) return inter_rooted_send(&c, root, bytes_each, 1);
  if (c.local_rank != root) return;
  for (int i = 0; i < c.size; ++i)
    if (i != root) to(&c, i, bytes_each, 0);
}

/* Allgather: ring; at step s a rank passes on the block of rank r - s.
 * (On an inter-communicator the blocks are the remote group's: the caller
 * models its own sends with rm_model_allgather.) */
void rm_model_allgatherv(MPI_Comm comm, const uint64_t* block) {
  rm_comm_info c;
  if (info(comm, &c, "allgather_ring") || c.is_inter) return;
  const int p = c.size, r = c.local_rank;
  for (int s = 0; s < p - 1; ++s) to(&c, (r + 1) % p, block[((r - s) % p + p) % p], s);
}

void rm_model_allgather(MPI_Comm comm, uint64_t bytes_each) {
  rm_comm_info c;
  if (info(comm, &c, "allgather_ring")) return;
  if (c.is_inter) {
    for (int i = 0; i < c.size; ++i) to(&c, i, bytes_each, 0);
    return;
  }
  for (int s = 0; s < c.size - 1; ++s) to(&c, (c.local_rank + 1) % c.size, bytes_each, s);
}

/* Alltoall by Open MPI 4.1's fixed decision (coll_tuned_decision_fixed.c,
 * also SimGrid's "ompi" selector): by communicator size and block bytes,
 * the linear algorithm (every block at once; its "linear_sync" variant too),
 * pairwise exchange (step s to r + s) or the modified Bruck (round k: to
 * r + 2^k, the blocks whose index has bit k set). */
enum { A2A_LINEAR, A2A_PAIRWISE, A2A_BRUCK };
typedef struct {
  int below_ranks;         /* the row holds for communicators smaller than this */
  uint64_t below_bytes[8]; /* block bytes thresholds, 0 ends the list ... */
  int algorithm[9];        /* ... the algorithm below each, then past the last */
} a2a_rule;
static const a2a_rule a2a_rules[] = {
    {3,
     {2, 4, 16, 64, 256, 4096, 32768, 1048576},
     {A2A_PAIRWISE, A2A_LINEAR, A2A_PAIRWISE, A2A_LINEAR, A2A_PAIRWISE, A2A_LINEAR, A2A_PAIRWISE, A2A_LINEAR,
      A2A_PAIRWISE}},
    {8,
     {8192, 16384, 65536, 524288, 1048576, 0},
     {A2A_LINEAR, A2A_LINEAR, A2A_LINEAR, A2A_LINEAR, A2A_PAIRWISE, A2A_LINEAR}},
    {16, {0}, {A2A_LINEAR}},
    {32, {4, 512, 0}, {A2A_LINEAR, A2A_BRUCK, A2A_LINEAR}},
    {64, {512, 0}, {A2A_BRUCK, A2A_LINEAR}},
    {128, {1024, 262144, 0}, {A2A_BRUCK, A2A_LINEAR, A2A_PAIRWISE}},
    {256, {1024, 262144, 0}, {A2A_BRUCK, A2A_LINEAR, A2A_PAIRWISE}},
    {512, {1024, 32768, 0}, {A2A_BRUCK, A2A_LINEAR, A2A_PAIRWISE}},
    {1024, {512, 262144, 0}, {A2A_BRUCK, A2A_LINEAR, A2A_PAIRWISE}},
    {2048, {512, 0}, {A2A_BRUCK, A2A_LINEAR}},
    {4096, {1024, 0}, {A2A_BRUCK, A2A_LINEAR}},
    {0, {2048, 0}, {A2A_BRUCK, A2A_LINEAR}},
};

static int alltoall_algorithm(int p, uint64_t block) {
  const a2a_rule* rule = a2a_rules;
  while (rule->below_ranks && p >= rule->below_ranks) ++rule;
  int i = 0;
  while (i < 8 && rule->below_bytes[i] && block >= rule->below_bytes[i]) ++i;
  return rule->algorithm[i];
}

/* Alltoallv and alltoallw: pairwise or linear, by communicator size only. */
static int alltoallv_algorithm(int p) {
  return p < 4 || (p >= 64 && p < 128) || (p >= 256 && p < 1024) ? A2A_PAIRWISE : A2A_LINEAR;
}

static const char* const a2a_names[] = {"alltoall_linear", "alltoall_pairwise", "alltoall_bruck"};

/* bytes_to[i] to rank i, or `each` to every rank when bytes_to is NULL. */
static void alltoall(MPI_Comm comm, const uint64_t* bytes_to, uint64_t each, int algorithm) {
  rm_comm_info c;
  if (info(comm, &c, a2a_names[algorithm])) return;
  const int p = c.size, r = c.local_rank;
  if (c.is_inter || algorithm == A2A_LINEAR) {
    for (int i = 0; i < p; ++i)
      if (c.is_inter || i != r) to(&c, i, bytes_to ? bytes_to[i] : each, 0);
  } else if (algorithm == A2A_PAIRWISE) {
    for (int s = 1; s < p; ++s) to(&c, (r + s) % p, bytes_to ? bytes_to[(r + s) % p] : each, s - 1);
  } else {
    for (int distance = 1; distance < p; distance <<= 1) {
      uint64_t blocks = 0;
      for (int i = 1; i < p; ++i) blocks += (i & distance) != 0;
      to(&c, (r + distance) % p, blocks * each, log2_of(distance));
    }
  }
}

void rm_model_alltoall_to(MPI_Comm comm, const uint64_t* bytes_to) {
  alltoall(comm, bytes_to, 0, alltoallv_algorithm(comm_size(comm)));
}

void rm_model_alltoall(MPI_Comm comm, uint64_t bytes_each) {
  alltoall(comm, NULL, bytes_each, alltoall_algorithm(comm_size(comm), bytes_each));
}

/* Reduce-scatter: ring; at step s a rank passes on its partial sum of the
 * block of rank r - s - 1, ending with its own block complete. */
void rm_model_reduce_scatter(MPI_Comm comm, const uint64_t* block, uint64_t equal) {
  rm_comm_info c;
  if (info(comm, &c, "reduce_scatter_ring") || c.is_inter) return;
  const int p = c.size, r = c.local_rank;
  for (int s = 0; s < p - 1; ++s) to(&c, (r + 1) % p, block ? block[((r - s - 1) % p + p) % p] : equal, s);
}

/* Scan and exscan: recursive doubling, to r + 1, r + 2, r + 4, ... */
void rm_model_scan(MPI_Comm comm, uint64_t bytes, int exclusive) {
  (void)exclusive; /* the same sends either way */
  rm_comm_info c;
  if (info(comm, &c, "scan_rdb") || c.is_inter) return;
  for (int mask = 1; mask < c.size; mask <<= 1)
    if (c.local_rank + mask < c.size) to(&c, c.local_rank + mask, bytes, log2_of(mask));
}

/* Barrier by Open MPI 4.1's fixed decision on the communicator size:
 * recursive doubling below 4 and from 8 to 63 ranks, linear from 4 to 7,
 * dissemination ("bruck") from 64 to 255, 512 to 1023 and from 4096, a
 * tree from 256 to 511 and 1024 to 4095. Every message is empty.
 * Inter-communicators: to every remote rank. */
static void barrier_recursive_doubling(const rm_comm_info* c) {
  const int p = c->size, r = c->local_rank;
  int adjsize = 1;
  while (adjsize * 2 <= p) adjsize *= 2; /* the largest power of two <= p */
  /* Round 0: the ranks past it report to rank - adjsize; then exchanges
   * over 2^k in round 1 + k; last, the release of those ranks. */
  if (r >= adjsize) to(c, r - adjsize, 0, 0);
  if (r < adjsize)
    for (int mask = 1; mask < adjsize; mask <<= 1) to(c, r ^ mask, 0, 1 + log2_of(mask));
  if (r < p - adjsize) to(c, r + adjsize, 0, 1 + log2_of(adjsize));
}

static void barrier_tree(const rm_comm_info* c) {
  const int p = c->size, r = c->local_rank, top = levels(p);
  /* Fan-in: in round k a rank whose lowest set bit is k reports to the rank
   * without it; fan-out mirrors it in rounds top .. 2 top - 1. */
  for (int jump = 1; jump < (1 << top); jump <<= 1) {
    const int partner = r ^ jump;
    if ((partner & (jump - 1)) == 0 && partner < p && partner < r) to(c, partner, 0, log2_of(jump));
  }
  for (int jump = 1 << top >> 1; jump > 0; jump >>= 1) {
    const int partner = r ^ jump;
    if ((partner & (jump - 1)) == 0 && partner < p && partner > r) to(c, partner, 0, 2 * top - 1 - log2_of(jump));
  }
}

enum { BARRIER_DOUBLING, BARRIER_LINEAR, BARRIER_TREE, BARRIER_DISSEMINATION };
static const char* const barrier_names[] = {"barrier_recursive_doubling", "barrier_linear", "barrier_tree",
                                            "barrier_dissemination"};

static int barrier_algorithm(int p) {
  if (p < 4 || (p >= 8 && p < 64)) return BARRIER_DOUBLING;
  if (p < 8) return BARRIER_LINEAR;
  if ((p >= 256 && p < 512) || (p >= 1024 && p < 4096)) return BARRIER_TREE;
  return BARRIER_DISSEMINATION;
}

void rm_model_barrier(MPI_Comm comm) {
  const int algorithm = barrier_algorithm(comm_size(comm));
  rm_comm_info c;
  if (info(comm, &c, barrier_names[algorithm])) return;
  if (c.is_inter) {
    for (int i = 0; i < c.size; ++i) to(&c, i, 0, 0);
  } else if (algorithm == BARRIER_DOUBLING) {
    barrier_recursive_doubling(&c);
  } else if (algorithm == BARRIER_LINEAR) { /* everyone to rank 0, then rank 0 to everyone */
    if (c.local_rank != 0)
      to(&c, 0, 0, 0);
    else
      for (int i = 1; i < c.size; ++i) to(&c, i, 0, 1);
  } else if (algorithm == BARRIER_TREE) {
    barrier_tree(&c);
  } else {
    for (int k = 1; k < c.size; k <<= 1) to(&c, (c.local_rank + k) % c.size, 0, log2_of(k));
  }
}

/* Out-neighbours in the order the neighbourhood collectives use: for a
 * Cartesian communicator, per dimension the negative then the positive
 * neighbour (MPI_PROC_NULL included, as the buffers have a block for it). */
int rm_out_neighbours(MPI_Comm comm, int** out, int* count) {
  int kind = MPI_UNDEFINED;
  *out = NULL, *count = 0;
  if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS) return -1;
  if (kind == MPI_CART) {
    int nd = 0;
    PMPI_Cartdim_get(comm, &nd);
    *out = malloc(sizeof(int) * (size_t)(2 * nd + 1));
    if (!*out) return -1;
    for (int d = 0; d < nd; ++d) {
      int src, dst;
      PMPI_Cart_shift(comm, d, 1, &src, &dst);
      (*out)[2 * d] = src; /* the negative neighbour */
      (*out)[2 * d + 1] = dst;
    }
    *count = 2 * nd;
    return 0;
  }
  if (kind == MPI_GRAPH) {
    int rank, n = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, &n);
    *out = malloc(sizeof(int) * (size_t)(n + 1));
    if (!*out) return -1;
    PMPI_Graph_neighbors(comm, rank, n, *out);
    *count = n;
    return 0;
  }
  if (kind == MPI_DIST_GRAPH) {
    int in = 0, n = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &n, &weighted);
    /* Weights are asked for whenever the graph has them, as passing
     * MPI_UNWEIGHTED for a weighted graph is erroneous. */
    int* sources = malloc(sizeof(int) * (size_t)(in + 1));
    int* in_w = malloc(sizeof(int) * (size_t)(in + 1));
    int* out_w = malloc(sizeof(int) * (size_t)(n + 1));
    *out = malloc(sizeof(int) * (size_t)(n + 1));
    if (!sources || !in_w || !out_w || !*out) {
      free(sources), free(in_w), free(out_w), free(*out), *out = NULL;
      return -1;
    }
    PMPI_Dist_graph_neighbors(comm, in, sources, weighted ? in_w : MPI_UNWEIGHTED, n, *out,
                              weighted ? out_w : MPI_UNWEIGHTED);
    free(sources), free(in_w), free(out_w);
    *count = n;
    return 0;
  }
  return -1;
}
