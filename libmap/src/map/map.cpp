// map(): the engine's candidates and the choice among them.
//
// Candidates: the Cartesian layouts of a grid (in rank order, or found in
// the graph's edges) on every box of nodes it fits; the partition pipelines
// on each choice of nodes (the most compact set, block's nodes and a
// compact box when ranks are fewer than slots); and the launcher's own block
// mapping, so that rankmap never writes a mapping with more hop-bytes than
// the launcher's default. The least hop-bytes wins; ties go to the least
// loaded link, then the least cross-socket traffic, then the earlier
// candidate (block comes last).
#include "rankmap/map.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <tuple>

#include "map/engine.hpp"
#include "rankmap/baseline.hpp"
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
  std::uint64_t hop_bytes = 0;
};

// Which allocation positions take how many ranks.
struct NodeChoice {
  std::string name;
  std::vector<std::uint32_t> per_node;
};

// The hierarchy on the graph, or on groups of matched ranks when the graph
// is larger than context.partition.coarsen_to. Node sizes are multiples of
// the group size, so every coarse vertex stands for the same number of ranks.
std::vector<int> hierarchy_partition(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes,
                                     const std::vector<int>& used, const NodeGeometry& geometry, const Context& context,
                                     std::uint64_t seed) {
  std::uint32_t group = 1;
  const std::uint32_t limit = context.partition.coarsen_to;
  auto fits = [&](std::uint32_t c) {
    if (g.n % c) return false;
    for (std::uint32_t s : sizes)
      if (s % c) return false;
    return true;
  };
  while (limit > 0 && g.n / group > limit && fits(group * 2)) group *= 2;
  if (group == 1) return partition_hierarchy(g, sizes, used, geometry, seed);
  std::vector<std::uint32_t> merged_sizes;
  for (std::uint32_t s : sizes) merged_sizes.push_back(s / group);
  const Contraction c = contract_matched(g, group, seed);
  const std::vector<int> merged = partition_hierarchy(c.graph, merged_sizes, used, geometry, seed);
  std::vector<int> part(g.n);
  for (std::uint32_t r = 0; r < g.n; ++r) part[r] = merged[c.coarse_of[r]];
  return part;
}

class Engine {
 public:
  Engine(const Graph& graph, const Machine& machine, const Allocation& allocation, const Context& context,
         const StageCallback& on_stage)
      : graph_(graph), machine_(machine), allocation_(allocation), context_(context), on_stage_(on_stage),
        geometry_(machine, allocation) {}

  MapResult run() {
    if (graph_.ranks == 0) throw Error("the graph has no ranks");
    const std::vector<std::uint32_t> compact =
        ranks_per_node(allocation_, graph_.ranks, context_.oversubscribe, geometry_);
    g_ = make_undirected(graph_);
    stage("made the graph undirected");
    const std::vector<NodeBox> whole_node_boxes = boxes();
    const bool grid = context_.partition.cartesian && cartesian(whole_node_boxes);
    if (!(grid && context_.partition.grid_only))
      for (const NodeChoice& choice : node_choices(compact, whole_node_boxes)) partition_onto(choice);
    if (graph_.ranks <= allocation_.total_slots()) {
      const Mapping block = baseline_mapping(Baseline::block, allocation_, graph_.ranks);
      std::vector<int> node_of_rank(graph_.ranks);
      for (std::uint32_t r = 0; r < graph_.ranks; ++r) node_of_rank[r] = block.ranks[r].node;
      candidates_.push_back({"block", block, node_hop_bytes(node_of_rank)});
    }
    if (candidates_.empty())
      throw Error("no mapping pipeline applies: enable metis_kway, recursive_bisection or scotch in [partition]");
    return choose();
  }

 private:
  void stage(const std::string& what) const {
    if (on_stage_) on_stage_(what);
  }

  // hop-bytes of a node assignment: all a candidate's hop-bytes, since
  // ranks of one node are 0 hops apart.
  std::uint64_t node_hop_bytes(const std::vector<int>& node_of_rank) const { return node_hop_bytes(g_, node_of_rank); }
  std::uint64_t node_hop_bytes(const UndirectedGraph& g, const std::vector<int>& node_of_rank) const {
    std::uint64_t total = 0;
    for (std::uint32_t r = 0; r < g.n; ++r)
      for (std::uint64_t e = g.xadj[r]; e < g.xadj[r + 1]; ++e)
        total += g.weight[e] * static_cast<std::uint64_t>(geometry_.hops(node_of_rank[r], node_of_rank[g.adjncy[e]]));
    return total / 2;
  }

  void finish(const std::string& name, std::vector<int> node_of_rank) {
    if (context_.refinement.rank_swap_passes > 0)
      refine_rank_swaps(g_, geometry_, node_of_rank, context_.refinement.rank_swap_passes);
    const std::uint64_t cost = node_hop_bytes(node_of_rank);
    candidates_.push_back({name, assign_slots(g_, node_of_rank, machine_, allocation_, context_.within_node), cost});
    stage("candidate " + name + ": hop-bytes " + std::to_string(cost));
  }

  // Slots per node when every allocated node has the same number, else 0.
  std::size_t uniform_slots() const {
    const std::size_t per_node = allocation_.slots(0).size();
    for (std::size_t k = 0; k < allocation_.size(); ++k)
      if (allocation_.slots(k).size() != per_node) return 0;
    return per_node;
  }

  // The boxes of whole nodes the ranks fill exactly.
  std::vector<NodeBox> boxes() const {
    const std::size_t per_node = uniform_slots();
    if (per_node == 0 || graph_.ranks % per_node != 0 || graph_.ranks > allocation_.total_slots()) return {};
    return node_boxes(allocation_, geometry_, graph_.ranks / per_node, per_node);
  }

  // Cartesian layouts on every box; true when the graph is a grid that fits.
  bool cartesian(const std::vector<NodeBox>& all) {
    if (all.empty()) return false;
    // The grid in rank order, or else found in the edges and renumbered.
    std::vector<GridShape> shapes = grid_shapes(g_);
    std::optional<RecoveredGrid> found;
    UndirectedGraph renumbered;
    if (shapes.empty()) {
      found = recover_grid(g_);
      if (!found) {
        stage("not a grid");
        return false;
      }
      stage("found a grid in the graph's edges");
      renumbered = renumber(g_, found->position_of_rank);
      shapes = grid_shapes(renumbered);
    }
    const UndirectedGraph& grid = found ? renumbered : g_;
    // Candidates come best-estimated first; scoring each costs a pass over
    // the edges, so big graphs score fewer, and several boxes fewer each.
    const std::size_t per_node = uniform_slots();
    const std::size_t edges = g_.xadj[g_.n];
    const std::size_t budget = std::clamp<std::size_t>((std::size_t{1} << 26) / std::max<std::size_t>(edges, 1), 2, 64);
    const std::size_t per_box = std::max<std::size_t>(2, budget / all.size());
    // Layouts are scored in grid order (hop-bytes do not depend on the
    // numbering), where a renumbered graph's neighbours are near in memory.
    std::vector<int> best;
    std::uint64_t best_cost = 0;
    for (const NodeBox& box : all)
      for (auto& layout : cartesian_candidates(grid, shapes, box, per_node, per_box)) {
        const std::uint64_t c = node_hop_bytes(grid, layout);
        if (best.empty() || c < best_cost) best = std::move(layout), best_cost = c;
      }
    if (best.empty()) {
      stage("a grid, but no layout of it fits the allocation");
      return false;
    }
    if (found) {
      std::vector<int> node_of_rank(g_.n);
      for (std::uint32_t r = 0; r < g_.n; ++r) node_of_rank[r] = best[found->position_of_rank[r]];
      best = std::move(node_of_rank);
    }
    finish("Cartesian", std::move(best));
    return true;
  }

  // Where the partition pipelines put ranks. With fewer ranks than slots,
  // which nodes to fill is part of the mapping: the most compact set around
  // the allocation's centre, block's nodes (the allocation's first), and
  // the box of whole nodes with the least mean distance.
  std::vector<NodeChoice> node_choices(const std::vector<std::uint32_t>& compact,
                                       const std::vector<NodeBox>& all) const {
    std::vector<NodeChoice> choices{{"", compact}};
    if (graph_.ranks >= allocation_.total_slots() || allocation_.size() > kLargeAllocation) return choices;
    std::vector<std::uint32_t> first(allocation_.size(), 0);
    std::size_t left = graph_.ranks;
    for (std::size_t k = 0; k < allocation_.size() && left > 0; ++k) {
      first[k] = static_cast<std::uint32_t>(std::min(left, allocation_.slots(k).size()));
      left -= first[k];
    }
    auto add = [&](const std::string& name, std::vector<std::uint32_t> per_node) {
      for (const NodeChoice& c : choices)
        if (c.per_node == per_node) return;
      choices.push_back({name, std::move(per_node)});
    };
    add(" on block's nodes", std::move(first));
    const NodeBox* tightest = nullptr;
    double tightest_mean = 0;
    for (const NodeBox& box : all) {
      double mean = 0;  // mean hops between two nodes of the box
      for (int d = 0; d < box.net.num_dims(); ++d) {
        const int n = box.net.dims[d];
        double sum = 0;
        for (int a = 0; a < n; ++a)
          for (int b = 0; b < n; ++b) sum += box.net.hops_1d(d, a, b);
        mean += sum / (static_cast<double>(n) * n);
      }
      if (!tightest || mean < tightest_mean) tightest = &box, tightest_mean = mean;
    }
    if (tightest) {
      std::vector<std::uint32_t> per_node(allocation_.size(), 0);
      for (int k : tightest->node_at) per_node[k] = static_cast<std::uint32_t>(uniform_slots());
      add(" on a box of nodes", std::move(per_node));
    }
    return choices;
  }

  // Graphs this large (edges, both directions) run one trial only.
  static constexpr std::uint64_t kTrialBudget = std::uint64_t{1} << 24;

  void partition_onto(const NodeChoice& choice) {
    std::vector<int> used;             // allocation positions that take ranks
    std::vector<std::uint32_t> sizes;  // ranks each takes
    for (int k = 0; k < static_cast<int>(choice.per_node.size()); ++k)
      if (choice.per_node[k] > 0) used.push_back(k), sizes.push_back(choice.per_node[k]);
    // Thousands of nodes: one METIS call per node part, and placement starts
    // that look at all nodes, are too slow; the hierarchy and local swaps are not.
    const bool large = used.size() > kLargeAllocation;
    const auto& p = context_.partition;
    const std::uint64_t edges = std::max<std::uint64_t>(1, g_.xadj[g_.n]);
    const int trials = static_cast<int>(std::clamp<std::uint64_t>(kTrialBudget / edges, 1, std::max(1, p.trials)));
    for (int t = 0; t < trials; ++t) {
      const std::uint64_t seed = context_.seed + static_cast<std::uint64_t>(t);
      const std::string trial = trials > 1 ? " (seed " + std::to_string(seed) + ")" : "";
      auto place = [&](const std::string& name, const std::vector<int>& part, bool identity_is_meaningful) {
        place_parts(name + choice.name + trial, part, used, sizes, large, identity_is_meaningful);
      };
      if (large && (p.metis_kway || p.recursive_bisection))
        place("hierarchy", hierarchy_partition(g_, sizes, used, geometry_, context_, seed), true);
      else if (p.recursive_bisection && used.size() > 1)
        place("recursive bisection", partition_recursive_bisection(g_, sizes, used, geometry_, seed), true);
      if (!large && (p.metis_kway || used.size() == 1))
        place("METIS k-way", partition_metis_kway(g_, sizes, seed, p.metis_cuts), false);
      if (p.scotch && used.size() > 1) place("Scotch", partition_scotch(g_, sizes, used, geometry_, seed), true);
    }
  }

  // From a partition into parts (part p cut for used node p): each enabled
  // placement start, improved by swaps; the best, then link-load swaps. The
  // partitioner's own order (part p on node p) is a start when it means
  // something, or when nothing else is enabled.
  void place_parts(const std::string& name, const std::vector<int>& part, const std::vector<int>& used,
                   const std::vector<std::uint32_t>& sizes, bool large, bool identity_is_meaningful) {
    stage("partitioned " + name);
    const bool greedy = context_.placement.greedy && !large;
    const bool cuthill_mckee = context_.placement.cuthill_mckee && !large;
    const PartGraph q = make_part_graph(g_, part, static_cast<int>(used.size()));
    std::vector<std::vector<int>> starts;
    if (identity_is_meaningful || (!greedy && !cuthill_mckee)) {
      std::vector<int> identity(used.size());
      std::iota(identity.begin(), identity.end(), 0);
      starts.push_back(std::move(identity));
    }
    if (greedy) starts.push_back(place_greedy(q, sizes, used, geometry_));
    if (cuthill_mckee) starts.push_back(place_cuthill_mckee(q, sizes, used, geometry_));
    std::vector<int> best;
    std::uint64_t best_cost = 0;
    for (auto& slot : starts) {
      refine_placement(q, sizes, used, geometry_, slot, context_.placement.swap_passes);
      if (starts.size() == 1) {  // nothing to compare it with
        best = std::move(slot);
        break;
      }
      const std::uint64_t c = placement_hop_bytes(q, slot, used, geometry_);
      stage("placement start of " + name + " after swaps: hop-bytes " + std::to_string(c));
      if (best.empty() || c < best_cost) best = slot, best_cost = c;
    }
    if (!large && context_.placement.swap_passes > 0) {
      refine_link_load(graph_, part, q, sizes, used, geometry_, best, context_.placement.swap_passes);
      stage("link-load swaps of " + name + ": hop-bytes " + std::to_string(placement_hop_bytes(q, best, used, geometry_)));
    }
    std::vector<int> node_of_rank(graph_.ranks);
    for (std::uint32_t r = 0; r < graph_.ranks; ++r) node_of_rank[r] = used[best[part[r]]];
    finish(name, std::move(node_of_rank));
  }

  MapResult choose() const {
    std::uint64_t least = UINT64_MAX;
    for (const Candidate& c : candidates_) least = std::min(least, c.hop_bytes);
    // Ties on hop-bytes are broken on the full scores.
    const Candidate* best = nullptr;
    std::tuple<std::uint64_t, std::uint64_t> best_rest{};
    std::size_t tied = 0;
    for (const Candidate& c : candidates_) tied += c.hop_bytes == least;
    for (const Candidate& c : candidates_) {
      if (c.hop_bytes != least) continue;
      if (tied == 1) {
        best = &c;
        break;
      }
      const Metrics m = evaluate(graph_, machine_, allocation_, c.mapping);
      stage("scored " + c.name + ": hop-bytes " + std::to_string(m.hop_bytes) + ", max link " +
            std::to_string(m.max_link_bytes) + ", cross-socket " + std::to_string(m.cross_socket_bytes));
      const std::tuple<std::uint64_t, std::uint64_t> rest{m.max_link_bytes, m.cross_socket_bytes};
      if (!best || rest < best_rest) best = &c, best_rest = rest;
    }
    MapResult result{best->mapping, best->name, ""};
    if (best->name == "block") {
      const Candidate* runner = nullptr;
      for (const Candidate& c : candidates_)
        if (c.name != "block" && (!runner || c.hop_bytes < runner->hop_bytes)) runner = &c;
      result.why = runner ? "the engine's best (" + runner->name + ") had " + std::to_string(runner->hop_bytes) +
                                " hop-bytes against block's " + std::to_string(best->hop_bytes) +
                                (runner->hop_bytes == best->hop_bytes ? " and no better link load or socket split" : "")
                          : "no other candidate";
    }
    return result;
  }

  const Graph& graph_;
  const Machine& machine_;
  const Allocation& allocation_;
  const Context& context_;
  const StageCallback& on_stage_;
  const NodeGeometry geometry_;
  UndirectedGraph g_;
  std::vector<Candidate> candidates_;
};

}  // namespace

MapResult map_explained(const Graph& graph, const Machine& machine, const Allocation& allocation,
                        const Context& context, const StageCallback& on_stage) {
  return Engine(graph, machine, allocation, context, on_stage).run();
}

Mapping map(const Graph& graph, const Machine& machine, const Allocation& allocation, const Context& context,
            const StageCallback& on_stage) {
  return map_explained(graph, machine, allocation, context, on_stage).mapping;
}

}  // namespace rankmap
