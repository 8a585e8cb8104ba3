// The stages of map() behind one small interface each, and the pipeline a
// Context composes of them (pipeline.cpp). A new partitioner, placement
// start or refinement is one class in one file and one line in
// make_pipeline(); the engine (map.cpp) only runs what the pipeline lists:
//
//   node sets -> partitioner -> placement starts -> placement refiners
//             -> rank refiners -> split inside nodes (assign_slots)
//
// Internal to libmap.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "map/engine.hpp"

namespace rankmap::detail {

// Above this many nodes the pipelines take the paths that scale: the
// hierarchy instead of one METIS call, local swaps instead of placement
// starts that look at every node.
inline constexpr std::size_t kLargeAllocation = 2048;

// The hop-bytes each link stage (link_refine.cpp, link_rank_refine.cpp) may
// give up for a lower peak, in ten-thousandths of the candidate's: 0.25 %.
// At 1 % each (with the choice's 1 % window, map.cpp), `default` trailed
// the best peer by up to 1 % on 3 of 56 instances; at 0.25 % (no window)
// on none, for a peak 1.7 % higher in the geometric mean (bench/RESULTS.md,
// issue 33, fifth session).
inline constexpr std::uint64_t kPeakRiseBasisPoints = 25;
// That share of `hop_bytes` (or another, in ten-thousandths).
inline long long peak_rise_budget(std::uint64_t hop_bytes, std::uint64_t basis_points = kPeakRiseBasisPoints) {
  return static_cast<long long>(hop_bytes / 10000 * basis_points);
}

// What every stage reads, fixed for one map() call.
struct Problem {
  const Graph& graph;        // directed traffic: link loads
  const UndirectedGraph& g;  // bytes both ways: what is cut and scored
  const Machine& machine;
  const Allocation& allocation;
  const NodeGeometry& geometry;
  const Context& context;
};

// The nodes one pipeline fills: allocation position used[j] takes sizes[j]
// ranks. `name` tells candidates on different node sets apart.
struct NodeSet {
  std::string name;
  std::vector<int> used;
  std::vector<std::uint32_t> sizes;
  // Shares other than the compact set's run one trial: each set costs a
  // whole pipeline, and a 13,824-rank stencil on 1,024 nodes of 16 took
  // 5x longer with every trial on every set.
  bool one_trial = false;
  bool large() const { return used.size() > kLargeAllocation; }
};

// Ranks into one part per node of the set: exactly sizes[p] in part p.
class Partitioner {
 public:
  virtual ~Partitioner() = default;
  virtual std::string name() const = 0;
  virtual bool applies(const NodeSet& nodes) const = 0;
  // Part p was cut for node p (near the nodes cut with it), so leaving it
  // there is a placement start worth refining.
  virtual bool cuts_for_nodes() const = 0;
  virtual std::vector<int> partition(const Problem& problem, const NodeSet& nodes, std::uint64_t seed) const = 0;
};

// A first placement: slot_of_part[p] = j puts part p on nodes.used[j], of
// the same size.
class PlacementStart {
 public:
  virtual ~PlacementStart() = default;
  virtual bool applies(const NodeSet& nodes) const = 0;
  virtual std::vector<int> place(const Problem& problem, const NodeSet& nodes, const PartGraph& q) const = 0;
};

// Improves a placement in place; `part` is the partition it places.
class PlacementRefiner {
 public:
  virtual ~PlacementRefiner() = default;
  virtual std::string name() const = 0;
  virtual bool applies(const NodeSet& nodes) const = 0;
  virtual void refine(const Problem& problem, const NodeSet& nodes, const std::vector<int>& part, const PartGraph& q,
                      std::vector<int>& slot_of_part) const = 0;
};

// Improves the node of every rank (allocation positions) in place; false
// when it moved no rank (the caller's scores still hold).
class RankRefiner {
 public:
  virtual ~RankRefiner() = default;
  virtual bool refine(const Problem& problem, std::vector<int>& node_of_rank) const = 0;
};

// The stages a Context enables, in the order they run. Every start is
// refined by `each_start`; the best start then by `best_start`.
struct Pipeline {
  std::vector<std::unique_ptr<Partitioner>> partitioners;
  std::vector<std::unique_ptr<PlacementStart>> starts;
  std::vector<std::unique_ptr<PlacementRefiner>> each_start;
  std::vector<std::unique_ptr<PlacementRefiner>> best_start;
  std::vector<std::unique_ptr<RankRefiner>> rank_refiners;
  std::vector<std::string> skipped;  // stages the context asks for that cannot run here, and why
};
Pipeline make_pipeline(const Context& context, const Network& network);

// The stages, each defined beside the algorithm it wraps.
std::unique_ptr<Partitioner> make_hierarchy_partitioner(const Context& context);            // partition_hierarchy.cpp
std::unique_ptr<Partitioner> make_recursive_bisection_partitioner(const Context& context);  // partition_hierarchy.cpp
std::unique_ptr<Partitioner> make_metis_kway_partitioner(const Context& context);           // partition_metis.cpp
std::unique_ptr<Partitioner> make_scotch_partitioner(const Context& context);               // partition_scotch.cpp
std::unique_ptr<PlacementStart> make_greedy_start();                                        // placement.cpp
std::unique_ptr<PlacementStart> make_cuthill_mckee_start();                                 // placement.cpp
std::unique_ptr<PlacementStart> make_rank_order_start();                                    // placement.cpp
std::unique_ptr<PlacementRefiner> make_hop_byte_swaps(int passes);                          // placement.cpp
std::unique_ptr<PlacementRefiner> make_tabu_placement();                                    // placement_tabu.cpp
std::unique_ptr<PlacementRefiner> make_link_load_swaps(int passes);                         // link_refine.cpp
std::unique_ptr<RankRefiner> make_rank_swaps(int passes);                                   // rank_refine.cpp
std::unique_ptr<RankRefiner> make_rank_link_swaps(int rounds);                              // link_rank_refine.cpp
std::unique_ptr<RankRefiner> make_rank_moves();                                             // move_refine.cpp
std::unique_ptr<RankRefiner> make_port_swaps();                                             // port_refine.cpp

// Where the pipelines put ranks (node_choice.cpp): `compact` (ranks per
// allocated node, from ranks_per_node()); with fewer ranks than slots also
// block's nodes, the tightest of `boxes` (boxes of whole nodes of per_node
// slots), every allocated node evenly, the shares of the graph's parts,
// lattice_shares() and strided_shares().
std::vector<NodeSet> node_sets(const Problem& problem, const std::vector<std::uint32_t>& compact,
                               const std::vector<NodeBox>& boxes, std::size_t per_node);
// Ranks per allocated node spread evenly over the nodes whose coordinates
// are odd along every torus or mesh dimension of 4 or more: empty on trees
// and dragonflies, with as many ranks as nodes, where no dimension is that
// long, where the lattice is every allocated node, or where it has too few
// slots (node_choice.cpp).
std::vector<std::uint32_t> lattice_shares(const NodeGeometry& geometry, const Allocation& allocation,
                                          std::size_t ranks);
// Fewer ranks than nodes on a tree or a dragonfly: one rank on each of the
// nodes strided evenly over the network's order, node i * nodes / ranks
// for rank i; empty on tori and with as many ranks as nodes.
std::vector<std::uint32_t> strided_shares(const NodeGeometry& geometry, const Allocation& allocation,
                                          std::size_t ranks);

}  // namespace rankmap::detail
