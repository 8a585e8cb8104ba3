// The most loaded link, rank by rank. The part-level link swaps
// (link_refine.cpp) run before the rank swaps, which then lower hop-bytes
// wherever the load lands; and a part is too coarse to move traffic off one
// link. So, last of all: a rank whose traffic crosses a link at the peak is
// swapped with a rank on a node its partners sit on, cheapest in hop-bytes
// first, when the peak falls (or fewer links carry it) and hop-bytes rise by
// at most kPeakRiseBasisPoints of the total in all (on a dragonfly,
// kDragonflyRiseBasisPoints).
// Scotch and the hop-bytes swaps never look at links; a peak a third lower
// is a third less time on the busiest cable for bandwidth-bound traffic.
//
// On a dragonfly, when no single swap lowers the peak, two ranks of the
// node with the most ranks at the peak are offered for two of a partner
// node's: a node's own cable at the peak is often a local optimum for
// single swaps (each rank swapped out takes more of its traffic over the
// cable than it brings back), yet not for two. On #88 of bench/dragonfly.py's
// fourth set, every single swap out of the peak node raised its cable from
// 3.95 MB to at least 4.20 MB; one swap of two for two lowered it to 3.74 MB
// and cut 37 KB fewer bytes between nodes. When no swap of two helps either,
// three ranks rotate over the peak node and two of its partners; and when
// no rotation does, the ranks of the peak node and its partners are split
// again among them (cable_recut.hpp).
//
// Each candidate swap is routed exactly (both ranks' edges, both ways), so
// the refiner keeps to allocations of up to kLargeAllocation nodes and
// graphs of up to kEdgeBudget edges, and stops at a work budget.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <tuple>

#include "map/refine/cable_recut.hpp"
#include "map/refine/trial_loads.hpp"
#include "map/stages.hpp"
#include "rankmap/metrics.hpp"

namespace rankmap::detail {
namespace {

constexpr std::uint64_t kEdgeBudget = std::uint64_t{1} << 22;  // directed edges
// Work (links routed over, edges scanned) per directed edge of the graph,
// and at least: a few tenths of a second (all-to-all rows of 1,024 ranks
// routed 25 million links per candidate and swapped nothing).
constexpr std::uint64_t kWorkPerEdge = 64, kMinWork = std::uint64_t{1} << 20;
constexpr std::size_t kTargets = 4;       // partner nodes tried per rank
constexpr std::size_t kPairRanks = 8;     // ranks a node offers for swaps of two (leaning())
constexpr std::size_t kPairTrials = 256;  // swaps of two tried a round, cheapest in hop-bytes first
constexpr std::uint64_t kRotationWork = std::uint64_t{1} << 21;  // rotate_triples()'s own work
constexpr std::uint64_t kRecutWork = std::uint64_t{1} << 22;     // recut_pool()'s own work
constexpr int kRecutSteps = 64;                                  // recut_cables()'s swaps
using RankPair = std::pair<std::uint32_t, std::uint32_t>;
// Two swaps of ranks, (r, s) then (r2, s2), made in turn.
using SwapPair = std::pair<RankPair, RankPair>;
// On a dragonfly these swaps may give up 1 % of hop-bytes, not
// kPeakRiseBasisPoints: the choice among candidates already counts 1 % of
// hop-bytes as a tie there (map.cpp), and the peak is most often a node's
// own cable, which no part-level stage can lighten. On the 32 instances
// of bench/dragonfly.py, the busiest link behind the best peer on 1
// against 3 (geometric #86: 0.894 against 1.070), hop-bytes still ahead
// on all (bench/RESULTS.md, issue 54, seventh session).
constexpr std::uint64_t kDragonflyRiseBasisPoints = 100;

class RankLinkRefiner {
 public:
  RankLinkRefiner(const Problem& problem, std::vector<int>& node_of_rank)
      : graph_(problem.graph),
        g_(problem.g),
        geo_(problem.geometry),
        node_(node_of_rank),
        loads_(geo_.network().num_links()),
        on_(geo_.size()),
        conn_(geo_.size(), 0) {
    // Incoming edges, for the routes that end at a moved rank.
    in_offsets_.assign(graph_.ranks + 1, 0);
    for (std::uint32_t r = 0; r < graph_.ranks; ++r)
      for (std::uint64_t e = graph_.offsets[r]; e < graph_.offsets[r + 1]; ++e)
        if (counts(r, e)) ++in_offsets_[graph_.targets[e] + 1];
    for (std::uint32_t r = 0; r < graph_.ranks; ++r) in_offsets_[r + 1] += in_offsets_[r];
    in_sources_.resize(in_offsets_.back());
    in_bytes_.resize(in_offsets_.back());
    std::vector<std::uint64_t> fill(in_offsets_.begin(), in_offsets_.end() - 1);
    for (std::uint32_t r = 0; r < graph_.ranks; ++r)
      for (std::uint64_t e = graph_.offsets[r]; e < graph_.offsets[r + 1]; ++e)
        if (counts(r, e)) {
          const std::uint64_t at = fill[graph_.targets[e]]++;
          in_sources_[at] = r;
          in_bytes_[at] = graph_.bytes[e];
        }
    for (std::uint32_t r = 0; r < graph_.ranks; ++r) {
      on_[node_[r]].push_back(r);
      for (std::uint64_t e = graph_.offsets[r]; e < graph_.offsets[r + 1]; ++e)
        if (counts(r, e)) route(node_[r], node_[graph_.targets[e]], static_cast<long long>(graph_.bytes[e]));
    }
    loads_.find_peak();
    // Costs count each edge's hops both ways (pair_hops), and each edge
    // from both ends: the total is four times the hop-bytes.
    std::uint64_t total = 0;
    for (std::uint32_t r = 0; r < g_.n; ++r) total += cost(r, node_[r]);
    const std::uint64_t hop_bytes = total / 4;
    allowed_rise_ = 2 * peak_rise_budget(hop_bytes, geo_.network().is_dragonfly() ? kDragonflyRiseBasisPoints
                                                                                  : kPeakRiseBasisPoints);
  }

  // Rounds: every swap that could lower the peak, cheapest in hop-bytes
  // first, each tried exactly; until a round changes nothing. Then the
  // swaps made after the peak last fell are undone if they cost hop-bytes
  // in all: they only took links off the peak, and paid for a peak no
  // lower (on the 16x16x8 stencil on the 4:1 fat tree, 0.94 % for the
  // same max link). True when a rank moved.
  bool run(int rounds) {
    work_ = 0;
    std::uint64_t lowest = loads_.peak();
    std::size_t keep = 0;  // swaps made when the peak last fell
    for (int round = 0; round < rounds && loads_.peak() > 0 && work_ <= work_budget_; ++round) {
      candidates_.clear();
      const std::vector<char> hot = ranks_at_peak();
      for (std::uint32_t r = 0; r < g_.n; ++r)
        if (hot[r] && work_ <= work_budget_) offer(r);
      std::sort(candidates_.begin(), candidates_.end());
      bool improved = false;
      for (const Swap& c : candidates_) {
        if (work_ > work_budget_) break;
        if (node_[c.r] != c.x || node_[c.s] != c.y) continue;
        const long long rise = swap_rise(c.r, c.s);
        if (rise_ + rise > allowed_rise_) continue;
        if (try_swaps({{c.r, c.s}})) {
          rise_ += rise;
          improved = true;
          made_.push_back({rise, c.r, c.s});
          if (loads_.peak() < lowest) keep = made_.size(), lowest = loads_.peak();
        }
        if (loads_.peak() == 0) break;
      }
      if (!improved && pairs_ && work_ <= work_budget_ && (swap_pairs(hot) || rotate_triples(hot))) {
        improved = true;
        if (loads_.peak() < lowest) keep = made_.size(), lowest = loads_.peak();
      }
      if (!improved) break;
    }
    // On a dragonfly, last: the ranks of the peak node and its partners
    // split again (recut_pool()), until that fails, with a work allowance
    // of its own past the budget, which the rounds above spend mostly.
    if (pairs_) {
      const std::uint64_t stop = work_ + kRecutWork;
      while (work_ <= stop && loads_.peak() > 0 && recut_pool(ranks_at_peak(), stop))
        if (loads_.peak() < lowest) keep = made_.size(), lowest = loads_.peak();
    }
    long long tail = 0;
    for (std::size_t i = keep; i < made_.size(); ++i) tail += made_[i].rise;
    if (tail <= 0) return !made_.empty();
    for (std::size_t i = made_.size(); i > keep; --i) std::swap(node_[made_[i - 1].r], node_[made_[i - 1].s]);
    return keep > 0;
  }

 private:
  bool counts(std::uint32_t r, std::uint64_t e) const { return graph_.targets[e] != r && graph_.bytes[e] != 0; }

  // Adds `bytes` (negative: removes) along the route between two nodes,
  // remembering each link's load before the first change of this trial.
  void route(int from, int to, long long bytes) {
    if (from == to) return;
    for_each_link(geo_.network(), geo_.coord_index(from), geo_.coord_index(to), [&](std::size_t link) {
      ++work_;
      over_ = loads_.add(link, bytes) > loads_.peak() || over_;
    });
  }

  // Routes r's traffic, both ways, as it sits now (sign -1: takes it
  // off), except what it exchanges with the ranks in `skip` (rerouted
  // already). Adding stops once a link rises above the peak (over_): the
  // trial has failed.
  void reroute(std::uint32_t r, long long sign, std::span<const std::uint32_t> skip) {
    const int at = node_[r];
    auto skipped = [&](std::uint32_t t) { return std::find(skip.begin(), skip.end(), t) != skip.end(); };
    for (std::uint64_t e = graph_.offsets[r]; e < graph_.offsets[r + 1] && !over_; ++e)
      if (counts(r, e) && !skipped(graph_.targets[e]))
        route(at, node_[graph_.targets[e]], sign * static_cast<long long>(graph_.bytes[e]));
    for (std::uint64_t e = in_offsets_[r]; e < in_offsets_[r + 1] && !over_; ++e)
      if (!skipped(in_sources_[e])) route(node_[in_sources_[e]], at, sign * static_cast<long long>(in_bytes_[e]));
  }

  // Ranks with traffic over a link at the peak: both ends of every edge
  // between nodes whose route crosses one. Routes are checked once per
  // pair of nodes, not per edge.
  std::vector<char> ranks_at_peak() const {
    std::vector<char> hot(graph_.ranks, 0);
    std::vector<char> pair(static_cast<std::size_t>(geo_.size()), 0);  // 0 unknown, 1 cold, 2 hot
    std::vector<int> seen;
    for (int u = 0; u < geo_.size(); ++u) {
      for (std::uint32_t r : on_[u])
        for (std::uint64_t e = graph_.offsets[r]; e < graph_.offsets[r + 1]; ++e) {
          ++work_;
          const int v = node_[graph_.targets[e]];
          if (v == u || !counts(r, e)) continue;
          if (!pair[v]) {
            bool crosses = false;
            for_each_link(geo_.network(), geo_.coord_index(u), geo_.coord_index(v),
                          [&](std::size_t link) { crosses = crosses || loads_[link] == loads_.peak(), ++work_; });
            pair[v] = crosses ? 2 : 1;
            seen.push_back(v);
          }
          if (pair[v] == 2) hot[r] = hot[graph_.targets[e]] = 1;
        }
      for (int v : seen) pair[v] = 0;
      seen.clear();
    }
    return hot;
  }

  // The hops from node x to y plus those back. A dragonfly's route from x
  // to y may be a hop longer than from y to x (the cable is picked by the
  // destination); elsewhere both ways are the same.
  int pair_hops(int x, int y) const {
    const int there = geo_.hops(x, y);
    return there + (asymmetric_ ? geo_.hops(y, x) : there);
  }

  // Twice the hop-bytes of rank v if it sat on node x (pair_hops).
  long long cost(std::uint32_t v, int x) const {
    work_ += g_.xadj[v + 1] - g_.xadj[v];
    std::uint64_t c = 0;
    for (std::uint64_t e = g_.xadj[v]; e < g_.xadj[v + 1]; ++e)
      c += g_.weight[e] * static_cast<std::uint64_t>(pair_hops(x, node_[g_.adjncy[e]]));
    return static_cast<long long>(c);
  }

  // Twice the hop-bytes added by swapping r and s, exactly: what their
  // partners' routes gain or lose both ways, the edge between them (its
  // length is the same swapped) counted back.
  long long swap_rise(std::uint32_t r, std::uint32_t s) const {
    const int x = node_[r], y = node_[s];
    std::uint64_t w_rs = 0;
    for (std::uint64_t e = g_.xadj[s]; e < g_.xadj[s + 1]; ++e)
      if (g_.adjncy[e] == r) w_rs = g_.weight[e];
    work_ += g_.xadj[s + 1] - g_.xadj[s];
    return cost(r, y) + cost(s, x) - cost(r, x) - cost(s, y) + 2 * static_cast<long long>(w_rs) * pair_hops(x, y);
  }

  // Candidate swaps of r with every rank on the kTargets nodes it sends
  // most to, within the hop-bytes still allowed. The cheapest in hop-bytes
  // (a rank with the same partners) often brings its traffic back over the
  // same link, so all are offered and tried in order of cost.
  void offer(std::uint32_t r) {
    const int x = node_[r];
    for (const int y : partner_nodes(std::span(&r, 1), x)) {
      for (std::uint32_t s : on_[y]) {
        const long long rise = swap_rise(r, s);
        if (rise_ + rise <= allowed_rise_) candidates_.push_back({rise, r, s, x, y});
      }
    }
  }

  // The kTargets nodes other than x that `ranks` exchange the most bytes
  // with, most first (the lower node on ties).
  std::vector<int> partner_nodes(std::span<const std::uint32_t> ranks, int x) {
    std::vector<std::pair<std::uint64_t, int>> targets;  // (bytes with the node, node)
    for (std::uint32_t r : ranks)
      for (std::uint64_t e = g_.xadj[r]; e < g_.xadj[r + 1]; ++e) {
        const int y = node_[g_.adjncy[e]];
        if (y == x) continue;
        if (conn_[y] == 0) touched_nodes_.push_back(y);
        conn_[y] += g_.weight[e];
      }
    for (int y : touched_nodes_) targets.emplace_back(conn_[y], y), conn_[y] = 0;
    touched_nodes_.clear();
    const std::size_t keep = std::min(targets.size(), kTargets);
    std::partial_sort(
        targets.begin(), targets.begin() + static_cast<std::ptrdiff_t>(keep), targets.end(),
        [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    std::vector<int> nodes;
    for (std::size_t k = 0; k < keep; ++k) nodes.push_back(targets[k].second);
    return nodes;
  }

  // Two ranks of the node with the most ranks at the peak (one of them at
  // it) for two of each of the kTargets nodes it exchanges most with,
  // cheapest in hop-bytes first; the first that lowers the peak is kept.
  bool swap_pairs(const std::vector<char>& hot) {
    const int x = hottest_node(hot);
    if (x < 0) return false;
    struct Pair {
      long long rise, first;  // both swaps', the first's (pair_rise)
      std::uint32_t r1, r2, s1, s2;
      bool operator<(const Pair& o) const {
        return std::tie(rise, r1, r2, s1, s2) < std::tie(o.rise, o.r1, o.r2, o.s1, o.s2);
      }
      SwapPair swaps() const { return {{r1, s1}, {r2, s2}}; }
    };
    std::vector<Pair> pairs;
    for (const int y : partner_nodes(on_[x], x)) {
      if (work_ > work_budget_) break;
      const std::vector<std::uint32_t> mine = leaning(x, y), theirs = leaning(y, x);
      for (std::size_t i = 0; i < mine.size(); ++i)
        for (std::size_t j = i + 1; j < mine.size(); ++j) {
          if (!hot[mine[i]] && !hot[mine[j]]) continue;
          for (std::size_t a = 0; a < theirs.size(); ++a)
            for (std::size_t b = a + 1; b < theirs.size(); ++b) {
              const auto [first, second] = pair_rise(mine[i], theirs[a], mine[j], theirs[b]);
              if (rise_ + first + second <= allowed_rise_)
                pairs.push_back({first + second, first, mine[i], mine[j], theirs[a], theirs[b]});
            }
        }
    }
    return keep_first_that_lowers(pairs, work_budget_);
  }

  // A rank of the node with the most ranks at the peak to one of its
  // kTargets partner nodes, one of that node's to another partner, and one
  // of that one's back: cheapest in hop-bytes first, the first that lowers
  // the peak is kept. Where two nodes exchange much, every swap of one or
  // two between them lifts one cable or the other over the peak (#96 of
  // bench/dragonfly.py: of all 12,870 splits of the two nodes' ranks, the
  // one it had was the least); a third node takes the difference.
  bool rotate_triples(const std::vector<char>& hot) {
    const int x = hottest_node(hot);
    if (x < 0) return false;
    struct Rotation {
      long long rise, first;  // both swaps', the first's
      std::uint32_t r, s, t;  // r to y, s to z, t to x
      bool operator<(const Rotation& o) const { return std::tie(rise, r, s, t) < std::tie(o.rise, o.r, o.s, o.t); }
      // r with t (r to z, t to x), then r with s (r to y, s to z).
      SwapPair swaps() const { return {{r, t}, {r, s}}; }
    };
    std::vector<Rotation> rotations;
    // Its own work allowance past the refiner's budget, which the rounds
    // before it have mostly spent: up to 6,144 rotations priced and 256
    // routed. And half the hop-bytes allowance: at all of it, on #101 of
    // bench/dragonfly.py's sixth set, rotations lifted two candidates out
    // of the 1 % of hop-bytes within which map() compares their peaks, and
    // the one kept had a peak 8 % higher (bench/RESULTS.md, issue 54,
    // tenth session).
    const std::uint64_t stop = work_ + kRotationWork;
    const std::vector<int> partners = partner_nodes(on_[x], x);
    for (const int y : partners)
      for (const int z : partners) {
        if (z == y || work_ > stop) continue;
        const std::vector<std::uint32_t> from_x = leaning(x, y), from_y = leaning(y, z), from_z = leaning(z, x);
        for (const std::uint32_t r : from_x) {
          if (!hot[r]) continue;
          for (const std::uint32_t s : from_y)
            for (const std::uint32_t t : from_z) {
              const auto [first, second] = pair_rise(r, t, r, s);  // as Rotation::swaps() makes them
              if (rise_ + first + second <= allowed_rise_ / 2) rotations.push_back({first + second, first, r, s, t});
            }
        }
      }
    return keep_first_that_lowers(rotations, stop);
  }

  // The node with the most ranks at the peak and its kTargets partner
  // nodes, their ranks split again among them (recut_cables(): the lowest
  // most loaded node cable of the pool), made as swaps in one trial and
  // kept if the peak falls, within the hop-bytes allowance left (at half
  // of it, as rotations have, the busiest link stayed behind the best peer
  // on 5 of bench/dragonfly.py's 68 instances, against 3). On #110
  // of bench/dragonfly.py's seventh set, no swap of one or two and no
  // rotation lowered node d118's cable (3.97 MB); the split of d118's and
  // its four partners' ranks took it under the next node's, 3.38 MB.
  bool recut_pool(const std::vector<char>& hot, std::uint64_t stop) {
    const int x = hottest_node(hot);
    const long long left = allowed_rise_ - rise_;
    if (x < 0 || left <= 0) return false;
    std::vector<int> nodes = partner_nodes(on_[x], x);
    nodes.insert(nodes.begin(), x);
    std::vector<std::uint32_t> ranks;
    CablePool pool = cable_pool(nodes, ranks);
    // recut_cables() counts cost as the sum of cost() over every rank
    // does: twice swap_rise()'s unit.
    if (!recut_cables(pool, 2 * left, kRecutSteps, work_, stop)) return false;
    long long rise = 0;
    const std::vector<RankPair> swaps = swaps_to(nodes, ranks, pool.node, rise);
    if (swaps.empty() || rise > left || !try_swaps(swaps)) return false;
    rise_ += rise;
    made_.push_back({rise, swaps.front().first, swaps.front().second});
    for (std::size_t i = 1; i < swaps.size(); ++i) made_.push_back({0, swaps[i].first, swaps[i].second});
    return true;
  }

  // The ranks on `nodes` as recut_cables() reads them, numbered in
  // `ranks` (node by node, each node's in on_'s order).
  CablePool cable_pool(const std::vector<int>& nodes, std::vector<std::uint32_t>& ranks) {
    CablePool pool;
    pool.nodes = static_cast<int>(nodes.size());
    for (std::size_t k = 0; k < nodes.size(); ++k)
      for (const std::uint32_t r : on_[nodes[k]]) {
        pool_index_[r] = static_cast<std::int64_t>(ranks.size());
        ranks.push_back(r);
        pool.node.push_back(static_cast<int>(k));
      }
    const auto size = static_cast<std::size_t>(pool.nodes);
    pool.hops.resize(size * size);
    for (std::size_t k = 0; k < size; ++k)
      for (std::size_t m = 0; m < size; ++m) pool.hops[k * size + m] = pair_hops(nodes[k], nodes[m]);
    // Costs as the sum of cost() over every rank counts them: an edge
    // from both ends.
    pool.away_cost.assign(ranks.size() * size, 0);
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      const std::uint32_t r = ranks[i];
      for (std::uint64_t e = g_.xadj[r]; e < g_.xadj[r + 1]; ++e)
        if (pool_index_[g_.adjncy[e]] < 0)
          for (std::size_t k = 0; k < size; ++k)
            pool.away_cost[i * size + k] +=
                2 * static_cast<long long>(g_.weight[e]) * pair_hops(nodes[k], node_[g_.adjncy[e]]);
      work_ += (g_.xadj[r + 1] - g_.xadj[r]) * size;
    }
    // An edge between pool ranks goes into both ends' lists: as its
    // sender's out bytes and its receiver's in bytes.
    for (const std::uint32_t r : ranks) {
      std::uint64_t away_out = 0, away_in = 0;
      for (std::uint64_t e = graph_.offsets[r]; e < graph_.offsets[r + 1]; ++e) {
        if (!counts(r, e)) continue;
        const std::int64_t t = pool_index_[graph_.targets[e]];
        if (t < 0) {
          away_out += graph_.bytes[e];
          continue;
        }
        pool.other.push_back(static_cast<std::uint32_t>(t));
        pool.out_bytes.push_back(graph_.bytes[e]);
        pool.in_bytes.push_back(0);
      }
      for (std::uint64_t e = in_offsets_[r]; e < in_offsets_[r + 1]; ++e) {
        const std::int64_t t = pool_index_[in_sources_[e]];
        if (t < 0) {
          away_in += in_bytes_[e];
          continue;
        }
        pool.other.push_back(static_cast<std::uint32_t>(t));
        pool.out_bytes.push_back(0);
        pool.in_bytes.push_back(in_bytes_[e]);
      }
      work_ += graph_.offsets[r + 1] - graph_.offsets[r] + in_offsets_[r + 1] - in_offsets_[r];
      pool.away_out.push_back(away_out);
      pool.away_in.push_back(away_in);
      pool.offsets.push_back(pool.other.size());
    }
    for (const std::uint32_t r : ranks) pool_index_[r] = -1;
    return pool;
  }

  // Swaps that put each of `ranks` on nodes[split[i]], made in turn: each
  // rank not yet on its node swaps with one on that node that does not
  // belong there, which places one rank at least. `rise`: theirs, priced
  // in turn (exact). The mapping is as it was on return.
  std::vector<RankPair> swaps_to(const std::vector<int>& nodes, const std::vector<std::uint32_t>& ranks,
                                 const std::vector<int>& split, long long& rise) {
    std::vector<RankPair> swaps;
    std::vector<int> at(ranks.size());  // where each rank sits as the swaps are made
    for (std::size_t i = 0; i < ranks.size(); ++i)
      at[i] = static_cast<int>(std::find(nodes.begin(), nodes.end(), node_[ranks[i]]) - nodes.begin());
    for (std::size_t i = 0; i < ranks.size(); ++i)
      for (std::size_t j = 0; at[i] != split[i] && j < ranks.size(); ++j)
        if (at[j] == split[i] && at[j] != split[j]) {
          rise += swap_rise(ranks[i], ranks[j]);
          std::swap(node_[ranks[i]], node_[ranks[j]]);
          std::swap(at[i], at[j]);
          swaps.emplace_back(ranks[i], ranks[j]);
        }
    for (auto it = swaps.rbegin(); it != swaps.rend(); ++it) std::swap(node_[it->first], node_[it->second]);
    return swaps;
  }

  // Of `found` (each two swaps made in turn, in its own order: cheapest in
  // hop-bytes first), the first of at most kPairTrials that lowers the
  // peak, made and kept as two swaps so that run()'s undo takes them back
  // in turn; no more trials once work_ passes `stop`.
  template <class TwoSwaps>
  bool keep_first_that_lowers(std::vector<TwoSwaps>& found, std::uint64_t stop) {
    std::sort(found.begin(), found.end());
    if (found.size() > kPairTrials) found.resize(kPairTrials);
    for (const TwoSwaps& c : found) {
      if (work_ > stop) break;
      const auto [one, two] = c.swaps();
      if (try_swaps({one, two})) {
        rise_ += c.rise;
        made_.push_back({c.first, one.first, one.second});
        made_.push_back({c.rise - c.first, two.first, two.second});
        return true;
      }
    }
    return false;
  }

  // The node with the most ranks at the peak, or -1 when it has fewer
  // than two ranks or none at the peak.
  int hottest_node(const std::vector<char>& hot) const {
    std::vector<int> hot_on(static_cast<std::size_t>(geo_.size()), 0);
    for (std::uint32_t r = 0; r < g_.n; ++r) hot_on[static_cast<std::size_t>(node_[r])] += hot[r];
    const auto x = static_cast<int>(std::max_element(hot_on.begin(), hot_on.end()) - hot_on.begin());
    return hot_on[static_cast<std::size_t>(x)] == 0 || on_[x].size() < 2 ? -1 : x;
  }

  // The kPairRanks ranks of node `from` that lean most toward node
  // `toward`: the most bytes with its ranks less those with their own
  // node's (on #88 the two that moved each way were among the first 3 of
  // 8). Nodes of 64 ranks would offer 2,016 pairs a side, and cost 2.7x
  // the whole command on 32,768 ranks.
  std::vector<std::uint32_t> leaning(int from, int toward) const {
    std::vector<std::pair<long long, std::uint32_t>> lean;  // (-lean, rank): ascending is most first
    for (std::uint32_t r : on_[from]) {
      long long toward_bytes = 0, own = 0;
      for (std::uint64_t e = g_.xadj[r]; e < g_.xadj[r + 1]; ++e) {
        const int at = node_[g_.adjncy[e]];
        if (at == toward) toward_bytes += static_cast<long long>(g_.weight[e]);
        if (at == from) own += static_cast<long long>(g_.weight[e]);
      }
      work_ += g_.xadj[r + 1] - g_.xadj[r];
      lean.emplace_back(own - toward_bytes, r);
    }
    const std::size_t keep = std::min(lean.size(), kPairRanks);
    std::partial_sort(lean.begin(), lean.begin() + static_cast<std::ptrdiff_t>(keep), lean.end());
    std::vector<std::uint32_t> ranks;
    for (std::size_t i = 0; i < keep; ++i) ranks.push_back(lean[i].second);
    return ranks;
  }

  // Twice the hop-bytes added by swapping r1 with s1, and then r2 with s2
  // priced with the first made: exact.
  std::pair<long long, long long> pair_rise(std::uint32_t r1, std::uint32_t s1, std::uint32_t r2, std::uint32_t s2) {
    const long long first = swap_rise(r1, s1);
    std::swap(node_[r1], node_[s1]);
    const long long second = swap_rise(r2, s2);
    std::swap(node_[r1], node_[s1]);
    return {first, second};
  }

  // Makes the swaps in turn in one trial (a rank may be in two: a
  // rotation of three ranks is two swaps): all their traffic off first,
  // then on from the new places; loads only rise while adding, so the
  // first link above the peak ends the trial. Kept when no link rises
  // above the peak and fewer links carry it (at none, the peak fell); else
  // undone. True when kept.
  bool try_swaps(std::initializer_list<RankPair> swaps) { return try_swaps(std::span(swaps.begin(), swaps.size())); }
  bool try_swaps(std::span<const RankPair> swaps) {
    std::vector<std::uint32_t>& moved = moved_;  // each rank once, in order (reroute() skips those before)
    std::vector<int>& was = was_;                // their nodes before
    moved.clear(), was.clear();
    for (const auto& [r, s] : swaps)
      for (const std::uint32_t v : {r, s})
        if (std::find(moved.begin(), moved.end(), v) == moved.end()) was.push_back(node_[v]), moved.push_back(v);
    const std::size_t count = moved.size();
    auto reroute_all = [&](long long sign) {
      for (std::size_t i = 0; i < count; ++i) reroute(moved[i], sign, std::span(moved.data(), i));
    };
    loads_.begin();
    over_ = false;
    reroute_all(-1);
    for (const auto& [r, s] : swaps) std::swap(node_[r], node_[s]);
    reroute_all(+1);
    const long long at_peak = over_ ? 0 : loads_.at_peak_after();
    if (!over_ && at_peak < static_cast<long long>(loads_.at_peak())) {
      // Each node lost as many ranks as it gained: each leaving rank's
      // place in its node's list goes to one that arrived there.
      std::vector<char> placed(count, 0);
      for (std::size_t i = 0; i < count; ++i) {
        if (node_[moved[i]] == was[i]) continue;
        for (std::size_t j = 0; j < count; ++j)
          if (!placed[j] && node_[moved[j]] == was[i] && was[j] != was[i]) {
            std::replace(on_[was[i]].begin(), on_[was[i]].end(), moved[i], moved[j]);
            placed[j] = 1;
            break;
          }
      }
      loads_.keep(at_peak);
      return true;
    }
    loads_.undo();
    for (auto it = swaps.rbegin(); it != swaps.rend(); ++it) std::swap(node_[it->first], node_[it->second]);
    return false;
  }

  const Graph& graph_;
  const UndirectedGraph& g_;
  const NodeGeometry& geo_;
  std::vector<int>& node_;
  std::vector<std::uint64_t> in_offsets_;
  std::vector<std::uint32_t> in_sources_;
  std::vector<std::uint64_t> in_bytes_;
  TrialLoads loads_;
  std::vector<std::vector<std::uint32_t>> on_;
  std::vector<std::uint64_t> conn_;
  std::vector<int> touched_nodes_;
  std::vector<std::int64_t> pool_index_ = std::vector<std::int64_t>(graph_.ranks, -1);  // recut_pool()'s numbering
  std::vector<std::uint32_t> moved_;                                                    // try_swaps()'s
  std::vector<int> was_;
  long long rise_ = 0, allowed_rise_ = 0;
  mutable std::uint64_t work_ = 0;  // links routed over and edges scanned
  std::uint64_t work_budget_ = std::max(kMinWork, kWorkPerEdge* graph_.num_edges());
  bool over_ = false;  // a link above the peak in this trial
  bool asymmetric_ = geo_.network().is_dragonfly();
  bool pairs_ = geo_.network().is_dragonfly();  // swap_pairs(), then rotate_triples(), when no single swap helps
  struct Swap {
    long long rise;
    std::uint32_t r, s;
    int x, y;  // their nodes when offered
    bool operator<(const Swap& o) const { return std::tie(rise, r, s) < std::tie(o.rise, o.r, o.s); }
  };
  std::vector<Swap> candidates_;
  struct Made {
    long long rise;
    std::uint32_t r, s;
  };
  std::vector<Made> made_;  // swaps kept, in order
};

class RankLinkSwaps : public RankRefiner {
 public:
  explicit RankLinkSwaps(int rounds) : rounds_(rounds) {}
  bool refine(const Problem& problem, std::vector<int>& node_of_rank) const override {
    if (problem.geometry.size() > static_cast<int>(kLargeAllocation) || problem.graph.num_edges() > kEdgeBudget ||
        problem.geometry.network().num_links() == 0)
      return false;
    return RankLinkRefiner(problem, node_of_rank).run(rounds_);
  }

 private:
  int rounds_;
};

}  // namespace

std::unique_ptr<RankRefiner> make_rank_link_swaps(int rounds) { return std::make_unique<RankLinkSwaps>(rounds); }

}  // namespace rankmap::detail
