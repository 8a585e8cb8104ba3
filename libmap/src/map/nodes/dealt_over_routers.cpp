// Each dragonfly group's ranks dealt over its routers (engine.hpp).
#include <algorithm>
#include <numeric>
#include <tuple>

#include "map/engine.hpp"

namespace rankmap::detail {

std::vector<int> dealt_over_routers(const std::vector<int>& node_of_rank, const NodeGeometry& geometry) {
  const Network& net = geometry.network();
  const auto per_router = static_cast<std::size_t>(net.dragonfly.nodes);
  const std::size_t per_group = net.num_coords() / static_cast<std::size_t>(net.dragonfly.groups);
  const auto ranks = static_cast<std::uint32_t>(node_of_rank.size());
  std::vector<std::uint32_t> room(static_cast<std::size_t>(geometry.size()), 0);
  for (const int node : node_of_rank) ++room[static_cast<std::size_t>(node)];
  // The used nodes, group by group, each group's in dealing order: the
  // first node of every router, then the second, and so on, so that
  // consecutive ranks land on different routers.
  const auto key = [&](int node) {
    const std::size_t c = geometry.coord_index(node);
    return std::make_tuple(geometry.group_of(node), c % per_router, c % per_group / per_router, node);
  };
  std::vector<int> nodes;
  for (int node = 0; node < geometry.size(); ++node)
    if (room[static_cast<std::size_t>(node)] > 0) nodes.push_back(node);
  std::sort(nodes.begin(), nodes.end(), [&](int a, int b) { return key(a) < key(b); });
  // The ranks in the base's order: group, node, rank. Ranks that shared a
  // node there (most of one sub-communicator, where the base packs them)
  // are dealt to nodes of different routers.
  std::vector<std::uint32_t> order(ranks);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const int x = node_of_rank[a], y = node_of_rank[b];
    return std::make_pair(geometry.group_of(x), x) < std::make_pair(geometry.group_of(y), y);
  });
  std::vector<int> dealt(ranks, -1);
  std::size_t next = 0;  // into order
  for (std::size_t first = 0; first < nodes.size();) {
    std::size_t last = first;  // the group's nodes: [first, last)
    while (last < nodes.size() && geometry.group_of(nodes[last]) == geometry.group_of(nodes[first])) ++last;
    // In rounds: each node with room left takes the next rank, in the
    // dealing order; a round drops the nodes it filled. Every node ends
    // with the ranks it had in the base.
    std::vector<int> open(nodes.begin() + static_cast<std::ptrdiff_t>(first),
                          nodes.begin() + static_cast<std::ptrdiff_t>(last));
    while (!open.empty()) {
      std::size_t kept = 0;
      for (const int node : open) {
        dealt[order[next++]] = node;
        if (--room[static_cast<std::size_t>(node)] > 0) open[kept++] = node;
      }
      open.resize(kept);
    }
    first = last;
  }
  return dealt;
}

}  // namespace rankmap::detail
