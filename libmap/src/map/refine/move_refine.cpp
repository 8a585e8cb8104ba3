// Moves single ranks between nodes so that every node ends with its size,
// where the rank swaps stop.
//
// Cycles: one rank from x1 to x2, one from x2 to x3, ..., one from xk back
// to x1. A swap is a cycle of two; longer cycles reach what no swap can,
// such as three nodes each holding a rank that belongs on the next. The
// nodes and, for each pair, the best move of one rank between them form a
// graph whose edge x -> y costs minus that move's gain; a cycle of
// negative cost gains in sum and keeps every node's size, and Bellman-Ford
// finds one.
//
// Free moves: each rank moves to the node it gains most on while that node
// holds at most 2 ranks more than its size; then the cheapest paths of
// moves in the same graph, from a node over its size to one under it,
// restore every size. A round is kept only if it gains in sum.
//
// Both are Sanders and Schulz's ways to balance a partition exactly
// ("Think Locally, Act Globally", SEA 2013). On bench/engine_trials.py's
// instances they took `default` from 0.992 to 0.971 of Mt-KaHyPar's best
// (cycles alone 0.980; bench/RESULTS.md, issue 33).
#include <algorithm>
#include <climits>

#include "core/sparse_accumulator.hpp"
#include "map/stages.hpp"

namespace rankmap::detail {
namespace {

// Steps (edge ends read, moves tried) one refine() may take: about 0.1 s
// here. The searches over a million ranks stop there; 1,024 ranks on 64
// nodes need a few million.
constexpr std::uint64_t kBudget = std::uint64_t{1} << 26;
// Rounds of free moves, and how far past its size a node may fill in one:
// 1 round gave 0.974, 8 rounds 0.971, slack 4 no better than 2.
constexpr int kRounds = 8;
constexpr std::size_t kSlack = 2;

// A distance no node has yet in the paths' Bellman-Ford.
constexpr long long kFar = LLONG_MAX / 4;

struct Move {
  int from = 0;
  int to = 0;
  long long gain = 0;  // hop-bytes saved by this move alone
  std::uint32_t rank = 0;
  bool banned = false;  // part of a cycle whose moves undid each other's gains
};

class MoveSearch {
 public:
  MoveSearch(const UndirectedGraph& g, const NodeGeometry& geo, std::vector<int>& node_of_rank, std::uint64_t budget)
      : g_(g),
        geo_(geo),
        node_of_rank_(node_of_rank),
        nodes_(static_cast<std::size_t>(geo.size())),
        on_(nodes_),
        out_(nodes_),
        conn_(nodes_),
        best_(nodes_, -1),
        stamp_(nodes_, 0),
        budget_(budget) {
    list_ranks();
  }

  // Applies cycles until none gains or the budget is spent; returns how
  // many were applied.
  int run() {
    int applied = 0;
    std::vector<Move*> cycle;
    while (spent_ < budget_ && find_cycle(cycle)) {
      if (apply(cycle)) {
        ++applied;
        refresh(cycle);
      } else {
        // Moved ranks that are partners change each other's gains; the
        // next search goes round this cycle.
        cycle.front()->banned = true;
        banned_.push_back(cycle.front());
      }
    }
    return applied;
  }

  // Rounds of free moves (each node may hold up to `slack` ranks more than
  // it should), then rebalancing along the cheapest paths of moves from the
  // nodes over their size to those under it; a round is kept only if it
  // gains in sum.
  int relaxed(int rounds, std::size_t slack) {
    std::vector<std::size_t> size(nodes_);
    for (std::size_t x = 0; x < nodes_; ++x) size[x] = on_[x].size();
    int kept = 0;
    for (int round = 0; round < rounds && spent_ < budget_; ++round) {
      const std::vector<int> snapshot = node_of_rank_;
      long long delta = 0;
      std::size_t moves = 0;
      for (std::uint32_t r = 0; r < g_.n; ++r) {
        const int x = node_of_rank_[r];
        gather(r);
        const long long here = cost_on(x);
        long long best = 0;
        int best_y = -1;
        for (std::uint32_t y : conn_.keys()) {
          if (static_cast<int>(y) == x || on_[y].size() >= size[y] + slack) continue;
          const long long gain = here - cost_on(static_cast<int>(y));
          if (gain > best) best = gain, best_y = static_cast<int>(y);
        }
        conn_.clear();
        if (best_y < 0) continue;
        node_of_rank_[r] = best_y;
        relist(r, x);
        delta -= best;
        ++moves;
      }
      if (moves == 0) break;
      rebuild_all();
      std::vector<Move*> path;
      while (spent_ < budget_ && cheapest_path(size, path)) {
        delta += apply_all(path);
        refresh(path);
      }
      const long long before = gained_;
      run();
      delta -= gained_ - before;
      bool balanced = true;
      for (std::size_t x = 0; x < nodes_; ++x) balanced = balanced && on_[x].size() == size[x];
      if (balanced && delta < 0) {
        ++kept;
        continue;
      }
      node_of_rank_ = snapshot;
      list_ranks();
      break;
    }
    return kept;
  }

 private:
  // The cheapest path of moves from a node over its size to one under it
  // (a direct move to the nearest such node when none is reachable); false
  // once every node has its size.
  bool cheapest_path(const std::vector<std::size_t>& size, std::vector<Move*>& path) {
    std::vector<long long> dist(nodes_, kFar);
    pred_.assign(nodes_, nullptr);
    int over = -1;
    for (std::size_t x = 0; x < nodes_; ++x)
      if (on_[x].size() > size[x]) {
        dist[x] = 0;
        if (over < 0) over = static_cast<int>(x);
      }
    if (over < 0) return false;
    for (std::size_t round = 0; round < nodes_ && relax(dist); ++round) {
    }
    int under = -1;
    for (std::size_t y = 0; y < nodes_; ++y)
      if (on_[y].size() < size[y] && dist[y] < kFar && (under < 0 || dist[y] < dist[static_cast<std::size_t>(under)]))
        under = static_cast<int>(y);
    path.clear();
    if (under >= 0) {
      std::size_t v = static_cast<std::size_t>(under);
      while (pred_[v] && path.size() <= nodes_) path.push_back(pred_[v]), v = static_cast<std::size_t>(pred_[v]->from);
      if (path.size() <= nodes_) {
        std::reverse(path.begin(), path.end());
        return true;
      }
    }
    // No path (or a loop in it): over's cheapest rank to the nearest node
    // under its size.
    path.clear();
    int nearest = -1;
    for (std::size_t y = 0; y < nodes_; ++y)
      if (on_[y].size() < size[y] && (nearest < 0 || geo_.hops(over, static_cast<int>(y)) < geo_.hops(over, nearest)))
        nearest = static_cast<int>(y);
    long long least = 0;
    std::uint32_t rank = 0;
    bool first = true;
    for (std::uint32_t v : on_[static_cast<std::size_t>(over)]) {
      const long long loss = rank_cost(v, nearest) - rank_cost(v, over);
      if (first || loss < least) least = loss, rank = v, first = false;
    }
    fallback_ = {over, nearest, -least, rank};
    path.push_back(&fallback_);
    return true;
  }

  // Makes every move; their exact change of hop-bytes.
  long long apply_all(const std::vector<Move*>& moves) {
    long long delta = 0;
    for (const Move* m : moves) {
      delta += rank_cost(m->rank, m->to) - rank_cost(m->rank, m->from);
      node_of_rank_[m->rank] = m->to;
    }
    return delta;
  }

  // The best move of one of x's ranks to each node its ranks' partners sit
  // on. A rank's cost on node y is its bytes to each node times the hops
  // from y: summed per node, not per edge (a row all-to-all's ranks have
  // hundreds of partners on a few dozen nodes).
  void rebuild(int x) {
    auto& out = out_[static_cast<std::size_t>(x)];
    out.clear();
    for (std::uint32_t v : on_[static_cast<std::size_t>(x)]) {
      gather(v);
      const long long here = cost_on(x);
      for (std::uint32_t y : conn_.keys()) {
        if (static_cast<int>(y) == x) continue;
        const long long gain = here - cost_on(static_cast<int>(y));
        int& b = best_[y];
        if (b < 0) {
          b = static_cast<int>(out.size());
          out.push_back({x, static_cast<int>(y), gain, v});
        } else if (gain > out[static_cast<std::size_t>(b)].gain) {
          out[static_cast<std::size_t>(b)].gain = gain, out[static_cast<std::size_t>(b)].rank = v;
        }
      }
      conn_.clear();
    }
    for (const Move& m : out) best_[static_cast<std::size_t>(m.to)] = -1;
  }

  // v's bytes to each node its partners sit on, into conn_; the steps count
  // what cost_on() then takes for each of those nodes.
  void gather(std::uint32_t v) {
    for (std::uint64_t e = g_.xadj[v]; e < g_.xadj[v + 1]; ++e)
      conn_.add(static_cast<std::uint32_t>(node_of_rank_[g_.adjncy[e]]), g_.weight[e]);
    spent_ += g_.xadj[v + 1] - g_.xadj[v] + conn_.keys().size() * conn_.keys().size();
  }

  long long cost_on(int y) const {
    long long c = 0;
    for (std::uint32_t z : conn_.keys()) c += static_cast<long long>(conn_[z]) * geo_.hops(y, static_cast<int>(z));
    return c;
  }

  // Bellman-Ford from every node at once (all distances 0). A cycle in the
  // predecessor edges is a negative one; they are checked after every
  // round, so a cycle is found long before the n-th round.
  bool find_cycle(std::vector<Move*>& cycle) {
    std::vector<long long> dist(nodes_, 0);
    pred_.assign(nodes_, nullptr);
    for (std::size_t round = 0; round < nodes_ && spent_ < budget_; ++round) {
      if (!relax(dist)) return false;
      if (pred_cycle(cycle)) return true;
    }
    return false;
  }

  // One Bellman-Ford round over every unbanned move (none from a node at
  // kFar, not reached); whether any distance fell.
  bool relax(std::vector<long long>& dist) {
    bool changed = false;
    for (auto& out : out_) {
      spent_ += out.size();
      for (Move& m : out) {
        if (m.banned || dist[static_cast<std::size_t>(m.from)] == kFar) continue;
        const long long d = dist[static_cast<std::size_t>(m.from)] - m.gain;
        if (d < dist[static_cast<std::size_t>(m.to)]) {
          dist[static_cast<std::size_t>(m.to)] = d;
          pred_[static_cast<std::size_t>(m.to)] = &m;
          changed = true;
        }
      }
    }
    return changed;
  }

  // Walks back from every node along the predecessors; a walk that meets
  // itself has found a cycle. A node reached by an earlier walk of this
  // call leads to no new one.
  bool pred_cycle(std::vector<Move*>& cycle) {
    const std::uint64_t first = walk_ + 1;
    spent_ += nodes_;
    for (std::size_t s = 0; s < nodes_; ++s) {
      const std::uint64_t walk = ++walk_;
      std::size_t v = s;
      while (pred_[v] && stamp_[v] < first) stamp_[v] = walk, v = static_cast<std::size_t>(pred_[v]->from);
      if (!pred_[v] || stamp_[v] != walk) continue;
      cycle.clear();
      std::size_t u = v;
      long long gain = 0;
      do {
        cycle.push_back(pred_[u]);
        gain += pred_[u]->gain;
        u = static_cast<std::size_t>(pred_[u]->from);
      } while (u != v);
      return gain > 0;
    }
    return false;
  }

  // Makes the cycle's moves; keeps them only if together they gain (two of
  // its ranks may be partners, which no single move's gain counts).
  bool apply(const std::vector<Move*>& cycle) {
    const long long delta = apply_all(cycle);
    if (delta < 0) {
      gained_ -= delta;
      return true;
    }
    for (const Move* m : cycle) node_of_rank_[m->rank] = m->from;
    return false;
  }

  long long rank_cost(std::uint32_t v, int x) {
    spent_ += g_.xadj[v + 1] - g_.xadj[v];
    return static_cast<long long>(hop_bytes_on(g_, geo_, node_of_rank_, v, x));
  }

  // After a cycle: the nodes' rank lists, then the moves of every node that
  // holds a moved rank or one of its partners.
  // (The moves are read before any rebuild, which replaces them.)
  void refresh(const std::vector<Move*>& moves) {
    std::vector<int> touched;
    for (const Move* m : moves) {
      relist(m->rank, m->from);
      touched.push_back(m->from);
      touched.push_back(m->to);
      for (std::uint64_t e = g_.xadj[m->rank]; e < g_.xadj[m->rank + 1]; ++e)
        touched.push_back(node_of_rank_[g_.adjncy[e]]);
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    unban();
    for (int x : touched) rebuild(x);
  }

  // Rank r, just moved off node `from`, into its new node's list.
  void relist(std::uint32_t r, int from) {
    auto& list = on_[static_cast<std::size_t>(from)];
    list.erase(std::find(list.begin(), list.end(), r));
    on_[static_cast<std::size_t>(node_of_rank_[r])].push_back(r);
  }

  // Every node's list of ranks from node_of_rank_, and its moves.
  void list_ranks() {
    for (auto& list : on_) list.clear();
    for (std::uint32_t r = 0; r < g_.n; ++r) on_[static_cast<std::size_t>(node_of_rank_[r])].push_back(r);
    rebuild_all();
  }

  void rebuild_all() {
    unban();
    for (std::size_t x = 0; x < nodes_; ++x) rebuild(static_cast<int>(x));
  }

  // After any move, a banned cycle may gain again; and a rebuild moves the
  // entries the bans point to.
  void unban() {
    for (Move* m : banned_) m->banned = false;
    banned_.clear();
  }

  const UndirectedGraph& g_;
  const NodeGeometry& geo_;
  std::vector<int>& node_of_rank_;
  std::size_t nodes_;
  std::vector<std::vector<std::uint32_t>> on_;
  std::vector<std::vector<Move>> out_;  // out_[x]: x's best move to each node
  SparseAccumulator<std::uint64_t> conn_;
  std::vector<int> best_;  // during rebuild: index in out of the move to each node
  std::vector<Move*> pred_;
  std::vector<std::uint64_t> stamp_;  // the walk that last passed each node
  std::uint64_t walk_ = 0;
  std::vector<Move*> banned_;
  Move fallback_;
  long long gained_ = 0;  // by the cycles kept
  std::uint64_t budget_;
  std::uint64_t spent_ = 0;
};

}  // namespace

int refine_rank_moves(const UndirectedGraph& g, const NodeGeometry& geo, std::vector<int>& node_of_rank,
                      std::uint64_t budget, int rounds) {
  // Listing the moves reads every edge once: past the budget (millions of
  // ranks) no search could follow it.
  if (geo.size() < 2 || g.xadj[g.n] >= budget) return 0;
  MoveSearch search(g, geo, node_of_rank, budget);
  const int cycles = search.run();
  return cycles + search.relaxed(rounds, kSlack);
}

namespace {

class RankMoves : public RankRefiner {
 public:
  // On ranks only: cycles of the clusters the rank swaps contract gained
  // nothing more on bench/engine_trials.py (0.980 either way), nor did
  // swaps and cycles again after them (0.979).
  // Not on thousands of nodes: each search's rounds pass over every node's
  // moves, and on the million-rank stencil's 65,536 nodes the budget went
  // (1-1.5 s a run) for no gain.
  bool refine(const Problem& problem, std::vector<int>& node_of_rank) const override {
    if (static_cast<std::size_t>(problem.geometry.size()) > kLargeAllocation) return false;
    return refine_rank_moves(problem.g, problem.geometry, node_of_rank, kBudget, kRounds) > 0;
  }
};

}  // namespace

std::unique_ptr<RankRefiner> make_rank_moves() { return std::make_unique<RankMoves>(); }

}  // namespace rankmap::detail
