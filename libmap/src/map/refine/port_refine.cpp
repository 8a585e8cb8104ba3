// Which port of its switch each node's ranks sit on. On a tree whose
// switches have parallel uplinks, the route takes the uplink the
// destination's port picks (D-mod-k, detail/route.hpp), so a grid laid out
// in mesh order sends a leaf's whole face down one of its uplinks: on the
// 16x16x8 stencil on the 4:1 fat tree, a quarter of the leaf's ports (one
// column of its 4x4 nodes) took all the traffic from the next leaf along X.
// Two nodes under one switch are the same hops from every other node, so
// exchanging their ranks never changes hop-bytes: only the links. This
// refiner exchanges the ranks of two such nodes (of equal slots) while
// the most loaded link falls, fewer links carry it, or, at the same peak,
// the load spreads more evenly over the links (a lower sum of squares),
// which is what lets a later exchange lower the peak.
//
// It works on nodes, not ranks: the traffic between each pair of nodes is
// routed as one flow. Deterministic and on one thread.
#include <algorithm>
#include <cstdint>
#include <map>

#include "map/stages.hpp"
#include "rankmap/detail/route.hpp"

namespace rankmap::detail {
namespace {

// Sums of squared loads: link loads reach 2^40 bytes and more.
using Wide = __int128;

// Flows routed (times their links) before the refiner stops.
constexpr std::uint64_t kWorkBudget = std::uint64_t{1} << 26;
constexpr int kPasses = 8;

// Whether some route's choice of link depends on a node's port.
bool has_parallel_links(const Network& net) {
  if (!net.is_tree()) return false;
  for (int level = 0; level + 1 < net.num_dims(); ++level)
    if (net.levels[level].uplinks > 1) return true;
  return false;
}

class PortRefiner {
 public:
  PortRefiner(const Problem& problem, std::vector<int>& node_of_rank)
      : geo_(problem.geometry),
        allocation_(problem.allocation),
        node_of_rank_(node_of_rank),
        load_(geo_.network().num_links(), 0),
        stamp_(load_.size(), 0) {
    const int nodes = geo_.size();
    where_.resize(static_cast<std::size_t>(nodes));
    content_.resize(static_cast<std::size_t>(nodes));
    for (int k = 0; k < nodes; ++k) where_[k] = content_[k] = k;
    // Bytes from node to node, both ways of each pair kept together.
    std::map<std::pair<int, int>, std::pair<std::uint64_t, std::uint64_t>> pairs;
    const Graph& graph = problem.graph;
    for (std::uint32_t r = 0; r < graph.ranks; ++r)
      for (std::uint64_t e = graph.offsets[r]; e < graph.offsets[r + 1]; ++e) {
        const int a = node_of_rank[r], b = node_of_rank[graph.targets[e]];
        if (a == b) continue;
        auto& flow = pairs[{std::min(a, b), std::max(a, b)}];
        (a < b ? flow.first : flow.second) += graph.bytes[e];
      }
    flows_of_.resize(static_cast<std::size_t>(nodes));
    for (const auto& [ends, bytes] : pairs) {
      flows_.push_back({ends.first, ends.second, bytes.first, bytes.second});
      flows_of_[ends.first].push_back(flows_.size() - 1);
      flows_of_[ends.second].push_back(flows_.size() - 1);
    }
    for (std::size_t f = 0; f < flows_.size(); ++f) route(f, +1);
    find_peak();
  }

  // Passes over every pair of sibling nodes until one changes nothing.
  bool run() {
    bool moved = false;
    const std::vector<std::vector<int>> families = siblings();
    for (int pass = 0; pass < kPasses && work_ < kWorkBudget; ++pass) {
      bool improved = false;
      for (const std::vector<int>& family : families)
        for (std::size_t i = 0; i < family.size() && work_ < kWorkBudget; ++i)
          for (std::size_t j = i + 1; j < family.size() && work_ < kWorkBudget; ++j)
            if (try_exchange(family[i], family[j])) improved = true;
      if (!improved) break;
      moved = true;
    }
    if (moved)
      for (int& node : node_of_rank_) node = where_[node];
    return moved;
  }

 private:
  struct Flow {
    int a, b;                  // nodes, as they were on entry (content)
    std::uint64_t to_b, to_a;  // bytes each way
  };

  // Nodes under one lowest switch with the same slots, in position order:
  // exchanging two's ranks keeps every node's load and every pair's hops.
  std::vector<std::vector<int>> siblings() const {
    const auto ports = static_cast<std::size_t>(geo_.network().dims[0]);
    std::map<std::pair<std::size_t, std::size_t>, std::vector<int>> by_switch;  // (switch, slots)
    for (int k = 0; k < geo_.size(); ++k)
      by_switch[{geo_.coord_index(k) / ports, allocation_.slots(k).size()}].push_back(k);
    std::vector<std::vector<int>> out;
    for (auto& [key, family] : by_switch)
      if (family.size() > 1) out.push_back(std::move(family));
    return out;
  }

  void add(std::size_t from, std::size_t to, long long bytes) {
    if (bytes == 0) return;
    for_each_link(geo_.network(), from, to, [&](std::size_t link) {
      ++work_;
      if (stamp_[link] != epoch_) stamp_[link] = epoch_, touched_.emplace_back(link, load_[link]);
      load_[link] = static_cast<std::uint64_t>(static_cast<long long>(load_[link]) + bytes);
    });
  }

  // A flow's bytes (sign -1: taken off) along its routes as its ends sit now.
  void route(std::size_t f, long long sign) {
    const Flow& flow = flows_[f];
    const std::size_t a = geo_.coord_index(where_[flow.a]), b = geo_.coord_index(where_[flow.b]);
    add(a, b, sign * static_cast<long long>(flow.to_b));
    add(b, a, sign * static_cast<long long>(flow.to_a));
  }

  void find_peak() {
    peak_ = *std::max_element(load_.begin(), load_.end());
    at_peak_ = static_cast<std::size_t>(std::count(load_.begin(), load_.end(), peak_));
  }

  // Exchanges the contents of positions x and y; kept when the links are
  // better by (peak, links at the peak, sum of squares), else undone.
  bool try_exchange(int x, int y) {
    ++epoch_;
    touched_.clear();
    const int u = content_[x], v = content_[y];
    auto reroute = [&](long long sign) {
      for (std::size_t f : flows_of_[u]) route(f, sign);
      for (std::size_t f : flows_of_[v])
        if (flows_[f].a != u && flows_[f].b != u) route(f, sign);
    };
    reroute(-1);
    std::swap(where_[u], where_[v]);
    reroute(+1);
    std::uint64_t peak = 0;
    long long at_peak = static_cast<long long>(at_peak_);
    Wide squares = 0;  // exact: a no-op exchange must not look like a gain
    for (const auto& [link, before] : touched_) {
      peak = std::max(peak, load_[link]);
      at_peak += (load_[link] == peak_) - (before == peak_);
      const auto now = static_cast<Wide>(load_[link]), then = static_cast<Wide>(before);
      squares += (now - then) * (now + then);
    }
    const bool better = peak <= peak_ && (at_peak < static_cast<long long>(at_peak_) ||
                                          (at_peak == static_cast<long long>(at_peak_) && squares < 0));
    if (better) {
      std::swap(content_[x], content_[y]);
      if (at_peak == 0)
        find_peak();
      else
        at_peak_ = static_cast<std::size_t>(at_peak);
      return true;
    }
    for (const auto& [link, before] : touched_) load_[link] = before;
    std::swap(where_[u], where_[v]);
    return false;
  }

  const NodeGeometry& geo_;
  const Allocation& allocation_;
  std::vector<int>& node_of_rank_;
  std::vector<int> where_;    // position of each entry node's ranks
  std::vector<int> content_;  // entry node whose ranks sit at each position
  std::vector<Flow> flows_;
  std::vector<std::vector<std::size_t>> flows_of_;  // per entry node
  std::vector<std::uint64_t> load_;
  std::vector<std::uint32_t> stamp_;
  std::uint32_t epoch_ = 0;
  std::vector<std::pair<std::size_t, std::uint64_t>> touched_;  // (link, load before this trial)
  std::uint64_t peak_ = 0;
  std::size_t at_peak_ = 0;
  std::uint64_t work_ = 0;
};

class PortSwaps : public RankRefiner {
 public:
  bool refine(const Problem& problem, std::vector<int>& node_of_rank) const override {
    if (!has_parallel_links(problem.geometry.network()) || problem.geometry.size() > static_cast<int>(kLargeAllocation))
      return false;
    return PortRefiner(problem, node_of_rank).run();
  }
};

}  // namespace

std::unique_ptr<RankRefiner> make_port_swaps() { return std::make_unique<PortSwaps>(); }

}  // namespace rankmap::detail
