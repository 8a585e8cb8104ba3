// What the stages of map() exchange. Internal to libmap.
//
// Parts: the ranks are split into one part per used node; part p has
// sizes[p] ranks and starts out meant for used node p. Placement may move a
// part to any used node that takes the same number of ranks.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/workers.hpp"
#include "graph/undirected.hpp"
#include "machine/node_geometry.hpp"
#include "partition/metis.hpp"
#include "partition/part_sizes.hpp"
#include "rankmap/context.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/mapping.hpp"

namespace rankmap::detail {

// How many ranks each allocated node takes: all its slots when the ranks
// fill the allocation; otherwise the most compact set of nodes around the
// allocation's centre; with oversubscription, shares in proportion to slots.
std::vector<std::uint32_t> ranks_per_node(const Allocation& allocation, std::size_t ranks, bool oversubscribe,
                                          const NodeGeometry& geometry);

// Allocation positions, nearest the allocation's centre (the node with the
// least total distance to the others) first.
std::vector<int> nodes_from_centre(const Allocation& allocation, const NodeGeometry& geometry);

// Stage 1: a part (0..sizes.size()-1) for every rank, with exactly sizes[p]
// ranks in part p (METIS k-way: partition/metis.hpp).
std::vector<int> partition_scotch(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes,
                                  const std::vector<int>& used_nodes, const NodeGeometry& geometry, std::uint64_t seed);
// Bisects graph and node coordinates together: part p lands near the
// nodes it was cut with, so the identity placement is already good. Each
// bisection keeps the best of `cuts` METIS tries.
std::vector<int> partition_recursive_bisection(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes,
                                               const std::vector<int>& used_nodes, const NodeGeometry& geometry,
                                               std::uint64_t seed, int cuts);
// A box of allocated nodes: its shape as a network of its own (a dimension
// wraps only where the box spans the whole ring) and the allocation
// position at each of its coordinates (X fastest).
struct NodeBox {
  Network net;
  std::vector<int> node_at;
};
// Boxes of `nodes` nodes, one per shape, each at the first origin where all
// its nodes are allocated with per_node slots.
std::vector<NodeBox> node_boxes(const Allocation& allocation, const NodeGeometry& geometry, std::size_t nodes,
                                std::size_t per_node);
// A grid of up to 3 axes that the graph is in rank order.
struct GridShape {
  std::vector<int> dims;       // X fastest
  std::vector<char> periodic;  // some edge wraps around this axis
};
// Every shape the graph fits in rank order, fewest axes first; empty when
// it is no grid in rank order.
std::vector<GridShape> grid_shapes(const UndirectedGraph& g);
// Node of every rank for each way of cutting a grid of one of `shapes` into
// boxes of per_node ranks laid onto the node box with neighbouring boxes on
// neighbouring nodes (at most max_candidates, best estimate first). Empty
// unless the graph has box.node_at.size() * per_node ranks.
std::vector<std::vector<int>> cartesian_candidates(const UndirectedGraph& g, const std::vector<GridShape>& shapes,
                                                   const NodeBox& box, std::size_t per_node,
                                                   std::size_t max_candidates);
// A grid found in the graph's edges whatever the rank numbering: its axis
// lengths (X fastest) and each rank's position in it.
struct RecoveredGrid {
  std::vector<int> dims;
  std::vector<std::uint32_t> position_of_rank;
};
std::optional<RecoveredGrid> recover_grid(const UndirectedGraph& g);
// The shape of a recovered grid when every edge of g joins ranks at most a
// step apart on each axis of it, read through position_of_rank.
std::optional<GridShape> recovered_shape(const UndirectedGraph& g, const RecoveredGrid& grid);

// What vertex v's edges cost if v sat on node x: their bytes times the
// hops to where each partner is now. The rank refiners' unit of gain.
inline std::uint64_t hop_bytes_on(const UndirectedGraph& g, const NodeGeometry& geo,
                                  const std::vector<int>& node_of_rank, std::uint32_t v, int x) {
  std::uint64_t c = 0;
  for (std::uint64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e)
    c += g.weight[e] * static_cast<std::uint64_t>(geo.hops(x, node_of_rank[g.adjncy[e]]));
  return c;
}

// Swaps single ranks (or vertices of a contracted graph) between nodes while
// hop-bytes falls, each with a partner on one of the three nodes it gains
// most on; returns passes made. From `scan_from` edge ends, each pass first
// tests every rank for a gain on several threads and skips those without
// one (the same swaps: tests compare it with the plain pass), visits the
// ranks a stretch of the numbering apart (below), and searches for `at_once` of
// them in parallel (0: 128), keeping a search only where no swap since
// touched what it read: the swaps are the one-at-a-time pass's in that
// order, whatever `at_once` and the threads.
int refine_rank_swaps(const UndirectedGraph& g, const NodeGeometry& geo, std::vector<int>& node_of_rank, int passes,
                      std::uint64_t scan_from = kParallelEdges, std::size_t at_once = 0);
// The stretches of the numbering that order: rank p % 128 * stride + p / 128
// is visited p-th (stride: the ranks over 128, rounded up).
constexpr std::uint64_t kSwapStrands = 128;

// Moves single ranks between nodes so that every node ends with its size:
// round cycles of nodes whose moves gain in sum, then in up to `rounds`
// rounds of free moves (a node may hold 2 ranks more) rebalanced along the
// cheapest paths of moves, a round kept only if it gains. Stops when
// nothing gains or `budget` steps are spent; returns the cycles and
// rounds kept.
int refine_rank_moves(const UndirectedGraph& g, const NodeGeometry& geo, std::vector<int>& node_of_rank,
                      std::uint64_t budget, int rounds);

// For thousands of nodes: nodes split by coordinates into compact groups,
// ranks into as many parts, parts matched to groups, recursively.
std::vector<int> partition_hierarchy(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes,
                                     const std::vector<int>& used_nodes, const NodeGeometry& geometry,
                                     std::uint64_t seed);

// Traffic between parts, both ways (hop-bytes is symmetric in the pair).
struct PartGraph {
  int parts = 0;
  std::vector<std::uint64_t> xadj;
  std::vector<int> adjncy;
  std::vector<std::uint64_t> weight;
  std::vector<std::uint32_t> first_rank;  // each part's lowest rank (the ranks' count if it has none)
};
PartGraph make_part_graph(const UndirectedGraph& g, const std::vector<int>& part, int parts);
// Taillard's robust tabu search over swaps of equal-sized parts, from
// `slot` (part p on used[slot[p]]); keeps the best placement seen. True
// when it is better than the start (placement_tabu.cpp).
bool tabu_placement(const PartGraph& q, const std::vector<std::uint32_t>& sizes, const std::vector<int>& used,
                    const NodeGeometry& geo, std::vector<int>& slot, std::uint64_t seed);
// Merges vertices in groups of `group` (a power of two dividing n) by
// rounds of heavy-edge matching in a seeded random order (contract.cpp):
// the coarse graph and the coarse vertex of every vertex of g.
struct Contraction {
  UndirectedGraph graph;
  std::vector<std::uint32_t> coarse_of;
};
// With `label`, only vertices of equal label merge (every label on a
// multiple of `group` vertices): coarse vertices stay inside, say, a node.
Contraction contract_matched(const UndirectedGraph& g, std::uint32_t group, std::uint64_t seed,
                             const std::vector<int>* label = nullptr);

// Stage 2: node (index into used_nodes) of every part.
std::vector<int> place_greedy(const PartGraph& q, const std::vector<std::uint32_t>& sizes,
                              const std::vector<int>& used_nodes, const NodeGeometry& geometry);
std::vector<int> place_cuthill_mckee(const PartGraph& q, const std::vector<std::uint32_t>& sizes,
                                     const std::vector<int>& used_nodes, const NodeGeometry& geometry);
// Parts in the order of their lowest rank onto the nodes in allocation
// order, each on the next free node of its size: the launcher's own layout
// (block on whole nodes, round-robin at one rank a node).
std::vector<int> place_in_rank_order(const PartGraph& q, const std::vector<std::uint32_t>& sizes);
std::uint64_t placement_hop_bytes(const PartGraph& q, const std::vector<int>& slot_of_part,
                                  const std::vector<int>& used_nodes, const NodeGeometry& geometry);
// Swaps parts of equal size while hop-bytes falls; returns the passes made.
// Looks for the swaps of `round_size` parts at a time on several threads,
// each made only if it still gains after the ones before it (0: 256 on
// allocations of over 4,096 nodes, else 1, the plain pass).
int refine_placement(const PartGraph& q, const std::vector<std::uint32_t>& sizes, const std::vector<int>& used_nodes,
                     const NodeGeometry& geometry, std::vector<int>& slot_of_part, int passes,
                     std::size_t round_size = 0);

// Then swaps that lower the most loaded link under the routing order,
// spending at most 1 % more hop-bytes; `graph` and `part` give the directed
// traffic.
int refine_link_load(const Graph& graph, const std::vector<int>& part, const PartGraph& q,
                     const std::vector<std::uint32_t>& sizes, const std::vector<int>& used,
                     const NodeGeometry& geometry, std::vector<int>& slot_of_part, int passes);

// On a dragonfly, each group's ranks of node_of_rank (taken group by group,
// node by node) dealt in turn over the nodes they use there, the first
// node of every router before any second: every node keeps its number of
// ranks, and the ranks a node held go to different routers. A sub-
// communicator's all-to-all packed on a few routers crowds their cables;
// dealt, it spreads over every cable of the group. fft2d 16x16 at 2 a
// node on SimGrid's 4,2;1,1;8,1;4: 2.12 ms in SMPI against block's 2.56
// (bench/RESULTS.md, issue 54, twenty-second session).
std::vector<int> dealt_over_routers(const std::vector<int>& node_of_rank, const NodeGeometry& geometry);

// Stage 3: each rank's slot on its node (node_of_rank: allocation positions).
Mapping assign_slots(const UndirectedGraph& g, const std::vector<int>& node_of_rank, const Machine& machine,
                     const Allocation& allocation, bool within_node);

}  // namespace rankmap::detail
