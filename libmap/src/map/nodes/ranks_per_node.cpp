// How many ranks each allocated node takes (engine.hpp): where the
// pipelines put ranks before any partition.
#include <algorithm>
#include <numeric>

#include "map/engine.hpp"
#include "rankmap/error.hpp"

namespace rankmap::detail {

std::vector<int> nodes_from_centre(const Allocation& a, const NodeGeometry& geometry) {
  // The centre: the node with the least total distance to the others.
  const int n = static_cast<int>(a.size());
  int centre = 0;
  long best = -1;
  const int sample = std::min(n, 2048);  // large allocations: a strided sample is enough
  for (int c = 0; c < n; c += std::max(1, n / sample)) {
    long total = 0;
    for (int k = 0; k < n; k += std::max(1, n / sample)) total += geometry.hops(c, k);
    if (best < 0 || total < best) best = total, centre = c;
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  // On a dragonfly whole groups first: the centre's, then the next by
  // number. By hops alone, nodes of other groups that sit on the routers
  // holding the cables come as near as the centre's own group, and 1,024
  // nodes of a Frontier-like machine took 74 groups where 8 hold them.
  const Network& net = geometry.network();
  const auto groups = static_cast<std::size_t>(net.is_dragonfly() ? net.dragonfly.groups : 1);
  const std::size_t home = geometry.group_of(centre);
  auto group_rank = [&](int k) { return (geometry.group_of(k) + groups - home) % groups; };
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    const std::size_t gx = group_rank(x), gy = group_rank(y);
    return gx != gy ? gx < gy : geometry.hops(centre, x) < geometry.hops(centre, y);
  });
  return order;
}

std::vector<std::uint32_t> ranks_per_node(const Allocation& a, std::size_t ranks, bool oversubscribe,
                                          const NodeGeometry& geometry) {
  const std::size_t slots = a.total_slots();
  const int n = static_cast<int>(a.size());
  std::vector<std::uint32_t> count(n, 0);
  if (ranks > slots) {
    if (!oversubscribe)
      throw Error(std::to_string(ranks) + " ranks do not fit the " + std::to_string(slots) + " slots of " +
                      std::to_string(n) + " nodes",
                  ErrorKind::fit);
    // Shares in proportion to slots; the remainder goes to the first nodes.
    std::size_t given = 0;
    for (int k = 0; k < n; ++k) given += count[k] = static_cast<std::uint32_t>(ranks * a.slots(k).size() / slots);
    for (int k = 0; given < ranks; k = (k + 1) % n, ++given) ++count[k];
    return count;
  }
  if (ranks == slots) {
    for (int k = 0; k < n; ++k) count[k] = static_cast<std::uint32_t>(a.slots(k).size());
    return count;
  }
  // Fewer ranks than slots: fill the nodes closest to the allocation's
  // centre first.
  const std::vector<int> order = nodes_from_centre(a, geometry);
  std::size_t left = ranks;
  for (int k : order) {
    const auto take = static_cast<std::uint32_t>(std::min<std::size_t>(left, a.slots(k).size()));
    count[k] = take;
    left -= take;
    if (left == 0) break;
  }
  return count;
}

}  // namespace rankmap::detail
