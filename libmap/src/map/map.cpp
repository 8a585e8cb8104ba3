// map(): runs the candidate pipelines the Context enables and keeps the
// mapping with the least hop-bytes, then the least loaded link, then the
// least cross-socket traffic.
#include "rankmap/map.hpp"

#include <algorithm>
#include <tuple>

#include "map/engine.hpp"
#include "rankmap/error.hpp"
#include "rankmap/metrics.hpp"

namespace rankmap {

namespace {

using namespace detail;

// Above this many nodes map() uses the hierarchy (partition_hierarchy.cpp).
constexpr std::size_t kLargeAllocation = 2048;

struct Candidate {
  std::string name;
  Mapping mapping;
  Metrics metrics;  // filled only when there is a choice to make
};

// The hierarchy on the graph, or on runs of consecutive ranks merged first
// when the graph is larger than context.partition.coarsen_to: ranks are
// numbered in the application's decomposition order, so neighbours in rank
// order usually talk. A run never straddles two nodes' shares.
std::vector<int> hierarchy_partition(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes,
                                     const std::vector<int>& used, const NodeGeometry& geometry, const Context& context) {
  std::uint32_t group = 1;
  const std::uint32_t limit = context.partition.coarsen_to;
  auto fits = [&](std::uint32_t c) {
    if (g.n % c) return false;
    for (std::uint32_t s : sizes)
      if (s % c) return false;
    return true;
  };
  while (limit > 0 && g.n / group > limit && fits(group * 2)) group *= 2;
  if (group == 1) return partition_hierarchy(g, sizes, used, geometry, context.seed);
  std::vector<std::uint32_t> merged_sizes;
  for (std::uint32_t s : sizes) merged_sizes.push_back(s / group);
  const std::vector<int> merged =
      partition_hierarchy(contract_consecutive(g, group), merged_sizes, used, geometry, context.seed);
  std::vector<int> part(g.n);
  for (std::uint32_t r = 0; r < g.n; ++r) part[r] = merged[r / group];
  return part;
}

}  // namespace

Mapping map(const Graph& graph, const Machine& machine, const Allocation& allocation, const Context& context,
            const StageCallback& on_stage) {
  auto stage = [&](const std::string& what) {
    if (on_stage) on_stage(what);
  };
  if (graph.ranks == 0) throw Error("the graph has no ranks");
  const NodeGeometry geometry(machine, allocation);
  const std::vector<std::uint32_t> per_node = ranks_per_node(allocation, graph.ranks, context.oversubscribe, geometry);
  std::vector<int> used;              // allocation positions that take ranks
  std::vector<std::uint32_t> sizes;   // ranks each takes
  for (int k = 0; k < static_cast<int>(per_node.size()); ++k)
    if (per_node[k] > 0) used.push_back(k), sizes.push_back(per_node[k]);
  const UndirectedGraph g = make_undirected(graph);
  stage("made the graph undirected");

  std::vector<Candidate> candidates;
  auto finish = [&](const std::string& name, std::vector<int> node_of_rank) {
    if (context.refinement.rank_swap_passes > 0)
      refine_rank_swaps(g, geometry, node_of_rank, context.refinement.rank_swap_passes);
    candidates.push_back({name, assign_slots(g, node_of_rank, machine, allocation, context.within_node), {}});
    stage("candidate " + name);
  };
  // Thousands of nodes: one METIS call per node part, and placement starts
  // that look at all nodes, are too slow; the hierarchy and local swaps are not.
  const bool large = used.size() > kLargeAllocation;
  const bool greedy = context.placement.greedy && !large;
  const bool cuthill_mckee = context.placement.cuthill_mckee && !large;
  // From a partition into parts (part p cut for used node p): try each
  // enabled placement, keep the best after swaps. The partitioner's own
  // order (part p on node p) is a start when it means something, or when
  // nothing else is enabled.
  auto place = [&](const std::string& name, const std::vector<int>& part, bool identity_is_meaningful) {
    stage("partitioned " + name);
    const PartGraph q = make_part_graph(g, part, static_cast<int>(used.size()));
    std::vector<std::vector<int>> starts;
    if (identity_is_meaningful || (!greedy && !cuthill_mckee)) {
      std::vector<int> identity(used.size());
      for (std::size_t p = 0; p < used.size(); ++p) identity[p] = static_cast<int>(p);
      starts.push_back(std::move(identity));
    }
    if (greedy) starts.push_back(place_greedy(q, sizes, used, geometry));
    if (cuthill_mckee) starts.push_back(place_cuthill_mckee(q, sizes, used, geometry));
    std::vector<int> best;
    std::uint64_t best_cost = 0;
    for (auto& slot : starts) {
      refine_placement(q, sizes, used, geometry, slot, context.placement.swap_passes);
      if (starts.size() == 1) {  // nothing to compare it with
        best = std::move(slot);
        break;
      }
      const std::uint64_t c = placement_hop_bytes(q, slot, used, geometry);
      stage("placement start of " + name + " after swaps: hop-bytes " + std::to_string(c));
      if (best.empty() || c < best_cost) best = slot, best_cost = c;
    }
    if (!large && context.placement.swap_passes > 0) {
      refine_link_load(graph, part, q, sizes, used, geometry, best, context.placement.swap_passes);
      stage("link-load swaps of " + name + ": hop-bytes " + std::to_string(placement_hop_bytes(q, best, used, geometry)));
    }
    std::vector<int> node_of_rank(graph.ranks);
    for (std::uint32_t r = 0; r < graph.ranks; ++r) node_of_rank[r] = used[best[part[r]]];
    stage("placed " + name);
    finish(name, std::move(node_of_rank));
  };

  // hop-bytes of a node assignment, for choosing among many cheaply.
  auto node_hop_bytes = [&](const std::vector<int>& node_of_rank) {
    std::uint64_t total = 0;
    for (std::uint32_t r = 0; r < g.n; ++r)
      for (std::uint64_t e = g.xadj[r]; e < g.xadj[r + 1]; ++e)
        total += g.weight[e] * static_cast<std::uint64_t>(geometry.hops(node_of_rank[r], node_of_rank[g.adjncy[e]]));
    return total / 2;
  };
  bool have_grid = false;
  if (context.partition.cartesian) {
    // Candidates come best-estimated first; scoring each costs a pass over
    // the edges, so big graphs score fewer.
    const std::size_t edges = g.xadj[g.n];
    const std::size_t max_candidates = std::clamp<std::size_t>((std::size_t{1} << 26) / std::max<std::size_t>(edges, 1), 2, 64);
    std::vector<std::vector<int>> layouts = cartesian_candidates(g, allocation, geometry, max_candidates);
    if (layouts.empty()) {
      // Not a grid in rank order: perhaps a grid renumbered.
      if (const auto grid = recover_grid(g)) {
        stage("found a grid in the graph's edges");
        layouts = cartesian_candidates(renumber(g, grid->position_of_rank), allocation, geometry, max_candidates);
        for (auto& layout : layouts) {
          std::vector<int> node_of_rank(g.n);
          for (std::uint32_t r = 0; r < g.n; ++r) node_of_rank[r] = layout[grid->position_of_rank[r]];
          layout = std::move(node_of_rank);
        }
      }
    }
    std::vector<int> best;
    std::uint64_t best_cost = 0;
    for (auto& candidate : layouts) {
      const std::uint64_t c = node_hop_bytes(candidate);
      if (best.empty() || c < best_cost) best = std::move(candidate), best_cost = c;
    }
    have_grid = !best.empty();
    if (have_grid) finish("Cartesian", std::move(best));
    else stage("not a grid that fits the allocation");
  }
  if (have_grid && context.partition.grid_only) return std::move(candidates.front().mapping);

  const std::uint64_t seed = context.seed;
  // On large allocations the hierarchy stands in for k-way and bisection.
  if (large && (context.partition.metis_kway || context.partition.recursive_bisection))
    place("hierarchy", hierarchy_partition(g, sizes, used, geometry, context), true);
  else if (context.partition.recursive_bisection && used.size() > 1)
    place("recursive bisection", partition_recursive_bisection(g, sizes, used, geometry, seed), true);
  if (!large && (context.partition.metis_kway || used.size() == 1))
    place("METIS k-way", partition_metis_kway(g, sizes, seed, context.partition.metis_cuts), false);
  if (context.partition.scotch && used.size() > 1)
    place("Scotch", partition_scotch(g, sizes, used, geometry, seed), true);

  if (candidates.empty())
    throw Error("no mapping pipeline applies: enable metis_kway, recursive_bisection or scotch in [partition]");
  if (candidates.size() == 1) return std::move(candidates.front().mapping);
  for (Candidate& c : candidates) {
    c.metrics = evaluate(graph, machine, allocation, c.mapping);
    stage("scored " + c.name + ": hop-bytes " + std::to_string(c.metrics.hop_bytes) + ", max link " +
          std::to_string(c.metrics.max_link_bytes) + ", cross-socket " + std::to_string(c.metrics.cross_socket_bytes));
  }
  const Candidate* best = &candidates.front();
  for (const Candidate& c : candidates)
    if (std::tie(c.metrics.hop_bytes, c.metrics.max_link_bytes, c.metrics.cross_socket_bytes) <
        std::tie(best->metrics.hop_bytes, best->metrics.max_link_bytes, best->metrics.cross_socket_bytes))
      best = &c;
  return best->mapping;
}

}  // namespace rankmap
