// Which nodes the partition pipelines fill, and how many ranks each. With
// fewer ranks than slots, the shares are part of the mapping, for every
// input: the most compact set around the allocation's centre, block's
// nodes (the allocation's first), the box of whole nodes with the least
// mean distance, every node evenly, and the shares the graph's own parts
// take (METIS with each node's slots as its ceiling), and with fewer ranks
// than nodes a lattice of every other node on a torus, nodes strided over
// the network on a tree or a dragonfly. Each is scored on the
// same objective as every other candidate. Mt-KaHyPar, given slots as
// ceilings, put 16 ranks on each of 4 VMs of 20 cores where block's
// 20/20/20/4 cost 1.57x its hop-bytes (LAMMPS peptide, 64 ranks).
#include <algorithm>
#include <functional>
#include <numeric>

#include "machine/node_geometry.hpp"
#include "map/stages.hpp"
#include "partition/metis.hpp"

namespace rankmap::detail {
namespace {

// Mean hops between two nodes of a box.
double mean_distance(const NodeBox& box) {
  double mean = 0;
  for (int d = 0; d < box.net.num_dims(); ++d) {
    const int n = box.net.dims[d];
    double sum = 0;
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) sum += box.net.hops_1d(d, a, b);
    mean += sum / (static_cast<double>(n) * n);
  }
  return mean;
}

NodeSet node_set(std::string name, const std::vector<std::uint32_t>& per_node) {
  NodeSet set{std::move(name), {}, {}};
  for (int k = 0; k < static_cast<int>(per_node.size()); ++k)
    if (per_node[k] > 0) set.used.push_back(k), set.sizes.push_back(per_node[k]);
  return set;
}

// Node k's share is what METIS puts in part k with the node's slots as the
// part's ceiling. Where every node has the same slots, which node gets
// which share is placement's business: the largest shares go to the nodes
// nearest the allocation's centre, as the compact set's ranks do.
std::vector<std::uint32_t> graph_shares(const Problem& problem) {
  const Allocation& allocation = problem.allocation;
  std::vector<std::uint32_t> capacity(allocation.size());
  for (std::size_t k = 0; k < allocation.size(); ++k)
    capacity[k] = static_cast<std::uint32_t>(allocation.slots(k).size());
  std::vector<std::uint32_t> share =
      metis_shares(problem.g, capacity, problem.context.seed, std::max(1, problem.context.partition.metis_cuts));
  if (std::adjacent_find(capacity.begin(), capacity.end(), std::not_equal_to<>()) != capacity.end()) return share;
  std::stable_sort(share.begin(), share.end(), std::greater<>());
  std::vector<std::uint32_t> counts(allocation.size(), 0);
  const std::vector<int> order = nodes_from_centre(allocation, problem.geometry);
  for (std::size_t i = 0; i < order.size(); ++i) counts[static_cast<std::size_t>(order[i])] = share[i];
  return counts;
}

// `ranks` spread evenly over `nodes` (allocation positions), the first ones
// taking one more where they do not divide; empty where a node has too few
// slots for its share.
std::vector<std::uint32_t> evenly_over(const Allocation& allocation, const std::vector<std::size_t>& nodes,
                                       std::size_t ranks) {
  std::vector<std::uint32_t> counts(allocation.size(), 0);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::size_t k = nodes[i];
    counts[k] = static_cast<std::uint32_t>(ranks / nodes.size() + (i < ranks % nodes.size()));
    if (counts[k] > allocation.slots(k).size()) return {};
  }
  return counts;
}

}  // namespace

// Fewer ranks than nodes on a torus or mesh: the ranks spread evenly over
// the nodes whose coordinates are all odd in every dimension of 4 or more
// (every other node along it), where they fit. A bandwidth-bound job
// then has more links across each cut than on a box of as many nodes (a
// 4x4x4 lattice in an 8x8x8 torus: the whole 8x8 cross-section against a
// box's 4x4). On a 64-rank 2D FFT on an 8x8x8 torus at one rank a node, Scotch's
// mapping on such a lattice, with 1.5x the hop-bytes, was 1.9 % faster in
// SMPI than the 64 nodes of a slab, and the flow model agrees (360 us
// against 386: bench/RESULTS.md, issue 55, sixth session).
std::vector<std::uint32_t> lattice_shares(const NodeGeometry& geometry, const Allocation& allocation,
                                          std::size_t ranks) {
  const Network& net = geometry.network();
  if (net.is_tree() || net.is_dragonfly() || ranks >= allocation.size()) return {};
  bool strided = false;
  for (int d = 0; d < net.num_dims(); ++d) strided = strided || net.dims[d] >= 4;
  if (!strided) return {};
  std::vector<std::size_t> lattice;
  for (std::size_t k = 0; k < allocation.size(); ++k) {
    bool on = true;
    for (int d = 0; d < net.num_dims() && on; ++d)
      on = net.dims[d] < 4 || geometry.coord(static_cast<int>(k), d) % 2 == 1;
    if (on) lattice.push_back(k);
  }
  if (lattice.empty() || lattice.size() >= allocation.size()) return {};
  return evenly_over(allocation, lattice, ranks);
}

// Fewer ranks than nodes on a tree or a dragonfly: the ranks on nodes
// strided evenly over the network's order (leaves or routers, then
// groups), so that every switch's cables carry a share; spread over every
// node, they take the first nodes, whole leaves and groups. On HPCC 64 at
// 2 a node on the bench's Dragonfly+, Scotch's best, one a node on 15 of
// the 16 leaves, was predicted 13 % faster than every candidate rankmap
// had (bench/RESULTS.md, issue 54, twelfth session).
std::vector<std::uint32_t> strided_shares(const NodeGeometry& geometry, const Allocation& allocation,
                                          std::size_t ranks) {
  const Network& net = geometry.network();
  if (!(net.is_tree() || net.is_dragonfly()) || ranks == 0 || ranks >= allocation.size()) return {};
  std::vector<std::size_t> order(allocation.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return geometry.coord_index(static_cast<int>(a)) < geometry.coord_index(static_cast<int>(b));
  });
  std::vector<std::size_t> strided;
  for (std::size_t i = 0; i < ranks; ++i) strided.push_back(order[i * order.size() / ranks]);
  return evenly_over(allocation, strided, ranks);
}

std::vector<NodeSet> node_sets(const Problem& problem, const std::vector<std::uint32_t>& compact,
                               const std::vector<NodeBox>& boxes, std::size_t per_node) {
  const Allocation& allocation = problem.allocation;
  const std::size_t ranks = problem.g.n;
  std::vector<std::vector<std::uint32_t>> chosen{compact};
  std::vector<std::string> names{""};
  std::vector<char> one_trial{0};
  if (ranks < allocation.total_slots() && allocation.size() <= kLargeAllocation) {
    auto add = [&](const std::string& name, std::vector<std::uint32_t> counts, bool once = false) {
      for (const auto& c : chosen)
        if (c == counts) return;
      chosen.push_back(std::move(counts));
      names.push_back(name);
      one_trial.push_back(once ? 1 : 0);
    };
    std::vector<std::uint32_t> first(allocation.size(), 0);
    std::size_t left = ranks;
    for (std::size_t k = 0; k < allocation.size() && left > 0; ++k) {
      first[k] = static_cast<std::uint32_t>(std::min(left, allocation.slots(k).size()));
      left -= first[k];
    }
    add(" on block's nodes", std::move(first));
    const NodeBox* tightest = nullptr;
    double tightest_mean = 0;
    for (const NodeBox& box : boxes) {
      const double mean = mean_distance(box);
      if (!tightest || mean < tightest_mean) tightest = &box, tightest_mean = mean;
    }
    if (tightest) {
      std::vector<std::uint32_t> counts(allocation.size(), 0);
      for (int k : tightest->node_at) counts[k] = static_cast<std::uint32_t>(per_node);
      add(" on a box of nodes", std::move(counts));
    }
    std::vector<std::size_t> every_node(allocation.size());
    std::iota(every_node.begin(), every_node.end(), 0);
    if (std::vector<std::uint32_t> counts = evenly_over(allocation, every_node, ranks); !counts.empty())
      add(" spread over every node", std::move(counts), true);
    add(" on the graph's shares", graph_shares(problem), true);
    const std::vector<std::uint32_t> lattice = lattice_shares(problem.geometry, allocation, ranks);
    if (!lattice.empty()) add(" spread over a lattice of nodes", lattice, true);
    const std::vector<std::uint32_t> strided = strided_shares(problem.geometry, allocation, ranks);
    if (!strided.empty()) add(" strided over the network", strided, true);
  }
  std::vector<NodeSet> sets;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    sets.push_back(node_set(names[i], chosen[i]));
    sets.back().one_trial = one_trial[i] != 0;
  }
  return sets;
}

}  // namespace rankmap::detail
