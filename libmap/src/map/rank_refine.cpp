// Swaps single ranks between nodes while hop-bytes falls. Partitions are
// made per part; this repairs what a part-level view cannot see, such as a
// rank on a block's edge that talks more to the next node than to its own.
#include <algorithm>

#include "map/stages.hpp"

namespace rankmap::detail {

int refine_rank_swaps(const UndirectedGraph& g, const NodeGeometry& geo, std::vector<int>& node_of_rank, int passes) {
  std::vector<std::vector<std::uint32_t>> on(geo.size());
  for (std::uint32_t r = 0; r < g.n; ++r) on[node_of_rank[r]].push_back(r);
  // Cost of rank v if it sat on node x: its bytes times hops to each partner.
  auto cost = [&](std::uint32_t v, int x) {
    std::uint64_t c = 0;
    for (std::uint64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e)
      c += g.weight[e] * static_cast<std::uint64_t>(geo.hops(x, node_of_rank[g.adjncy[e]]));
    return c;
  };
  std::vector<std::uint64_t> conn(geo.size(), 0);
  std::vector<int> touched;
  int pass = 0;
  for (; pass < passes; ++pass) {
    bool improved = false;
    for (std::uint32_t r = 0; r < g.n; ++r) {
      const int x = node_of_rank[r];
      // The other node r talks to most is where a swap can help.
      for (std::uint64_t e = g.xadj[r]; e < g.xadj[r + 1]; ++e) {
        const int y = node_of_rank[g.adjncy[e]];
        if (conn[y] == 0) touched.push_back(y);
        conn[y] += g.weight[e];
      }
      int y = -1;
      for (int t : touched)
        if (t != x && (y < 0 || conn[t] > conn[y] || (conn[t] == conn[y] && t < y))) y = t;
      for (int t : touched) conn[t] = 0;
      touched.clear();
      if (y < 0) continue;
      const long long r_x = static_cast<long long>(cost(r, x)), r_y = static_cast<long long>(cost(r, y));
      // Only swaps that r gains from are looked for: scanning y's ranks for
      // every boundary rank made a pass over a million ranks take 20 s, and
      // a partner that gains more finds the swap from its own side.
      if (r_y >= r_x) continue;
      const long long hops_xy = geo.hops(x, y);
      long long best = 0;
      std::size_t best_i = 0;
      for (std::size_t i = 0; i < on[y].size(); ++i) {
        const std::uint32_t s = on[y][i];
        std::uint64_t w_rs = 0;
        for (std::uint64_t e = g.xadj[s]; e < g.xadj[s + 1]; ++e)
          if (g.adjncy[e] == r) w_rs = g.weight[e];
        const long long delta = r_y + static_cast<long long>(cost(s, x)) - r_x - static_cast<long long>(cost(s, y)) +
                                2 * static_cast<long long>(w_rs) * hops_xy;
        if (delta < best) best = delta, best_i = i;
      }
      if (best < 0) {
        const std::uint32_t s = on[y][best_i];
        auto& here = on[x];
        *std::find(here.begin(), here.end(), r) = s;
        on[y][best_i] = r;
        node_of_rank[r] = y;
        node_of_rank[s] = x;
        improved = true;
      }
    }
    if (!improved) break;
  }
  return pass;
}

namespace {

class RankSwaps : public RankRefiner {
 public:
  explicit RankSwaps(int passes) : passes_(passes) {}
  void refine(const Problem& problem, std::vector<int>& node_of_rank) const override {
    refine_rank_swaps(problem.g, problem.geometry, node_of_rank, passes_);
  }

 private:
  int passes_;
};

}  // namespace

std::unique_ptr<RankRefiner> make_rank_swaps(int passes) { return std::make_unique<RankSwaps>(passes); }

}  // namespace rankmap::detail
