// The engine on a switch or fat tree, hosts included (network_kind.hpp):
// halves along the tree, top level first (hosts before their VMs); the
// nodes of one lowest switch as neighbours; Scotch's tree-leaf target with
// the same levels; and for grids, the allocation as a mesh of subtrees.
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "map/kinds/network_kind.hpp"

namespace rankmap::detail {
namespace {

// A tree has no boxes, but a grid still lays out well on one if each
// switch's nodes take a compact block of it: each level's fan-out is
// split into two near-square factors, making a mesh whose lowest two
// dimensions are a leaf's ports, the next two its siblings, and so on.
// The mesh's distances only rank the layouts; the engine scores them on
// the tree. Whole allocations only (every node, per_node slots each).
std::vector<NodeBox> subtree_mesh(const Allocation& allocation, const NodeGeometry& geo, std::size_t per_node) {
  const Network& net = geo.network();
  if (static_cast<std::size_t>(geo.size()) != net.num_coords()) return {};
  for (int k = 0; k < geo.size(); ++k)
    if (allocation.slots(k).size() != per_node) return {};
  NodeBox box;
  std::vector<int> factor_of;  // per mesh dimension, its tree level
  for (int level = 0; level < net.num_dims(); ++level) {
    const int f = net.dims[level];
    int a = 1;
    for (int x = 1; x * x <= f; ++x)
      if (f % x == 0) a = x;
    for (int side : {f / a, a})
      if (side > 1) box.net.dims.push_back(side), factor_of.push_back(level);
  }
  if (box.net.dims.empty() || box.net.num_dims() > kMaxDims) return {};
  box.net.wrap.assign(box.net.dims.size(), false);
  box.net.routing = default_routing(box.net.num_dims());
  box.net.t_hop_ns = net.t_hop_ns, box.net.t_inj_ns = net.t_inj_ns, box.net.t_ej_ns = net.t_ej_ns;
  std::vector<int> position_at(net.num_coords(), -1);
  for (int k = 0; k < geo.size(); ++k) position_at[geo.coord_index(k)] = k;
  box.node_at.resize(net.num_coords());
  for (std::size_t i = 0; i < net.num_coords(); ++i) {
    // Mesh coordinates (X fastest) to each level's digit, then to the
    // tree position (lowest level fastest).
    std::vector<int> digit(net.num_dims(), 0), scale(net.num_dims(), 1);
    std::size_t rest = i;
    for (int d = 0; d < box.net.num_dims(); ++d) {
      const int c = static_cast<int>(rest % static_cast<std::size_t>(box.net.dims[d]));
      rest /= static_cast<std::size_t>(box.net.dims[d]);
      digit[factor_of[d]] += c * scale[factor_of[d]];
      scale[factor_of[d]] *= box.net.dims[d];
    }
    std::size_t position = 0;
    for (int level = net.num_dims() - 1; level >= 0; --level)
      position = position * static_cast<std::size_t>(net.dims[level]) + static_cast<std::size_t>(digit[level]);
    box.node_at[i] = position_at[position];
  }
  return {box};
}

class TreeKind : public EngineKind {
 public:
  // In leaf order, cut between two subtrees of the highest level the items
  // span, as near the middle as any such cut: whole subtrees stay together.
  std::size_t halve(std::vector<int>& items, const std::function<int(int)>& node_of,
                    const NodeGeometry& geo) const override {
    const Network& net = geo.network();
    std::stable_sort(items.begin(), items.end(),
                     [&](int a, int b) { return geo.coord_index(node_of(a)) < geo.coord_index(node_of(b)); });
    int level = -1;
    for (int d = 0; d < net.num_dims(); ++d)
      for (int p : items)
        if (geo.coord(node_of(p), d) != geo.coord(node_of(items[0]), d)) level = d;
    if (level < 0) return 0;
    const auto half = static_cast<std::ptrdiff_t>(items.size() / 2);
    std::ptrdiff_t best = -1;
    for (std::ptrdiff_t i = 1; i < static_cast<std::ptrdiff_t>(items.size()); ++i)
      if (geo.coord(node_of(items[i]), level) != geo.coord(node_of(items[i - 1]), level) &&
          (best < 0 || std::abs(i - half) < std::abs(best - half)))
        best = i;
    return static_cast<std::size_t>(best);
  }

  void neighbours(const Network& net, std::size_t c, const std::function<void(std::size_t)>& visit) const override {
    const auto ports = static_cast<std::size_t>(net.dims[0]);
    for (std::size_t first = c - c % ports, x = first; x < first + ports; ++x)
      if (x != c) visit(x);
  }

  // Scotch's tleaf lists levels from the top, each with its fan-out and the
  // cost of meeting there: rankmap's hops, 2 per level.
  std::string scotch_target(const Network& net) const override {
    std::ostringstream s;
    s << "tleaf " << net.num_dims();
    for (int d = net.num_dims() - 1; d >= 0; --d) s << ' ' << net.dims[d] << ' ' << 2 * (d + 1);
    return s.str();
  }

  std::vector<NodeBox> boxes(const Allocation& allocation, const NodeGeometry& geo, std::size_t nodes,
                             std::size_t per_node) const override {
    return nodes == allocation.size() ? subtree_mesh(allocation, geo, per_node) : std::vector<NodeBox>{};
  }
};

}  // namespace

const EngineKind& tree_engine_kind() {
  static const TreeKind kind;
  return kind;
}

}  // namespace rankmap::detail
