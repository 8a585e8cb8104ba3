// The adaptive reading of a dragonfly's link loads (metrics.hpp). Each
// directed link between groups carries only its own group pair's bytes
// on minimal routes, so the pair's bytes are the sum over its cables.
#include <algorithm>

#include "rankmap/metrics.hpp"

namespace rankmap {

std::vector<double> adaptive_link_bytes(const Network& net, const std::vector<std::uint64_t>& minimal) {
  std::vector<double> loads(minimal.begin(), minimal.end());
  if (!net.is_dragonfly() || loads.empty()) return loads;
  const DragonflyShape& s = net.dragonfly;
  const detail::DragonflyLinks l(net);
  const std::size_t groups = l.groups, cables = l.cables;
  const double kept = groups > 2 ? s.adaptive_minimal_share : 1.0;
  // Across group `g` from the router holding cable j from group `from`
  // to the one holding cable j to group `to`: a dragonfly's green then
  // black hop; a Dragonfly+ spine's down to a leaf and up to the other.
  auto cross = [&](std::size_t from, std::size_t g, std::size_t to, std::size_t j, double bytes) {
    const std::size_t x = detail::dragonfly_cable_router(s, g, from, j),
                      y = detail::dragonfly_cable_router(s, g, to, j);
    if (x == y) return;
    if (s.plus()) {
      const std::size_t leaf = g * l.per_group + (x + y) % l.per_group;
      loads[l.spine_link(leaf, x, true)] += bytes;
      loads[l.spine_link(leaf, y, false)] += bytes;
      return;
    }
    detail::for_each_dragonfly_local_link(l, g, x, y, false, [&](std::size_t link) { loads[link] += bytes; });
  };
  // The links between groups are filled again from each pair's bytes: a
  // link carries its own pair's share and the detours of other pairs.
  std::fill(loads.begin() + static_cast<std::ptrdiff_t>(l.global), loads.end(), 0.0);
  for (std::size_t g = 0; g < groups; ++g)
    for (std::size_t h = 0; h < groups; ++h) {
      if (g == h) continue;
      double pair = 0;
      for (std::size_t j = 0; j < cables; ++j) pair += static_cast<double>(minimal[l.global_link(g, h, j)]);
      if (pair == 0) continue;
      for (std::size_t j = 0; j < cables; ++j)
        loads[l.global_link(g, h, j)] += kept * pair / static_cast<double>(cables);
      if (kept == 1.0) continue;
      const double each = (1 - kept) * pair / static_cast<double>((groups - 2) * cables);
      for (std::size_t i = 0; i < groups; ++i) {
        if (i == g || i == h) continue;
        for (std::size_t j = 0; j < cables; ++j) {
          loads[l.global_link(g, i, j)] += each;
          loads[l.global_link(i, h, j)] += each;
          cross(g, i, h, j, each);
        }
      }
    }
  return loads;
}

}  // namespace rankmap
