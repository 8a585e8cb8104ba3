// Implementation of rankmap::for_each_link (a template: the hot loop of
// evaluate() and of the mapping engine's swaps).
#pragma once

#include <array>
#include <cstdlib>

#include "rankmap/detail/dragonfly_route.hpp"

namespace rankmap {

// A tree's route: up from a to the lowest switch it shares with b, then
// down to b. Where a switch has parallel uplinks, the destination picks
// one (D-mod-k, the destination-based routing of InfiniBand's fat-tree
// routing engines): at tier t, (b / product of the lower tiers' counts)
// mod the switch's own count of cables, the same pick on the way down.
// On an irregular tree the counts in the product are each level's most
// (its skeleton's), and the modulus each switch's own cables: a switch
// with fewer cables folds the picks onto those it has.
template <class Visit>
void for_each_tree_link(const Network& net, std::size_t a, std::size_t b, Visit&& visit) {
  const int k = net.num_dims();
  std::array<std::size_t, kMaxDims> span{};
  std::size_t s = 1;
  int meet = 0;  // the level where a and b meet, 0 when they are one node
  for (int d = 0; d < k; ++d) {
    span[d] = s;
    const auto n = static_cast<std::size_t>(net.dims[d]);
    if ((a / s) % n != (b / s) % n) meet = d + 1;
    s *= n;
  }
  std::array<std::size_t, kMaxDims> pick{};
  std::size_t spread = 1;
  for (int t = 0; t < meet; ++t) {
    pick[t] = b / spread;
    spread *= static_cast<std::size_t>(t == 0 ? 1 : net.levels[t - 1].uplinks);
  }
  // One walk, instantiated twice so that a regular tree's routes (the hot
  // loop of scores and refinement) ask no per-switch table.
  auto walk = [&](auto cables_up) {
    for (int t = 0; t < meet; ++t) {
      const std::size_t v = a / span[t];
      visit(net.tree_link_id(t, v, static_cast<int>(pick[t] % cables_up(t, v)), false));
    }
    for (int t = meet - 1; t >= 0; --t) {
      const std::size_t v = b / span[t];
      visit(net.tree_link_id(t, v, static_cast<int>(pick[t] % cables_up(t, v)), true));
    }
  };
  if (net.irregular())
    walk([&](int t, std::size_t v) { return static_cast<std::size_t>(net.uplinks_of(t, v)); });
  else
    walk([&](int t, std::size_t) { return static_cast<std::size_t>(t == 0 ? 1 : net.levels[t - 1].uplinks); });
}

template <class Visit>
void for_each_link(const Network& net, std::size_t a, std::size_t b, Visit&& visit) {
  if (net.is_tree()) {
    for_each_tree_link(net, a, b, visit);
    return;
  }
  if (net.is_dragonfly()) {
    detail::for_each_dragonfly_link(net, a, b, visit);
    return;
  }
  const int nd = net.num_dims();
  std::array<int, kMaxDims> ca{}, delta{};
  std::array<std::size_t, kMaxDims> stride{};
  std::size_t s = 1, ra = a, rb = b;
  for (int d = 0; d < nd; ++d) {
    const int n = net.dims[d];
    ca[d] = static_cast<int>(ra % n);
    const int cb = static_cast<int>(rb % n);
    ra /= n;
    rb /= n;
    stride[d] = s;
    s *= static_cast<std::size_t>(n);
    int dlt = cb - ca[d];
    if (net.wrap[d]) {
      // Shorter way round; a tie (half the ring) goes `+`.
      if (dlt < 0) dlt += n;        // now the `+` distance
      if (n - dlt < dlt) dlt -= n;  // `-` strictly shorter
    }
    delta[d] = dlt;
  }
  std::size_t cur = a;
  for (const RouteStep& step : net.routing) {
    const int d = step.dim;
    const int dlt = delta[d];
    if (dlt == 0 || (dlt > 0) != (step.sign > 0)) continue;
    const int n = net.dims[d];
    for (int k = std::abs(dlt); k > 0; --k) {
      visit(net.link_id(cur, d, step.sign));
      int next = ca[d] + step.sign;
      if (next == n) next = 0;
      if (next < 0) next = n - 1;
      cur = cur - static_cast<std::size_t>(ca[d]) * stride[d] + static_cast<std::size_t>(next) * stride[d];
      ca[d] = next;
    }
  }
}

}  // namespace rankmap
