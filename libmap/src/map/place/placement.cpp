// Stage 2: which used node each part goes to. Several starts, then swaps.
// A placement is slot_of_part[p] = j: part p on used_nodes[j]; part p may
// only take node j when sizes[p] == sizes[j] (node j was cut for part j).
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/cuthill_mckee_ordering.hpp>

#include <algorithm>
#include <numeric>
#include <optional>
#include <queue>
#include <unordered_map>

#include "core/proposal_rounds.hpp"
#include "map/kinds/network_kind.hpp"
#include "map/stages.hpp"

namespace rankmap::detail {
namespace {

// Allocations of more nodes than this are large: swaps look at fewer
// partners, and for a round of 256 parts at a time.
constexpr int kLargePlacement = 4096;
constexpr std::size_t kPlacementRound = 256;

// Used nodes by coordinate index, and their neighbours (network_kind.hpp).
class UsedNodeIndex {
 public:
  UsedNodeIndex(const std::vector<int>& used, const NodeGeometry& geo) : geo_(geo) {
    for (int j = 0; j < static_cast<int>(used.size()); ++j) at_.emplace(geo.coord_index(used[j]), j);
  }
  // Used nodes next to coordinate index c (c's own included).
  template <class F>
  void near(std::size_t c, F&& f) const {
    visit(c, f);
    engine_kind(geo_.network()).neighbours(geo_.network(), c, [&](std::size_t n) { visit(n, f); });
  }

 private:
  template <class F>
  void visit(std::size_t c, F& f) const {
    if (auto it = at_.find(c); it != at_.end()) f(it->second);
  }
  const NodeGeometry& geo_;
  std::unordered_map<std::size_t, int> at_;
};

// Used nodes in a snake order through the torus (each row reverses the
// previous one's direction), so that consecutive nodes are neighbours.
std::vector<int> snake_order(const std::vector<int>& used, const NodeGeometry& geo) {
  const int nd = geo.network().num_dims();
  std::vector<std::pair<std::vector<int>, int>> keyed;
  for (int j = 0; j < static_cast<int>(used.size()); ++j) {
    std::vector<int> key(nd);
    // Most significant dimension first; a lower dimension runs backwards when
    // the sum of the higher coordinates is odd.
    int parity = 0;
    for (int d = nd - 1; d >= 0; --d) {
      const int c = geo.coord(used[j], d);
      key[nd - 1 - d] = parity % 2 ? geo.network().dims[d] - 1 - c : c;
      parity += key[nd - 1 - d];
    }
    keyed.emplace_back(std::move(key), j);
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<int> order;
  for (auto& [key, j] : keyed) order.push_back(j);
  return order;
}

// Assigns parts, in the given order, to the next free node of their size
// along `nodes`.
std::vector<int> lay_out(const std::vector<int>& parts_in_order, const std::vector<int>& nodes,
                         const std::vector<std::uint32_t>& sizes) {
  std::vector<int> slot(parts_in_order.size(), -1);
  std::unordered_map<std::uint32_t, std::size_t> next;  // size class -> cursor in `nodes`
  for (int p : parts_in_order) {
    std::size_t& i = next[sizes[p]];
    while (sizes[nodes[i]] != sizes[p]) ++i;
    slot[p] = nodes[i++];
  }
  return slot;
}

// hop-bytes between part p, if it sat at used node j, and its placed
// partners (slot -1: not placed yet).
std::uint64_t part_cost(const PartGraph& q, int p, int j, const std::vector<int>& slot_of_part,
                        const std::vector<int>& used, const NodeGeometry& geo) {
  std::uint64_t c = 0;
  for (std::uint64_t e = q.xadj[p]; e < q.xadj[p + 1]; ++e) {
    const int other = slot_of_part[q.adjncy[e]];
    if (other >= 0) c += q.weight[e] * static_cast<std::uint64_t>(geo.hops(used[j], used[other]));
  }
  return c;
}

}  // namespace

std::uint64_t placement_hop_bytes(const PartGraph& q, const std::vector<int>& slot_of_part,
                                  const std::vector<int>& used, const NodeGeometry& geo) {
  std::uint64_t total = 0;
  for (int p = 0; p < q.parts; ++p) total += part_cost(q, p, slot_of_part[p], slot_of_part, used, geo);
  return total / 2;  // every pair was counted from both ends
}

std::vector<int> place_cuthill_mckee(const PartGraph& q, const std::vector<std::uint32_t>& sizes,
                                     const std::vector<int>& used, const NodeGeometry& geo) {
  using namespace boost;
  using G = adjacency_list<vecS, vecS, undirectedS,
                           property<vertex_color_t, default_color_type, property<vertex_degree_t, int>>>;
  G graph(static_cast<std::size_t>(q.parts));
  for (int p = 0; p < q.parts; ++p)
    for (std::uint64_t e = q.xadj[p]; e < q.xadj[p + 1]; ++e)
      if (q.adjncy[e] > p) add_edge(static_cast<std::size_t>(p), static_cast<std::size_t>(q.adjncy[e]), graph);
  std::vector<std::size_t> order(static_cast<std::size_t>(q.parts));
  cuthill_mckee_ordering(graph, order.rbegin(), get(vertex_color, graph), make_degree_map(graph));
  return lay_out(std::vector<int>(order.begin(), order.end()), snake_order(used, geo), sizes);
}

std::vector<int> place_in_rank_order(const PartGraph& q, const std::vector<std::uint32_t>& sizes) {
  std::vector<int> parts(static_cast<std::size_t>(q.parts)), nodes(parts.size());
  std::iota(nodes.begin(), nodes.end(), 0);
  std::iota(parts.begin(), parts.end(), 0);
  std::stable_sort(parts.begin(), parts.end(), [&](int a, int b) { return q.first_rank[a] < q.first_rank[b]; });
  return lay_out(parts, nodes, sizes);
}

std::vector<int> place_greedy(const PartGraph& q, const std::vector<std::uint32_t>& sizes, const std::vector<int>& used,
                              const NodeGeometry& geo) {
  const int parts = q.parts;
  const UsedNodeIndex index(used, geo);
  std::vector<int> slot(parts, -1), part_at(parts, -1);
  std::vector<std::uint64_t> pull(parts, 0);  // traffic to parts already placed
  // The heaviest part starts at the node closest to all others.
  std::vector<std::uint64_t> load(parts, 0);
  for (int p = 0; p < parts; ++p)
    for (std::uint64_t e = q.xadj[p]; e < q.xadj[p + 1]; ++e) load[p] += q.weight[e];
  const int first = static_cast<int>(std::max_element(load.begin(), load.end()) - load.begin());
  int centre = -1;
  long best = -1;
  const int stride = std::max(1, parts / 1024);
  for (int j = 0; j < parts; ++j) {
    if (sizes[j] != sizes[first]) continue;
    long total = 0;
    for (int i = 0; i < parts; i += stride) total += geo.hops(used[j], used[i]);
    if (best < 0 || total < best) best = total, centre = j;
  }
  using Item = std::pair<std::uint64_t, int>;  // (pull, -part): heaviest pull, then lowest part
  std::priority_queue<Item> queue;
  auto place = [&](int p, int j) {
    slot[p] = j;
    part_at[j] = p;
    for (std::uint64_t e = q.xadj[p]; e < q.xadj[p + 1]; ++e) {
      const int r = q.adjncy[e];
      if (slot[r] >= 0) continue;
      pull[r] += q.weight[e];
      queue.emplace(pull[r], -r);
    }
  };
  place(first, centre);
  int placed = 1, scan = 0;
  while (placed < parts) {
    int p = -1;
    while (!queue.empty() && p < 0) {
      auto [w, neg] = queue.top();
      queue.pop();
      if (slot[-neg] < 0 && pull[-neg] == w) p = -neg;
    }
    if (p < 0) {  // a part with no traffic to placed ones: next in index order
      while (slot[scan] >= 0) ++scan;
      p = scan;
    }
    // Candidates: free nodes of p's size next to where its placed partners are.
    int best_j = -1;
    std::uint64_t best_cost = 0;
    auto consider = [&](int j) {
      if (part_at[j] >= 0 || sizes[j] != sizes[p]) return;
      const std::uint64_t c = part_cost(q, p, j, slot, used, geo);
      if (best_j < 0 || c < best_cost || (c == best_cost && j < best_j)) best_j = j, best_cost = c;
    };
    for (std::uint64_t e = q.xadj[p]; e < q.xadj[p + 1]; ++e)
      if (slot[q.adjncy[e]] >= 0) index.near(geo.coord_index(used[slot[q.adjncy[e]]]), consider);
    if (best_j < 0)  // no free node nearby: every free node of the size
      for (int j = 0; j < parts; ++j) consider(j);
    place(p, best_j);
    ++placed;
  }
  return slot;
}

int refine_placement(const PartGraph& q, const std::vector<std::uint32_t>& sizes, const std::vector<int>& used,
                     const NodeGeometry& geo, std::vector<int>& slot, int passes, std::size_t round_size) {
  // Look around this many of a part's heaviest partners (fewer on large
  // allocations, where a pass visits tens of thousands of parts).
  const bool large = q.parts > kLargePlacement;
  const std::size_t kPartners = large ? 4 : 8;
  const UsedNodeIndex index(used, geo);
  std::vector<int> part_at(q.parts);
  for (int p = 0; p < q.parts; ++p) part_at[slot[p]] = p;
  auto weight_between = [&](int a, int b) -> std::uint64_t {
    auto first = q.adjncy.begin() + static_cast<std::ptrdiff_t>(q.xadj[a]);
    auto last = q.adjncy.begin() + static_cast<std::ptrdiff_t>(q.xadj[a + 1]);
    auto it = std::lower_bound(first, last, b);
    return it != last && *it == b ? q.weight[static_cast<std::size_t>(it - q.adjncy.begin())] : 0;
  };
  // What swapping parts a and b, at nodes x and y, changes.
  auto swap_delta = [&](int a, int b, int x, int y, std::uint64_t a_here) {
    const long long before = static_cast<long long>(a_here + part_cost(q, b, y, slot, used, geo));
    const long long after =
        static_cast<long long>(part_cost(q, a, y, slot, used, geo) + part_cost(q, b, x, slot, used, geo) +
                               2 * weight_between(a, b) * static_cast<std::uint64_t>(geo.hops(used[x], used[y])));
    return after - before;
  };
  // On large allocations the partners of a round of parts are looked for
  // on several threads (proposal_rounds.hpp).
  if (round_size == 0) round_size = large ? kPlacementRound : 1;
  struct Search {
    std::vector<int> seen;  // stamp of the last search that looked at a node
    int stamp = 0;
    std::vector<std::pair<std::uint64_t, int>> partners;
  };
  std::vector<Search> scratch(ranges_for(round_size, large), Search{std::vector<int>(q.parts, -1), 0, {}});
  auto propose = [&](std::size_t part, Search& search) -> std::optional<int> {
    const int a = static_cast<int>(part), x = slot[a];
    const std::uint64_t a_here = part_cost(q, a, x, slot, used, geo);
    if (a_here == 0) return std::nullopt;
    const int stamp = ++search.stamp;
    int best_b = -1;
    long long best_delta = 0;
    auto consider = [&](int y) {
      if (search.seen[y] == stamp) return;
      search.seen[y] = stamp;
      const int b = part_at[y];
      if (b == a || sizes[b] != sizes[a]) return;
      const long long delta = swap_delta(a, b, x, y, a_here);
      if (delta < best_delta || (delta == best_delta && delta < 0 && b < best_b)) best_delta = delta, best_b = b;
    };
    // Move a next to one of its heaviest partners.
    auto& partners = search.partners;
    partners.clear();
    for (std::uint64_t e = q.xadj[a]; e < q.xadj[a + 1]; ++e) partners.emplace_back(q.weight[e], q.adjncy[e]);
    const std::size_t keep = std::min(kPartners, partners.size());
    std::partial_sort(
        partners.begin(), partners.begin() + static_cast<std::ptrdiff_t>(keep), partners.end(),
        [](const auto& u, const auto& v) { return u.first != v.first ? u.first > v.first : u.second < v.second; });
    for (std::size_t i = 0; i < keep; ++i) index.near(geo.coord_index(used[slot[partners[i].second]]), consider);
    return best_b >= 0 ? std::optional<int>(best_b) : std::nullopt;
  };
  // A swap found earlier in its round is made only if it still lowers
  // hop-bytes where a and b now are.
  auto make = [&](std::size_t part, int b) {
    const int a = static_cast<int>(part), x = slot[a], y = slot[b];
    if (swap_delta(a, b, x, y, part_cost(q, a, x, slot, used, geo)) >= 0) return false;
    std::swap(slot[a], slot[b]);
    part_at[x] = b;
    part_at[y] = a;
    return true;
  };
  int pass = 0;
  for (; pass < passes; ++pass)
    if (!proposal_rounds<int>(static_cast<std::size_t>(q.parts), round_size, scratch, propose, make)) break;
  return pass;
}

namespace {

// Starts that look at every node: kept to allocations of up to a few
// thousand nodes.
class GreedyStart : public PlacementStart {
 public:
  bool applies(const NodeSet& nodes) const override { return !nodes.large(); }
  std::vector<int> place(const Problem& problem, const NodeSet& nodes, const PartGraph& q) const override {
    return place_greedy(q, nodes.sizes, nodes.used, problem.geometry);
  }
};

class CuthillMckeeStart : public PlacementStart {
 public:
  bool applies(const NodeSet& nodes) const override { return !nodes.large(); }
  std::vector<int> place(const Problem& problem, const NodeSet& nodes, const PartGraph& q) const override {
    return place_cuthill_mckee(q, nodes.sizes, nodes.used, problem.geometry);
  }
};

// Cheap in itself, but every start costs its swaps: kept, like the
// others, to allocations of up to a few thousand nodes.
class RankOrderStart : public PlacementStart {
 public:
  bool applies(const NodeSet& nodes) const override { return !nodes.large(); }
  std::vector<int> place(const Problem&, const NodeSet& nodes, const PartGraph& q) const override {
    return place_in_rank_order(q, nodes.sizes);
  }
};

class HopByteSwaps : public PlacementRefiner {
 public:
  explicit HopByteSwaps(int passes) : passes_(passes) {}
  std::string name() const override { return "swaps"; }
  bool applies(const NodeSet&) const override { return true; }
  void refine(const Problem& problem, const NodeSet& nodes, const std::vector<int>&, const PartGraph& q,
              std::vector<int>& slot_of_part) const override {
    refine_placement(q, nodes.sizes, nodes.used, problem.geometry, slot_of_part, passes_);
  }

 private:
  int passes_;
};

}  // namespace

std::unique_ptr<PlacementStart> make_greedy_start() { return std::make_unique<GreedyStart>(); }
std::unique_ptr<PlacementStart> make_cuthill_mckee_start() { return std::make_unique<CuthillMckeeStart>(); }
std::unique_ptr<PlacementStart> make_rank_order_start() { return std::make_unique<RankOrderStart>(); }
std::unique_ptr<PlacementRefiner> make_hop_byte_swaps(int passes) { return std::make_unique<HopByteSwaps>(passes); }

}  // namespace rankmap::detail
