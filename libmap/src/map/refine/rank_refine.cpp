// Swaps ranks between nodes while hop-bytes falls. Partitions are made per
// part; this repairs what a part-level view cannot see, such as a rank on a
// block's edge that talks more to the next node than to its own. A rank is
// offered to the three nodes it would gain most on, and the swaps run on
// clusters of a node's ranks before single ranks (RankSwaps, below).
#include <algorithm>

#include "core/sparse_accumulator.hpp"
#include "core/workers.hpp"
#include "map/stages.hpp"

namespace rankmap::detail {
namespace {

// Nodes searched for a partner, per rank: the ones it gains most on.
constexpr std::size_t kTargets = 3;

}  // namespace

int refine_rank_swaps(const UndirectedGraph& g, const NodeGeometry& geo, std::vector<int>& node_of_rank, int passes,
                      std::uint64_t scan_from) {
  std::vector<std::vector<std::uint32_t>> on(geo.size());
  for (std::uint32_t r = 0; r < g.n; ++r) on[node_of_rank[r]].push_back(r);
  // Cost of rank v if it sat on node x: its bytes times hops to each partner.
  auto cost = [&](std::uint32_t v, int x) {
    std::uint64_t c = 0;
    for (std::uint64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e)
      c += g.weight[e] * static_cast<std::uint64_t>(geo.hops(x, node_of_rank[g.adjncy[e]]));
    return c;
  };
  // Whether some node r's partners sit on would cost r less than its own
  // does: only then is a partner looked for.
  auto may_gain = [&](std::uint32_t r, SparseAccumulator<std::uint32_t>& nodes) {
    const int x = node_of_rank[r];
    for (std::uint64_t e = g.xadj[r]; e < g.xadj[r + 1]; ++e)
      nodes.add(static_cast<std::uint32_t>(node_of_rank[g.adjncy[e]]), 1);
    const std::uint64_t r_x = cost(r, x);
    bool gain = false;
    for (std::uint32_t t : nodes.keys())
      gain = gain || (static_cast<int>(t) != x && cost(r, static_cast<int>(t)) < r_x);
    nodes.clear();
    return gain;
  };
  // On millions of ranks each pass starts with that test for every rank,
  // a range a thread (a grid's layout of Fugaku's 7.6M ranks gave a serial
  // pass of 13 s, nearly all of it ranks without a gain). The pass then
  // skips a rank without one unless a swap has since moved it or a
  // partner: its gains depend on nothing else, so the swaps are the plain
  // pass's.
  const bool scan = g.xadj[g.n] >= scan_from;
  std::vector<char> gainful(scan ? g.n : 0), moved_near(scan ? g.n : 0);
  auto moved = [&](std::uint32_t v) {
    moved_near[v] = 1;
    for (std::uint64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) moved_near[g.adjncy[e]] = 1;
  };
  SparseAccumulator<std::uint64_t> conn(geo.size());  // r's bytes to each node
  std::vector<std::pair<long long, int>> gains;       // (r's gain on node, node)
  int pass = 0;
  for (; pass < passes; ++pass) {
    bool improved = false;
    if (scan) {
      std::fill(moved_near.begin(), moved_near.end(), 0);
      for_each_range(g.n, ranges_for(g.n, true), [&](std::size_t, std::size_t begin, std::size_t end) {
        SparseAccumulator<std::uint32_t> nodes(geo.size());
        for (std::size_t r = begin; r < end; ++r) gainful[r] = may_gain(static_cast<std::uint32_t>(r), nodes);
      });
    }
    for (std::uint32_t r = 0; r < g.n; ++r) {
      if (scan && !gainful[r] && !moved_near[r]) continue;
      const int x = node_of_rank[r];
      // The other node r talks to most is where a swap can help.
      for (std::uint64_t e = g.xadj[r]; e < g.xadj[r + 1]; ++e)
        conn.add(static_cast<std::uint32_t>(node_of_rank[g.adjncy[e]]), g.weight[e]);
      // Nodes r would gain most on, given where its partners are: each
      // is searched for the partner whose swap lowers hop-bytes most.
      const long long r_x = static_cast<long long>(cost(r, x));
      gains.clear();
      for (std::uint32_t node : conn.keys()) {
        const int t = static_cast<int>(node);
        if (t == x) continue;
        const long long r_t = static_cast<long long>(cost(r, t));
        // Only swaps that r gains from are looked for: scanning a node's
        // ranks for every boundary rank made a pass over a million ranks
        // take 20 s, and a partner that gains more finds the swap from its
        // own side.
        if (r_t < r_x) gains.emplace_back(r_x - r_t, t);
      }
      conn.clear();
      const std::size_t keep = std::min(gains.size(), kTargets);
      std::partial_sort(
          gains.begin(), gains.begin() + static_cast<std::ptrdiff_t>(keep), gains.end(),
          [](const auto& u, const auto& v) { return u.first != v.first ? u.first > v.first : u.second < v.second; });
      long long best = 0;
      int best_y = -1;
      std::size_t best_i = 0;
      for (std::size_t k = 0; k < keep; ++k) {
        const int y = gains[k].second;
        const long long r_y = r_x - gains[k].first, hops_xy = geo.hops(x, y);
        for (std::size_t i = 0; i < on[y].size(); ++i) {
          const std::uint32_t s = on[y][i];
          std::uint64_t w_rs = 0;
          for (std::uint64_t e = g.xadj[s]; e < g.xadj[s + 1]; ++e)
            if (g.adjncy[e] == r) w_rs = g.weight[e];
          const long long delta = r_y + static_cast<long long>(cost(s, x)) - r_x - static_cast<long long>(cost(s, y)) +
                                  2 * static_cast<long long>(w_rs) * hops_xy;
          if (delta < best) best = delta, best_y = y, best_i = i;
        }
      }
      if (best < 0) {
        const int y = best_y;
        const std::uint32_t s = on[y][best_i];
        auto& here = on[x];
        *std::find(here.begin(), here.end(), r) = s;
        on[y][best_i] = r;
        node_of_rank[r] = y;
        node_of_rank[s] = x;
        improved = true;
        if (scan) moved(r), moved(s);
      }
    }
    if (!improved) break;
  }
  return pass;
}

namespace {

constexpr std::uint32_t kLargestCluster = 16;
constexpr std::uint64_t kCycles = 2;
constexpr std::uint64_t kClusterBudget = std::uint64_t{1} << 22;  // edge ends times cycles

// Swaps of single ranks stop where moving a whole cluster would help: a
// clique of four ranks split 2:2 between nodes gains nothing from any one
// swap. So the swaps run first on clusters of 16, 8, 4 and 2 ranks of one
// node (heavy-edge matching inside each node; equal clusters keep node
// sizes exact), then on ranks, as multilevel partitioners refine on every
// level.
class RankSwaps : public RankRefiner {
 public:
  explicit RankSwaps(int passes) : passes_(passes) {}
  bool refine(const Problem& problem, std::vector<int>& node_of_rank) const override {
    bool moved = false;  // a pass that swapped (refine_rank_swaps counts those)
    const UndirectedGraph& g = problem.g;
    std::vector<std::uint32_t> count(static_cast<std::size_t>(problem.geometry.size()), 0);
    for (int node : node_of_rank) ++count[static_cast<std::size_t>(node)];
    auto divides = [&](std::uint32_t c) {
      return std::all_of(count.begin(), count.end(), [&](std::uint32_t k) { return k % c == 0; });
    };
    std::uint32_t largest = 1;
    while (largest < kLargestCluster && divides(largest * 2)) largest *= 2;
    // Each cycle contracts the graph four times: two cycles on small
    // graphs, one on hundreds of thousands of ranks, none on millions (two
    // took 50 s on a million-rank stencil's grid layout and gained nothing).
    const std::uint64_t ends = std::max<std::uint64_t>(1, g.xadj[g.n]);
    const int cycles = static_cast<int>(std::min<std::uint64_t>(kCycles, kClusterBudget / ends));
    std::vector<int> coarse;
    for (int cycle = 0; cycle < cycles; ++cycle) {
      for (std::uint32_t group = largest; group >= 2; group /= 2) {
        const Contraction c =
            contract_matched(g, group, problem.context.seed + static_cast<std::uint64_t>(cycle), &node_of_rank);
        coarse.assign(c.graph.n, 0);
        for (std::uint32_t r = 0; r < g.n; ++r) coarse[c.coarse_of[r]] = node_of_rank[r];
        moved = refine_rank_swaps(c.graph, problem.geometry, coarse, passes_) > 0 || moved;
        for (std::uint32_t r = 0; r < g.n; ++r) node_of_rank[r] = coarse[c.coarse_of[r]];
      }
    }
    return refine_rank_swaps(g, problem.geometry, node_of_rank, passes_) > 0 || moved;
  }

 private:
  int passes_;
};

}  // namespace

std::unique_ptr<RankRefiner> make_rank_swaps(int passes) { return std::make_unique<RankSwaps>(passes); }

}  // namespace rankmap::detail
