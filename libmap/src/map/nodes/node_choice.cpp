// Which nodes the partition pipelines fill. With fewer ranks than slots,
// the choice is part of the mapping: the most compact set around the
// allocation's centre, block's nodes (the allocation's first), the box of
// whole nodes with the least mean distance and, for the flow model to
// weigh, every node evenly.
#include "map/stages.hpp"

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

}  // namespace

std::vector<NodeSet> node_sets(const Allocation& allocation, std::size_t ranks,
                               const std::vector<std::uint32_t>& compact, const std::vector<NodeBox>& boxes,
                               std::size_t per_node, bool spread) {
  std::vector<std::vector<std::uint32_t>> chosen{compact};
  std::vector<std::string> names{""};
  if (ranks < allocation.total_slots() && allocation.size() <= kLargeAllocation) {
    auto add = [&](const std::string& name, std::vector<std::uint32_t> counts) {
      for (const auto& c : chosen)
        if (c == counts) return;
      chosen.push_back(std::move(counts));
      names.push_back(name);
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
    if (spread) {
      std::vector<std::uint32_t> counts(allocation.size(), 0);
      bool fits = true;
      for (std::size_t k = 0; k < allocation.size(); ++k) {
        counts[k] = static_cast<std::uint32_t>(ranks / allocation.size() + (k < ranks % allocation.size()));
        fits = fits && counts[k] <= allocation.slots(k).size();
      }
      if (fits) add(" spread over every node", std::move(counts));
    }
  }
  std::vector<NodeSet> sets;
  for (std::size_t i = 0; i < chosen.size(); ++i) sets.push_back(node_set(names[i], chosen[i]));
  return sets;
}

}  // namespace rankmap::detail
