// Pairwise Fiduccia-Mattheyses with exact sizes (pairwise_fm.hpp).
//
// On a pair of parts: the vertex of most gain moves, from the side over
// its size when the sizes differ, so that they alternate between equal
// and one apart; moves that lose are allowed, and the pass keeps its best
// prefix that leaves both parts their sizes. That climbs out of the local
// minima where single swaps stop. Passes repeat while they gain.
//
// Why: METIS with exact sizes left a held-out geometric graph's cut into a
// dragonfly's 3 groups at 12.4-19.0 MB, where Mt-KaHyPar's was 8.4 MB;
// METIS into the groups at once, 8 tries, and then these passes reached
// 6.7-8.7 MB (bench/RESULTS.md, issue 54, fourth session).
#include "partition/pairwise_fm.hpp"

#include <algorithm>
#include <map>
#include <queue>
#include <utility>

namespace rankmap::detail {
namespace {

// The moves a pass tries past its best before it stops: enough to cross a
// ridge of a few dozen losing moves, few enough that a pass costs about
// its first sweep.
constexpr std::size_t kPatience = 64;

class PairPasses {
 public:
  PairPasses(const UndirectedGraph& g, std::vector<int>& part, std::uint64_t budget)
      : g_(g), part_(part), gain_(g.n), locked_(g.n), budget_(budget) {
    for (std::uint32_t v = 0; v < g.n; ++v) of_part_[part[v]].push_back(v);
  }

  // Passes on parts a and b until one gains nothing; the weight saved.
  std::uint64_t refine(int a, int b) {
    std::uint64_t saved = 0;
    while (spent_ < budget_) {
      const long long pass = one_pass(a, b);
      if (pass <= 0) break;
      saved += static_cast<std::uint64_t>(pass);
    }
    return saved;
  }

  bool spent() const { return spent_ >= budget_; }

 private:
  using Entry = std::pair<long long, std::uint32_t>;  // gain, vertex
  // Most gain first, then the lower vertex.
  struct Before {
    bool operator()(const Entry& x, const Entry& y) const {
      return x.first != y.first ? x.first < y.first : x.second > y.second;
    }
  };
  using Heap = std::priority_queue<Entry, std::vector<Entry>, Before>;

  long long one_pass(int a, int b) {
    std::vector<std::uint32_t>& in_a = of_part_[a];
    std::vector<std::uint32_t>& in_b = of_part_[b];
    std::vector<std::uint32_t> members(in_a);
    members.insert(members.end(), in_b.begin(), in_b.end());
    Heap heap[2];  // [0]: vertices in a, [1]: in b
    for (std::uint32_t v : members) {
      const int own = part_[v], other = own == a ? b : a;
      long long gain = 0;
      for (std::uint64_t e = g_.xadj[v]; e < g_.xadj[v + 1]; ++e) {
        const int at = part_[g_.adjncy[e]];
        if (at == other) gain += static_cast<long long>(g_.weight[e]);
        if (at == own) gain -= static_cast<long long>(g_.weight[e]);
      }
      spent_ += g_.xadj[v + 1] - g_.xadj[v];
      locked_[v] = 0;
      gain_[v] = gain;
      heap[own == a ? 0 : 1].emplace(gain, v);
    }
    std::vector<std::uint32_t> moved;
    long long sum = 0, best = 0;
    std::size_t best_at = 0;
    int excess_a = 0;  // vertices a holds above its size
    while (moved.size() < best_at + kPatience && spent_ < budget_) {
      drop_stale(heap[0]);
      drop_stale(heap[1]);
      int side = excess_a > 0 ? 0 : 1;
      if (excess_a == 0)
        side = heap[1].empty() || (!heap[0].empty() && !Before()(heap[0].top(), heap[1].top())) ? 0 : 1;
      if (heap[side].empty()) break;
      const std::uint32_t v = heap[side].top().second;
      heap[side].pop();
      const int from = side == 0 ? a : b, to = side == 0 ? b : a;
      locked_[v] = 1;
      sum += gain_[v];
      part_[v] = to;
      moved.push_back(v);
      excess_a += side == 0 ? -1 : 1;
      for (std::uint64_t e = g_.xadj[v]; e < g_.xadj[v + 1]; ++e) {
        const std::uint32_t u = g_.adjncy[e];
        if (locked_[u] || (part_[u] != a && part_[u] != b)) continue;
        const long long twice = 2 * static_cast<long long>(g_.weight[e]);
        gain_[u] += part_[u] == from ? twice : -twice;
        heap[part_[u] == a ? 0 : 1].emplace(gain_[u], u);
      }
      spent_ += g_.xadj[v + 1] - g_.xadj[v];
      if (excess_a == 0 && sum > best) best = sum, best_at = moved.size();
    }
    for (std::size_t i = moved.size(); i > best_at; --i) {
      const std::uint32_t v = moved[i - 1];
      part_[v] = part_[v] == a ? b : a;
    }
    if (best_at > 0) {
      std::sort(members.begin(), members.end());
      in_a.clear(), in_b.clear();
      for (std::uint32_t v : members) (part_[v] == a ? in_a : in_b).push_back(v);
    }
    return best;
  }

  // Pops the entries of vertices moved, or whose gain changed since.
  void drop_stale(Heap& h) const {
    while (!h.empty() && (locked_[h.top().second] || gain_[h.top().second] != h.top().first)) h.pop();
  }

  const UndirectedGraph& g_;
  std::vector<int>& part_;
  std::vector<long long> gain_;
  std::vector<char> locked_;
  std::map<int, std::vector<std::uint32_t>> of_part_;  // each part's vertices
  std::uint64_t budget_;
  std::uint64_t spent_ = 0;
};

}  // namespace

std::uint64_t cut_weight(const UndirectedGraph& g, const std::vector<int>& part) {
  std::uint64_t cut = 0;
  for (std::uint32_t v = 0; v < g.n; ++v)
    for (std::uint64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e)
      if (v < g.adjncy[e] && part[v] != part[g.adjncy[e]]) cut += g.weight[e];
  return cut;
}

std::uint64_t refine_cut_pairwise(const UndirectedGraph& g, std::vector<int>& part, std::uint64_t budget, int rounds) {
  PairPasses passes(g, part, budget);
  std::uint64_t saved = 0;
  for (int round = 0; round < rounds && !passes.spent(); ++round) {
    // The pairs that share traffic, the heaviest first (then in order).
    std::map<std::pair<int, int>, std::uint64_t> between;
    for (std::uint32_t v = 0; v < g.n; ++v)
      for (std::uint64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e)
        if (part[v] < part[g.adjncy[e]]) between[{part[v], part[g.adjncy[e]]}] += g.weight[e];
    std::vector<std::pair<std::uint64_t, std::pair<int, int>>> order;
    for (const auto& [pair, weight] : between) order.emplace_back(weight, pair);
    std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    std::uint64_t round_saved = 0;
    for (const auto& [weight, pair] : order) {
      if (passes.spent()) break;
      round_saved += passes.refine(pair.first, pair.second);
    }
    if (round_saved == 0) break;
    saved += round_saved;
  }
  return saved;
}

std::uint64_t perturb_and_refine(const UndirectedGraph& g, std::vector<int>& part, Rng& rng, int rounds,
                                 std::uint32_t moves, std::uint64_t budget) {
  if (rounds <= 0 || g.n < 2) return 0;  // no pass over the edges when there is nothing to search
  std::uint64_t best_cut = cut_weight(g, part);
  const std::uint64_t start = best_cut;
  std::map<int, std::vector<std::uint32_t>> members;  // each part's vertices, in order
  for (std::uint32_t v = 0; v < g.n; ++v) members[part[v]].push_back(v);
  if (members.size() < 2) return 0;
  for (int round = 0; round < rounds && best_cut > 0; ++round) {
    std::vector<int> trial = part;
    std::map<int, std::vector<std::uint32_t>> in = members;
    // Draws are bounded so that a cut of few boundary vertices still ends.
    for (std::uint32_t made = 0, draws = 0; made < moves && draws < 16 * moves; ++draws) {
      const auto v = static_cast<std::uint32_t>(rng.below(g.n));
      const std::uint64_t degree = g.xadj[v + 1] - g.xadj[v];
      if (degree == 0) continue;
      const std::uint32_t u = g.adjncy[g.xadj[v] + rng.below(degree)];
      const int a = trial[v], b = trial[u];
      if (a == b) continue;
      std::vector<std::uint32_t>& of_b = in[b];
      const std::size_t at = rng.below(of_b.size());
      const std::uint32_t w = of_b[at];
      std::vector<std::uint32_t>& of_a = in[a];
      *std::find(of_a.begin(), of_a.end(), v) = w;
      of_b[at] = v;
      trial[v] = b, trial[w] = a;
      ++made;
    }
    refine_cut_pairwise(g, trial, budget);
    const std::uint64_t cut = cut_weight(g, trial);
    if (cut < best_cut) {
      best_cut = cut, part = std::move(trial);
      members.clear();
      for (std::uint32_t v = 0; v < g.n; ++v) members[part[v]].push_back(v);
    }
  }
  return start - best_cut;
}

}  // namespace rankmap::detail
