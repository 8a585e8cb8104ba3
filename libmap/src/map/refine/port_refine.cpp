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

#include "map/refine/trial_loads.hpp"
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
        loads_(geo_.network().num_links()) {
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
    loads_.find_peak();
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
      loads_.add(link, bytes);
    });
  }

  // A flow's bytes (sign -1: taken off) along its routes as its ends sit now.
  void route(std::size_t f, long long sign) {
    const Flow& flow = flows_[f];
    const std::size_t a = geo_.coord_index(where_[flow.a]), b = geo_.coord_index(where_[flow.b]);
    add(a, b, sign * static_cast<long long>(flow.to_b));
    add(b, a, sign * static_cast<long long>(flow.to_a));
  }

  // Exchanges the contents of positions x and y; kept when the links are
  // better by (peak, links at the peak, sum of squares), else undone.
  bool try_exchange(int x, int y) {
    loads_.begin();
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
    Wide squares = 0;  // exact: a no-op exchange must not look like a gain
    for (const auto& [link, before] : loads_.touched()) {
      peak = std::max(peak, loads_[link]);
      const auto now = static_cast<Wide>(loads_[link]), then = static_cast<Wide>(before);
      squares += (now - then) * (now + then);
    }
    const long long at_peak = loads_.at_peak_after(), was = static_cast<long long>(loads_.at_peak());
    if (peak <= loads_.peak() && (at_peak < was || (at_peak == was && squares < 0))) {
      std::swap(content_[x], content_[y]);
      loads_.keep(at_peak);
      return true;
    }
    loads_.undo();
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
  TrialLoads loads_;
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
