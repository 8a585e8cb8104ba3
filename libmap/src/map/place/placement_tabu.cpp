// Which node each part goes to, as a quadratic assignment problem: the
// swaps of placement.cpp stop at the first placement no single swap
// improves, and on bench/peers.py's irregular and geometric graphs that
// was 4-15 % more hop-bytes than a search that may climb out of it reaches
// (bench/RESULTS.md, issue 33). This is Taillard's robust tabu search
// (Parallel Computing 17, 1991): every iteration makes the best swap of two
// parts of equal size, even a worse one, except swaps that would put both
// parts back where they were within the last ~n iterations (unless that
// beats the best placement seen); the best placement seen is kept. The
// gain of every swap is kept in a table and updated in O(1) per entry
// after each move, so an iteration costs O(n^2).
//
// Small allocations only (a table of n^2 gains); seeded by the context, on
// one thread: the same placement for any number of threads.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "map/stages.hpp"
#include "rankmap/random.hpp"

namespace rankmap::detail {
namespace {

constexpr int kMaxParts = 256;
// Work (gain-table entries visited) for one search, and iterations per
// part. On bench/out/peers' graphs 32 a part reached what 64 did but on
// HPCC one a node (0.2 % short) in 0.1-0.2 s less a command; 16 lost 4.6 %
// on the partial geometric instance. 2^26 caps 128 nodes at 4,096
// iterations; 2^24 lost 1.4 % there.
constexpr std::uint64_t kWork = std::uint64_t{1} << 26;
constexpr int kIterationsPerPart = 32;

class TabuSearch {
 public:
  TabuSearch(const PartGraph& q, const std::vector<std::uint32_t>& sizes, const std::vector<int>& used,
             const NodeGeometry& geo, std::vector<int>& slot, std::uint64_t seed)
      : n_(q.parts), sizes_(sizes), slot_(slot), rng_(seed) {
    flow_.assign(static_cast<std::size_t>(n_) * n_, 0);
    for (int p = 0; p < n_; ++p)
      for (std::uint64_t e = q.xadj[p]; e < q.xadj[p + 1]; ++e)
        if (q.adjncy[e] != p) flow_[index(p, q.adjncy[e])] = static_cast<long long>(q.weight[e]);
    hops_.assign(static_cast<std::size_t>(n_) * n_, 0);
    for (int j = 0; j < n_; ++j)
      for (int k = 0; k < n_; ++k) hops_[index(j, k)] = geo.hops(used[j], used[k]);
    gain_.assign(static_cast<std::size_t>(n_) * n_, 0);
    for (int r = 0; r < n_; ++r)
      for (int s = r + 1; s < n_; ++s) gain_[index(r, s)] = delta(r, s);
    tabu_.assign(static_cast<std::size_t>(n_) * n_, -1);
  }

  // The best placement seen, into `slot`; true when it is better than the start.
  bool run() {
    const std::uint64_t per_iteration = static_cast<std::uint64_t>(n_) * n_;
    const int iterations = static_cast<int>(
        std::min<std::uint64_t>(kIterationsPerPart * static_cast<std::uint64_t>(n_), kWork / per_iteration));
    std::vector<int> best = slot_;
    long long cost = 0, best_cost = 0;  // relative to the start
    for (int it = 0; it < iterations; ++it) {
      int r = -1, s = -1;
      long long move = std::numeric_limits<long long>::max();
      for (int a = 0; a < n_; ++a)
        for (int b = a + 1; b < n_; ++b) {
          if (sizes_[a] != sizes_[b]) continue;
          const long long d = gain_[index(a, b)];
          const bool tabu = tabu_[index(a, slot_[b])] >= it && tabu_[index(b, slot_[a])] >= it;
          if ((!tabu || cost + d < best_cost) && d < move) move = d, r = a, s = b;
        }
      if (r < 0) break;
      const int tenure = static_cast<int>(9 * n_ / 10 + rng_.below(static_cast<std::uint64_t>(n_ / 5 + 1)));
      tabu_[index(r, slot_[r])] = it + tenure;
      tabu_[index(s, slot_[s])] = it + tenure;
      swap(r, s);
      cost += move;
      if (cost < best_cost) best_cost = cost, best = slot_;
    }
    slot_ = std::move(best);
    return best_cost < 0;
  }

 private:
  std::size_t index(int a, int b) const { return static_cast<std::size_t>(a) * n_ + b; }
  long long f(int a, int b) const { return flow_[index(a, b)]; }
  long long d(int j, int k) const { return hops_[index(j, k)]; }

  // Hop-bytes added by swapping parts r and s where they sit now.
  long long delta(int r, int s) const {
    long long sum = 0;
    const int x = slot_[r], y = slot_[s];
    for (int k = 0; k < n_; ++k)
      if (k != r && k != s) sum += (f(r, k) - f(s, k)) * (d(y, slot_[k]) - d(x, slot_[k]));
    return sum;
  }

  // Swaps r and s, then brings every gain up to date: pairs apart from
  // them by Taillard's O(1) correction, pairs with one of them anew.
  void swap(int r, int s) {
    const int a = slot_[r], b = slot_[s];
    for (int i = 0; i < n_; ++i) {
      if (i == r || i == s) continue;
      for (int j = i + 1; j < n_; ++j) {
        if (j == r || j == s) continue;
        gain_[index(i, j)] += (f(i, r) - f(j, r) - f(i, s) + f(j, s)) *
                              (d(slot_[j], b) - d(slot_[i], b) - d(slot_[j], a) + d(slot_[i], a));
      }
    }
    std::swap(slot_[r], slot_[s]);
    for (int k = 0; k < n_; ++k) {
      for (int m : {r, s})
        if (k != m) gain_[index(std::min(k, m), std::max(k, m))] = delta(std::min(k, m), std::max(k, m));
    }
  }

  int n_;
  const std::vector<std::uint32_t>& sizes_;
  std::vector<int>& slot_;
  Rng rng_;
  std::vector<long long> flow_, gain_;
  std::vector<int> hops_, tabu_;
};

class TabuPlacement : public PlacementRefiner {
 public:
  std::string name() const override { return "tabu search"; }
  bool applies(const NodeSet& nodes) const override {
    return nodes.used.size() >= 3 && nodes.used.size() <= static_cast<std::size_t>(kMaxParts);
  }
  // Not on trees: two nodes are 2 or 4 hops apart on a fat tree, and on
  // those of bench/peers.py the search found nothing in 0.9-1.8 s more a
  // command.
  void refine(const Problem& problem, const NodeSet& nodes, const std::vector<int>&, const PartGraph& q,
              std::vector<int>& slot_of_part) const override {
    if (problem.geometry.network().is_tree()) return;
    tabu_placement(q, nodes.sizes, nodes.used, problem.geometry, slot_of_part, problem.context.seed);
  }
};

}  // namespace

bool tabu_placement(const PartGraph& q, const std::vector<std::uint32_t>& sizes, const std::vector<int>& used,
                    const NodeGeometry& geo, std::vector<int>& slot, std::uint64_t seed) {
  if (q.parts < 3) return false;
  return TabuSearch(q, sizes, used, geo, slot, seed).run();
}

std::unique_ptr<PlacementRefiner> make_tabu_placement() { return std::make_unique<TabuPlacement>(); }

}  // namespace rankmap::detail
