// Cutting the graph and the network together. The used nodes are split
// into up to `fanout` compact groups (halves in the network kind's way: a
// torus across its widest dimension, a tree along its levels, top first),
// the ranks into as many parts of the groups' capacities (METIS, exact
// sizes), parts are matched to groups so that heavy part pairs sit in near
// groups, and each group is split again, down to single nodes. Ranks cut
// together stay on nodes cut together. On a dragonfly the first cut is into
// its whole groups at once, refined (cut_into_groups).
//  - fanout 2: the joint recursive bisection (METIS recursive bisection).
//  - fanout 64: the hierarchy for thousands of nodes, where one METIS call
//    into a part per node is too slow (METIS k-way, at most 64 parts a call).
#include <algorithm>
#include <numeric>

#include "core/workers.hpp"
#include "map/kinds/network_kind.hpp"
#include "map/stages.hpp"
#include "partition/metis.hpp"
#include "partition/pairwise_fm.hpp"
#include "rankmap/random.hpp"

namespace rankmap::detail {

namespace {

class Hierarchy {
 public:
  // Ranks to cut for a group of parts (nodes).
  struct Task {
    std::vector<std::uint32_t> ranks;
    std::vector<int> parts;
  };

  Hierarchy(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes, const std::vector<int>& used,
            const NodeGeometry& geo, std::uint64_t seed, std::size_t fanout, int cuts)
      : g_(g), sizes_(sizes), used_(used), geo_(geo), seed_(seed), fanout_(fanout), cuts_(cuts), part_(g.n, 0) {}

  // Level by level: the groups of a level are cut independently, a group
  // a thread (METIS calls overlap: metis_threads.hpp), and each writes
  // only its own ranks' parts, so the parts are the same for any number of
  // threads, and the same as cutting group after group.
  std::vector<int> run() {
    std::vector<Task> level(1);
    level[0].ranks.resize(g_.n);
    std::iota(level[0].ranks.begin(), level[0].ranks.end(), 0u);
    level[0].parts.resize(sizes_.size());
    std::iota(level[0].parts.begin(), level[0].parts.end(), 0);
    while (!level.empty()) {
      std::uint64_t ends = 0;
      for (const Task& t : level)
        for (std::uint32_t r : t.ranks) ends += g_.xadj[r + 1] - g_.xadj[r];
      std::vector<std::vector<Task>> children(level.size());
      run_jobs(static_cast<int>(ranges_for(level.size(), ends >= kParallelGroupEnds)), level.size(),
               [&](std::size_t i) { children[i] = split(level[i]); });
      std::vector<Task> next;
      for (auto& c : children)
        for (Task& t : c) next.push_back(std::move(t));
      level = std::move(next);
    }
    return std::move(part_);
  }

 private:
  // Halves node groups until there are `count` groups (or groups that
  // cannot be halved).
  std::vector<std::vector<int>> group_nodes(std::vector<int> parts, std::size_t count) const {
    std::vector<std::vector<int>> groups{std::move(parts)};
    while (groups.size() < count) {
      std::vector<std::vector<int>> next;
      bool split_any = false;
      for (auto& grp : groups) {
        if (grp.size() == 1) {
          next.push_back(std::move(grp));
          continue;
        }
        const auto half = static_cast<std::ptrdiff_t>(engine_kind(geo_.network())
                                                          .halve(
                                                              grp, [&](int p) { return used_[p]; }, geo_));
        if (half == 0) {
          next.push_back(std::move(grp));
          continue;
        }
        next.emplace_back(grp.begin(), grp.begin() + half);
        next.emplace_back(grp.begin() + half, grp.end());
        split_any = true;
      }
      groups = std::move(next);
      if (!split_any) break;
    }
    return groups;
  }

  // A group's cut: its ranks' parts when it is one node, else the groups
  // below it, each with its ranks.
  std::vector<Task> split(const Task& task) {
    const std::vector<std::uint32_t>& ranks = task.ranks;
    if (task.parts.size() == 1) {
      for (std::uint32_t r : ranks) part_[r] = task.parts[0];
      return {};
    }
    // The joint bisection cuts a dragonfly's groups apart in one step.
    std::vector<std::vector<int>> groups;
    if (fanout_ == 2)
      groups = engine_kind(geo_.network())
                   .whole_groups(
                       task.parts, [&](int p) { return used_[p]; }, geo_);
    const bool into_groups = !groups.empty();
    if (!into_groups) groups = group_nodes(task.parts, std::min(fanout_, task.parts.size()));
    const int k = static_cast<int>(groups.size());
    std::vector<std::uint32_t> group_size(k, 0);
    for (int i = 0; i < k; ++i)
      for (int p : groups[i]) group_size[i] += sizes_[p];
    const UndirectedGraph sub = induced(ranks);
    // One vertex per group: any split is the same; the matching below places
    // them. (At the last level of a large run this saves thousands of calls.)
    const bool singletons = std::all_of(group_size.begin(), group_size.end(), [](std::uint32_t s) { return s == 1; });
    std::vector<int> piece(sub.n);
    if (singletons)
      std::iota(piece.begin(), piece.end(), 0);
    else if (into_groups)
      piece = cut_into_groups(sub, group_size);
    else
      // The bisection draws METIS's vertex order (metis.hpp). The wide
      // hierarchy, for thousands of nodes, keeps the order given: a copy of
      // a million-rank graph per call would cost more than a draw gains.
      piece = metis_split(sub, group_size, seed_, cuts_, /*recursive=*/fanout_ == 2,
                          fanout_ == 2 ? VertexOrder::drawn : VertexOrder::as_given);
    const std::vector<int> group_of_piece = match(sub, piece, groups, group_size);
    std::vector<Task> below(k);
    for (std::size_t i = 0; i < ranks.size(); ++i) below[group_of_piece[piece[i]]].ranks.push_back(ranks[i]);
    for (int i = 0; i < k; ++i) below[i].parts = std::move(groups[i]);
    return below;
  }

  // The least cut of kGroupDraws draws each of METIS k-way and recursive
  // bisection into the groups, every draw refined pairwise
  // (pairwise_fm.hpp), the best then searched around (kGroupSearchRounds):
  // on a held-out geometric graph, 6.7-8.7 MB against 12.4-19.0 MB from
  // one bisection at 1:2 and then 1:1 (before the search). Each draw is
  // refined, not only METIS's best: on geometric #77 into 4 groups the
  // four trials' cuts were 14.3-15.9 MB against 15.1-17.5 MB when only the
  // best of 8 was (temporary counts; bench/RESULTS.md, issue 54, seventh
  // session). Large graphs take fewer draws, each METIS's best of several
  // tries: every graph still sees kGroupMetisTries METIS cuts a method or
  // more.
  std::vector<int> cut_into_groups(const UndirectedGraph& sub, const std::vector<std::uint32_t>& group_size) const {
    std::vector<int> best;
    std::uint64_t best_cut = 0;
    const std::uint64_t ends = std::max<std::uint64_t>(sub.xadj[sub.n], 1);
    const int count = static_cast<int>(std::clamp<std::uint64_t>(kGroupDrawEnds / ends, 1, kGroupDraws));
    const int tries = (kGroupMetisTries + count - 1) / count;
    Rng draws(seed_);
    for (int t = 0; t < count; ++t)
      for (bool recursive : {false, true}) {
        std::vector<int> piece = metis_split(sub, group_size, draws.next(), tries, recursive, VertexOrder::drawn);
        refine_cut_pairwise(sub, piece, kGroupRefineBudget);
        const std::uint64_t cut = cut_weight(sub, piece);
        if (best.empty() || cut < best_cut) best = std::move(piece), best_cut = cut;
      }
    const auto rounds = ends > kGroupSearchMaxEnds
                            ? 0
                            : static_cast<int>(std::min<std::uint64_t>(kGroupSearchEnds / ends, kGroupSearchRounds));
    const std::uint32_t moves = std::max<std::uint32_t>(2, sub.n / kGroupSearchShare);
    perturb_and_refine(sub, best, draws, rounds, moves, kGroupRefineBudget);
    return best;
  }

  // Piece i was cut with group i's size; any group of the same size will do.
  // Greedy pairwise swaps of equal-size groups, on traffic x distance
  // between group centres.
  std::vector<int> match(const UndirectedGraph& sub, const std::vector<int>& piece,
                         const std::vector<std::vector<int>>& groups, const std::vector<std::uint32_t>& size) const {
    const int k = static_cast<int>(groups.size());
    // Traffic between pieces, as a sparse list per piece.
    std::vector<std::uint64_t> dense(static_cast<std::size_t>(k) * k, 0);
    for (std::uint32_t v = 0; v < sub.n; ++v)
      for (std::uint64_t e = sub.xadj[v]; e < sub.xadj[v + 1]; ++e)
        if (piece[v] != piece[sub.adjncy[e]]) dense[piece[v] * k + piece[sub.adjncy[e]]] += sub.weight[e];
    std::vector<std::vector<std::pair<int, std::uint64_t>>> partners(k);
    for (int p = 0; p < k; ++p)
      for (int q = 0; q < k; ++q)
        if (dense[p * k + q]) partners[p].emplace_back(q, dense[p * k + q]);
    // Hops between group centres, computed once.
    std::vector<int> centre(k), dist(static_cast<std::size_t>(k) * k);
    for (int i = 0; i < k; ++i) centre[i] = used_[groups[i][groups[i].size() / 2]];
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j) dist[i * k + j] = geo_.hops(centre[i], centre[j]);
    std::vector<int> at(k);  // group of piece
    std::iota(at.begin(), at.end(), 0);
    auto cost_of = [&](int p, int group) {
      std::uint64_t c = 0;
      for (auto [q, w] : partners[p]) c += w * static_cast<std::uint64_t>(dist[group * k + at[q]]);
      return c;
    };
    for (int pass = 0; pass < 4; ++pass) {
      bool improved = false;
      for (int a = 0; a < k; ++a)
        for (int b = a + 1; b < k; ++b) {
          if (size[at[a]] != size[at[b]]) continue;
          const long long before = static_cast<long long>(cost_of(a, at[a]) + cost_of(b, at[b]));
          std::swap(at[a], at[b]);
          const long long after = static_cast<long long>(cost_of(a, at[a]) + cost_of(b, at[b]));
          if (after < before)
            improved = true;
          else
            std::swap(at[a], at[b]);
        }
      if (!improved) break;
    }
    return at;
  }

  UndirectedGraph induced(const std::vector<std::uint32_t>& ranks) { return subgraphs_.of(ranks); }

  // Cutting a level's groups on several threads pays from this many edge
  // ends in all of them (METIS takes about 100 ms on 2^18).
  static constexpr std::uint64_t kParallelGroupEnds = std::uint64_t{1} << 18;
  // Draws of each METIS method for a cut into a dragonfly's groups, and
  // the edge ends the passes after each may read (~0.1 s). On the 32
  // instances of bench/dragonfly.py, 32 draws, each refined, against 8
  // METIS tries with only the best refined: bytes between groups behind
  // the best peer on none against 3, geometric mean 0.826 against 0.855
  // (16 draws: 1 behind, 0.848; bench/RESULTS.md, issue 54, seventh
  // session). Draws are fewer from kGroupDrawEnds / 32 edge ends up, down
  // to one of kGroupMetisTries tries (the way before) from kGroupDrawEnds
  // / 2: with 32 draws at every size, mapping a 32,768-rank geometric
  // graph onto 4 groups took 39.7 s against 24.1 s.
  static constexpr int kGroupDraws = 32;
  static constexpr int kGroupMetisTries = 8;
  static constexpr std::uint64_t kGroupDrawEnds = std::uint64_t{1} << 20;
  static constexpr std::uint64_t kGroupRefineBudget = std::uint64_t{1} << 26;
  // Then the best cut is searched around (perturb_and_refine): up to
  // kGroupSearchRounds rounds, fewer from kGroupSearchEnds / 200 edge ends
  // up and none past kGroupSearchMaxEnds, each swapping one rank in
  // kGroupSearchShare across the cut. (A 32,768-rank geometric graph on 512
  // Frontier-like nodes, 312,270 edge ends, gained nothing from 13 rounds
  // and took 1.07x as long.) On the 27 instances of
  // bench/dragonfly.py's fourth to sixth sets, bytes between groups over
  // the best peer went from a geometric mean of 0.874 (behind on #102,
  // 1.016) to 0.844 (behind on none), hop-bytes from 0.962 to 0.959. One
  // rank in 64 put #103 behind (1.010); 400 rounds of one in 128 gained
  // nothing more (bench/RESULTS.md, issue 54, tenth session).
  static constexpr int kGroupSearchRounds = 200;
  static constexpr std::uint64_t kGroupSearchEnds = std::uint64_t{1} << 22;
  static constexpr std::uint64_t kGroupSearchMaxEnds = std::uint64_t{1} << 18;
  static constexpr std::uint32_t kGroupSearchShare = 32;

  const UndirectedGraph& g_;
  const std::vector<std::uint32_t>& sizes_;
  const std::vector<int>& used_;
  const NodeGeometry& geo_;
  std::uint64_t seed_;
  std::size_t fanout_;
  int cuts_;  // METIS tries per split, the best kept
  std::vector<int> part_;
  InducedSubgraphs subgraphs_{g_};
};

}  // namespace

std::vector<int> partition_hierarchy(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes,
                                     const std::vector<int>& used_nodes, const NodeGeometry& geometry,
                                     std::uint64_t seed) {
  return Hierarchy(g, sizes, used_nodes, geometry, seed, 64, 1).run();
}

std::vector<int> partition_recursive_bisection(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes,
                                               const std::vector<int>& used_nodes, const NodeGeometry& geometry,
                                               std::uint64_t seed, int cuts) {
  return Hierarchy(g, sizes, used_nodes, geometry, seed, 2, cuts).run();
}

namespace {

// Thousands of nodes: the hierarchy, on groups of matched ranks when the
// graph is larger than context.partition.coarsen_to. Node sizes are
// multiples of the group size, so every coarse vertex stands for the same
// number of ranks.
class HierarchyPartitioner : public Partitioner {
 public:
  explicit HierarchyPartitioner(std::uint32_t coarsen_to) : coarsen_to_(coarsen_to) {}
  std::string name() const override { return "hierarchy"; }
  bool applies(const NodeSet& nodes) const override { return nodes.large(); }
  bool cuts_for_nodes() const override { return true; }
  std::vector<int> partition(const Problem& problem, const NodeSet& nodes, std::uint64_t seed) const override {
    const UndirectedGraph& g = problem.g;
    std::uint32_t group = 1;
    auto fits = [&](std::uint32_t c) {
      if (g.n % c) return false;
      for (std::uint32_t s : nodes.sizes)
        if (s % c) return false;
      return true;
    };
    while (coarsen_to_ > 0 && g.n / group > coarsen_to_ && fits(group * 2)) group *= 2;
    if (group == 1) return partition_hierarchy(g, nodes.sizes, nodes.used, problem.geometry, seed);
    std::vector<std::uint32_t> merged_sizes;
    for (std::uint32_t s : nodes.sizes) merged_sizes.push_back(s / group);
    const Contraction c = contract_matched(g, group, seed);
    const std::vector<int> merged = partition_hierarchy(c.graph, merged_sizes, nodes.used, problem.geometry, seed);
    std::vector<int> part(g.n);
    for (std::uint32_t r = 0; r < g.n; ++r) part[r] = merged[c.coarse_of[r]];
    return part;
  }

 private:
  std::uint32_t coarsen_to_;
};

class RecursiveBisectionPartitioner : public Partitioner {
 public:
  explicit RecursiveBisectionPartitioner(int cuts) : cuts_(cuts) {}
  std::string name() const override { return "recursive bisection"; }
  bool applies(const NodeSet& nodes) const override { return !nodes.large() && nodes.used.size() > 1; }
  bool cuts_for_nodes() const override { return true; }
  std::vector<int> partition(const Problem& problem, const NodeSet& nodes, std::uint64_t seed) const override {
    return partition_recursive_bisection(problem.g, nodes.sizes, nodes.used, problem.geometry, seed, cuts_);
  }

 private:
  int cuts_;
};

}  // namespace

std::unique_ptr<Partitioner> make_hierarchy_partitioner(const Context& context) {
  return std::make_unique<HierarchyPartitioner>(context.partition.coarsen_to);
}

std::unique_ptr<Partitioner> make_recursive_bisection_partitioner(const Context& context) {
  return std::make_unique<RecursiveBisectionPartitioner>(context.partition.bisection_cuts);
}

}  // namespace rankmap::detail
