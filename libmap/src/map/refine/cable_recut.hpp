// The ranks of a few nodes split again among the same nodes so that the
// most loaded node cable (either way) is lowest: the search behind the
// last step of the link refiner on a dragonfly (link_rank_refine.cpp).
// A node's cable carries every byte its ranks exchange with other nodes,
// so where the peak is one node's cable and its traffic spreads over
// several partner nodes, no swap of one or two ranks, and no rotation of
// three, may lower it while many ranks moving at once do. Only the pool's
// own cables are scored here; the caller routes the result exactly.
// Internal to libmap.
#pragma once

#include <cstdint>
#include <vector>

namespace rankmap::detail {

// The pool: its ranks (numbered 0..n-1 here), the node each sits on
// (0..nodes-1), the bytes each sends to and receives from ranks outside
// the pool (no split changes those), and the edges between pool ranks:
// rank i's are other[offsets[i]..offsets[i+1]), each edge in both ranks'
// lists, with the bytes from i to the other rank and back.
// Costs, in the caller's unit (hop-bytes, or twice them): away_cost[i *
// nodes + k], of rank i's traffic with ranks outside the pool were it on
// node k; hops[k * nodes + m], of a byte between nodes k and m.
struct CablePool {
  int nodes = 0;
  std::vector<int> node;
  std::vector<std::uint64_t> away_out, away_in;
  std::vector<std::uint64_t> offsets{0};
  std::vector<std::uint32_t> other;
  std::vector<std::uint64_t> out_bytes, in_bytes;
  std::vector<long long> away_cost, hops;
};

// A tabu search over swaps between the node whose cable is most loaded
// and the others: each step makes the swap that leaves the lowest most
// loaded cable, the cost it adds over the start's priced in (the whole
// `allowed` as much as the starting peak), and then holds its two ranks
// still for a few steps, so that the search leaves a local minimum. Up to
// `steps` swaps, and none once `work` (edges scanned) passes `stop`. On
// return, pool.node is the best split found of those within `allowed` of
// the start's cost (the lowest most loaded cable, then the lowest cost);
// true when its most loaded cable is below the start's. Deterministic.
bool recut_cables(CablePool& pool, long long allowed, int steps, std::uint64_t& work, std::uint64_t stop);

}  // namespace rankmap::detail
