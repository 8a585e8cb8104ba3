#include "map/refine/cable_recut.hpp"

#include <algorithm>
#include <utility>

namespace rankmap::detail {
namespace {

// Ranks a node offers toward another per step: the ones that lean most
// (as link_rank_refine.cpp's leaning()). Nodes of 8 ranks offer all.
constexpr std::size_t kLeaning = 8;
// Steps a swapped rank is held still. With 6, the searches of #84 and
// #110 of bench/dragonfly.py left their first local minimum and reached a
// peak under Mt-KaHyPar's (bench/RESULTS.md, issue 54, eleventh session).
constexpr int kTenure = 6;
// What the walk pays for cost (recut_cables()). A walk held within the
// allowance left #110's no swap after 3 steps and lowered nothing. On the
// 68 instances of bench/dragonfly.py, the busiest link was behind the best
// peer on 3 at a geometric 0.863 of it with 1.0, on 3 at 0.864 with 0.5
// (bench/RESULTS.md, issue 54, eleventh session).
constexpr double kCostPrice = 1.0;

// What the split scores: the most loaded cable of the pool's nodes (the
// larger way), then the cost.
struct CableScore {
  std::uint64_t peak = 0;
  long long cost = 0;
  bool operator<(const CableScore& o) const { return peak != o.peak ? peak < o.peak : cost < o.cost; }
};

class CableSearch {
 public:
  CableSearch(CablePool& pool, std::uint64_t& work)
      : p_(pool), work_(work), out_(static_cast<std::size_t>(pool.nodes), 0), in_(out_) {
    for (std::uint32_t i = 0; i < p_.node.size(); ++i) {
      const int at = p_.node[i];
      out_[at] += p_.away_out[i], in_[at] += p_.away_in[i];
      cost_ += away_cost(i, at);
      for (std::uint64_t e = p_.offsets[i]; e < p_.offsets[i + 1]; ++e) {
        const int y = p_.node[p_.other[e]];
        if (y != at) out_[at] += p_.out_bytes[e], in_[at] += p_.in_bytes[e];
        cost_ += hops(at, y) * static_cast<long long>(p_.out_bytes[e] + p_.in_bytes[e]);
      }
      work_ += p_.offsets[i + 1] - p_.offsets[i];
    }
  }

  // The cost counts an edge between pool ranks from both ends.
  CableScore score() const {
    CableScore s{.peak = 0, .cost = cost_};
    for (std::size_t k = 0; k < out_.size(); ++k) s.peak = std::max({s.peak, out_[k], in_[k]});
    return s;
  }

  // The node whose cable carries the most (the lowest of ties).
  int hottest() const {
    int hot = 0;
    for (int k = 1; k < p_.nodes; ++k)
      if (std::max(out_[k], in_[k]) > std::max(out_[hot], in_[hot])) hot = k;
    return hot;
  }

  // Rank i to node `to`: an edge to a rank on another node crosses both
  // nodes' cables, out of one and into the other.
  void move(std::uint32_t i, int to) {
    const int from = p_.node[i];
    out_[from] -= p_.away_out[i], in_[from] -= p_.away_in[i];
    out_[to] += p_.away_out[i], in_[to] += p_.away_in[i];
    cost_ += away_cost(i, to) - away_cost(i, from);
    for (std::uint64_t e = p_.offsets[i]; e < p_.offsets[i + 1]; ++e) {
      const int y = p_.node[p_.other[e]];
      const std::uint64_t there = p_.out_bytes[e], back = p_.in_bytes[e];
      if (y != from) out_[from] -= there, in_[from] -= back, in_[y] -= there, out_[y] -= back;
      if (y != to) out_[to] += there, in_[to] += back, in_[y] += there, out_[y] += back;
      cost_ += 2 * (hops(to, y) - hops(from, y)) * static_cast<long long>(there + back);  // both ends' lists
    }
    p_.node[i] = to;
    work_ += p_.offsets[i + 1] - p_.offsets[i];
  }

  void swap(std::uint32_t a, std::uint32_t b) {
    const int x = p_.node[a], y = p_.node[b];
    move(a, y);
    move(b, x);
  }

  // The kLeaning ranks of node `from` with the most bytes toward node
  // `toward` less those with their own node's.
  std::vector<std::uint32_t> leaning(int from, int toward) const {
    std::vector<std::pair<long long, std::uint32_t>> lean;  // (-lean, rank): ascending is most first
    for (std::uint32_t i = 0; i < p_.node.size(); ++i) {
      if (p_.node[i] != from) continue;
      long long by = 0;
      for (std::uint64_t e = p_.offsets[i]; e < p_.offsets[i + 1]; ++e) {
        const int y = p_.node[p_.other[e]];
        const auto both = static_cast<long long>(p_.out_bytes[e] + p_.in_bytes[e]);
        by += y == toward ? both : y == from ? -both : 0;
      }
      work_ += p_.offsets[i + 1] - p_.offsets[i];
      lean.emplace_back(-by, i);
    }
    const std::size_t keep = std::min(lean.size(), kLeaning);
    std::partial_sort(lean.begin(), lean.begin() + static_cast<std::ptrdiff_t>(keep), lean.end());
    std::vector<std::uint32_t> ranks;
    for (std::size_t k = 0; k < keep; ++k) ranks.push_back(lean[k].second);
    return ranks;
  }

 private:
  long long away_cost(std::uint32_t i, int k) const {
    return p_.away_cost[static_cast<std::size_t>(i) * static_cast<std::size_t>(p_.nodes) + static_cast<std::size_t>(k)];
  }
  long long hops(int k, int m) const {
    return p_.hops[static_cast<std::size_t>(k) * static_cast<std::size_t>(p_.nodes) + static_cast<std::size_t>(m)];
  }

  CablePool& p_;
  std::uint64_t& work_;
  std::vector<std::uint64_t> out_, in_;
  long long cost_ = 0;
};

}  // namespace

bool recut_cables(CablePool& pool, long long allowed, int steps, std::uint64_t& work, std::uint64_t stop) {
  CableSearch search(pool, work);
  const CableScore start = search.score();
  CableScore best = start;
  std::vector<int> best_node = pool.node;
  std::vector<int> held_until(pool.node.size(), -1);
  // The walk may pass the allowance (only splits within it are kept), but
  // each unit of cost it adds weighs as much as kCostPrice / allowed of the
  // starting peak: the whole allowance as much as the peak itself.
  const double price = allowed > 0 ? kCostPrice * static_cast<double>(start.peak) / static_cast<double>(allowed) : 0;
  for (int step = 0; step < steps && work <= stop; ++step) {
    const int hot = search.hottest();
    bool found = false;
    CableScore chosen;
    double chosen_value = 0;
    std::uint32_t a = 0, b = 0;
    for (int q = 0; q < pool.nodes; ++q) {
      if (q == hot) continue;
      const std::vector<std::uint32_t> mine = search.leaning(hot, q), theirs = search.leaning(q, hot);
      for (const std::uint32_t i : mine)
        for (const std::uint32_t j : theirs) {
          search.swap(i, j);
          const CableScore s = search.score();
          search.swap(i, j);
          // A held rank moves only to a split better than any yet.
          const bool held = held_until[i] >= step || held_until[j] >= step;
          const double value =
              static_cast<double>(s.peak) + price * static_cast<double>(std::max(0LL, s.cost - start.cost));
          const bool fits = s.cost - start.cost <= allowed;
          if ((held && !(fits && s < best)) || (found && !(value < chosen_value))) continue;
          found = true, chosen = s, chosen_value = value, a = i, b = j;
        }
    }
    if (!found) break;
    search.swap(a, b);
    held_until[a] = held_until[b] = step + kTenure;
    if (chosen.cost - start.cost <= allowed && chosen < best) best = chosen, best_node = pool.node;
  }
  pool.node = std::move(best_node);
  return best.peak < start.peak;
}

}  // namespace rankmap::detail
