// One rank's best swap partner (rank_swap_search.hpp).
#include "map/refine/rank_swap_search.hpp"

#include <algorithm>

namespace rankmap::detail {

bool RankSwapSearch::may_gain(std::uint32_t r, SparseAccumulator<std::uint32_t>& nodes) const {
  const int x = node_of_rank_[r];
  for (std::uint64_t e = g_.xadj[r]; e < g_.xadj[r + 1]; ++e)
    nodes.add(static_cast<std::uint32_t>(node_of_rank_[g_.adjncy[e]]), 1);
  const std::uint64_t r_x = cost(r, x);
  bool gain = false;
  for (std::uint32_t t : nodes.keys()) gain = gain || (static_cast<int>(t) != x && cost(r, static_cast<int>(t)) < r_x);
  nodes.clear();
  return gain;
}

RankSwapSearch::Found RankSwapSearch::search(std::uint32_t r, Scratch& scratch) const {
  Found found;
  const int x = node_of_rank_[r];
  // The other node r talks to most is where a swap can help.
  for (std::uint64_t e = g_.xadj[r]; e < g_.xadj[r + 1]; ++e)
    scratch.conn.add(static_cast<std::uint32_t>(node_of_rank_[g_.adjncy[e]]), g_.weight[e]);
  // Nodes r would gain most on, given where its partners are: each is
  // searched for the partner whose swap lowers hop-bytes most.
  const long long r_x = static_cast<long long>(cost(r, x));
  auto& gains = scratch.gains;
  gains.clear();
  for (std::uint32_t node : scratch.conn.keys()) {
    const int t = static_cast<int>(node);
    if (t == x) continue;
    const long long r_t = static_cast<long long>(cost(r, t));
    // Only swaps that r gains from are looked for: scanning a node's ranks
    // for every boundary rank made a pass over a million ranks take 20 s,
    // and a partner that gains more finds the swap from its own side.
    if (r_t < r_x) gains.emplace_back(r_x - r_t, t);
  }
  scratch.conn.clear();
  found.searched = std::min(gains.size(), kTargets);
  std::partial_sort(
      gains.begin(), gains.begin() + static_cast<std::ptrdiff_t>(found.searched), gains.end(),
      [](const auto& u, const auto& v) { return u.first != v.first ? u.first > v.first : u.second < v.second; });
  long long best = 0;
  for (std::size_t k = 0; k < found.searched; ++k) {
    const int y = found.targets[k] = gains[k].second;
    const long long r_y = r_x - gains[k].first, hops_xy = geo_.hops(x, y);
    const std::vector<std::uint32_t>& there = on_[static_cast<std::size_t>(y)];
    for (std::size_t i = 0; i < there.size(); ++i) {
      // s's cost on x and on y, and its bytes with r, in one walk of its
      // edges: these walks are most of the pass.
      const std::uint32_t s = there[i];
      std::uint64_t s_x = 0, s_y = 0, w_rs = 0;
      for (std::uint64_t e = g_.xadj[s]; e < g_.xadj[s + 1]; ++e) {
        const std::uint32_t u = g_.adjncy[e];
        const int at = node_of_rank_[u];
        s_x += g_.weight[e] * static_cast<std::uint64_t>(geo_.hops(x, at));
        s_y += g_.weight[e] * static_cast<std::uint64_t>(geo_.hops(y, at));
        if (u == r) w_rs = g_.weight[e];
      }
      const long long delta = r_y + static_cast<long long>(s_x) - r_x - static_cast<long long>(s_y) +
                              2 * static_cast<long long>(w_rs) * hops_xy;
      if (delta < best) best = delta, found.swap = true, found.y = y, found.s = s, found.i = i;
    }
  }
  return found;
}

}  // namespace rankmap::detail
