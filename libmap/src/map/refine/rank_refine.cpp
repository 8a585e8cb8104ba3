// Swaps ranks between nodes while hop-bytes falls. Partitions are made per
// part; this repairs what a part-level view cannot see, such as a rank on a
// block's edge that talks more to the next node than to its own. A rank is
// offered to the three nodes it would gain most on, and the swaps run on
// clusters of a node's ranks before single ranks (RankSwaps, below).
#include <algorithm>

#include "core/workers.hpp"
#include "map/refine/rank_swap_search.hpp"
#include "map/stages.hpp"

namespace rankmap::detail {

int refine_rank_swaps(const UndirectedGraph& g, const NodeGeometry& geo, std::vector<int>& node_of_rank, int passes,
                      std::uint64_t scan_from, std::size_t at_once) {
  std::vector<std::vector<std::uint32_t>> on(geo.size());
  for (std::uint32_t r = 0; r < g.n; ++r) on[node_of_rank[r]].push_back(r);
  const RankSwapSearch finder(g, geo, node_of_rank, on);
  using Found = RankSwapSearch::Found;
  // On millions of ranks each pass starts with a test of every rank for a
  // gain (RankSwapSearch::may_gain), a range a thread (a grid's layout of
  // Fugaku's 7.6M ranks gave a serial pass of 13 s, nearly all of it ranks
  // without a gain). The pass then skips a rank without one unless a swap
  // has since moved it or a partner: its gains depend on nothing else, so
  // the swaps are the plain pass's.
  const bool scan = g.xadj[g.n] >= scan_from;
  std::vector<char> gainful(scan ? g.n : 0), moved_near(scan ? g.n : 0);
  auto moved = [&](std::uint32_t v) {
    moved_near[v] = 1;
    for (std::uint64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) moved_near[g.adjncy[e]] = 1;
  };

  // On large graphs the pass visits the ranks in a spread order, a rank
  // from each of kSwapStrands equal stretches of the numbering in turn, and
  // the searches of a round of `at_once` ranks run first, in parallel,
  // against the mapping as the round found it. The pass then goes through
  // the round in order and takes a search's result only if no swap made
  // since the round began touched what it read: r's partners (then r is
  // marked) or the ranks on a node it searched, whose costs and places it
  // compared (then the node is marked); else it searches again. So the
  // swaps are those of the plain pass in that order, for any number of
  // threads and any `at_once`. In index order nearly every search went
  // stale (ranks numbered close sit close: 107K of 1.48M held on a 2M-rank
  // irregular graph); a stretch apart, 99.9 % held.
  const std::uint64_t strands = scan ? kSwapStrands : 1;
  const std::uint64_t stride = (g.n + strands - 1) / strands;
  auto rank_at = [&](std::uint64_t p) { return static_cast<std::uint32_t>(p % strands * stride + p / strands); };
  const std::uint64_t round = at_once ? at_once : strands;
  std::vector<char> rank_touched(round > 1 ? g.n : 0), node_touched(round > 1 ? geo.size() : 0);
  std::vector<std::uint32_t> touched_ranks;
  std::vector<int> touched_nodes;
  auto touch = [&](std::uint32_t v) {
    if (!rank_touched[v]) rank_touched[v] = 1, touched_ranks.push_back(v);
    const int at = node_of_rank[v];
    if (!node_touched[at]) node_touched[at] = 1, touched_nodes.push_back(at);
  };
  auto untouched = [&](std::uint32_t r, const Found& f) {
    if (rank_touched[r]) return false;
    for (std::size_t k = 0; k < f.searched; ++k)
      if (node_touched[f.targets[k]]) return false;
    return true;
  };
  std::vector<RankSwapSearch::Scratch> scratch(ranges_for(round, round > 1), finder.scratch());
  std::vector<std::uint32_t> early;  // the round's ranks searched in parallel
  std::vector<Found> found;
  auto wanted = [&](std::uint32_t r) { return !scan || gainful[r] || moved_near[r]; };
  int pass = 0;
  for (; pass < passes; ++pass) {
    bool improved = false;
    if (scan) {
      std::fill(moved_near.begin(), moved_near.end(), 0);
      for_each_range(g.n, ranges_for(g.n, true), [&](std::size_t, std::size_t begin, std::size_t end) {
        SparseAccumulator<std::uint32_t> nodes(geo.size());
        for (std::size_t r = begin; r < end; ++r) gainful[r] = finder.may_gain(static_cast<std::uint32_t>(r), nodes);
      });
    }
    for (std::uint64_t first = 0; first < stride * strands; first += round) {
      const std::uint64_t last = std::min(stride * strands, first + round);
      early.clear();
      if (round > 1) {
        for (std::uint64_t p = first; p < last; ++p)
          if (rank_at(p) < g.n && wanted(rank_at(p))) early.push_back(rank_at(p));
        found.resize(early.size());
        for_each_range(early.size(), std::min(scratch.size(), early.size()),
                       [&](std::size_t range, std::size_t begin, std::size_t end) {
                         for (std::size_t k = begin; k < end; ++k) found[k] = finder.search(early[k], scratch[range]);
                       });
      }
      std::size_t k = 0;  // the next of `early`
      for (std::uint64_t p = first; p < last; ++p) {
        const std::uint32_t r = rank_at(p);
        if (r >= g.n) continue;
        const bool searched = k < early.size() && early[k] == r;
        k += searched;
        if (!wanted(r)) continue;
        const Found f = searched && untouched(r, found[k - 1]) ? found[k - 1] : finder.search(r, scratch[0]);
        if (!f.swap) continue;
        const int x = node_of_rank[r];
        if (round > 1) {  // the costs of r, s and their partners change
          for (std::uint32_t v : {r, f.s}) {
            touch(v);
            for (std::uint64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) touch(g.adjncy[e]);
          }
        }
        *std::find(on[x].begin(), on[x].end(), r) = f.s;
        on[f.y][f.i] = r;
        node_of_rank[r] = f.y;
        node_of_rank[f.s] = x;
        improved = true;
        if (scan) moved(r), moved(f.s);
      }
      for (std::uint32_t v : touched_ranks) rank_touched[v] = 0;
      for (int at : touched_nodes) node_touched[at] = 0;
      touched_ranks.clear();
      touched_nodes.clear();
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
