// The engine on a torus or mesh (network_kind.hpp): halves across the
// widest dimension, neighbours one hop away, Scotch's torusXD or meshXD,
// and boxes of nodes (cartesian.cpp's node_boxes).
#include <algorithm>
#include <sstream>

#include "map/kinds/network_kind.hpp"

namespace rankmap::detail {
namespace {

class TorusKind : public EngineKind {
 public:
  std::size_t halve(std::vector<int>& items, const std::function<int(int)>& node_of,
                    const NodeGeometry& geo) const override {
    const Network& net = geo.network();
    int dim = 0, widest = -1;
    for (int d = 0; d < net.num_dims(); ++d) {
      int lo = net.dims[d], hi = -1;
      for (int p : items) lo = std::min(lo, geo.coord(node_of(p), d)), hi = std::max(hi, geo.coord(node_of(p), d));
      if (hi - lo > widest) widest = hi - lo, dim = d;
    }
    std::stable_sort(items.begin(), items.end(), [&](int a, int b) {
      const int ca = geo.coord(node_of(a), dim), cb = geo.coord(node_of(b), dim);
      return ca != cb ? ca < cb : geo.coord_index(node_of(a)) < geo.coord_index(node_of(b));
    });
    return items.size() / 2;
  }

  void neighbours(const Network& net, std::size_t c, const std::function<void(std::size_t)>& visit) const override {
    std::size_t stride = 1;
    for (int d = 0; d < net.num_dims(); ++d) {
      const int n = net.dims[d];
      const int x = static_cast<int>((c / stride) % n);
      for (int step : {-1, +1}) {
        int y = x + step;
        if (y < 0 || y >= n) {
          if (!net.wrap[d] || n <= 2) continue;
          y = (y + n) % n;
        }
        visit(c - static_cast<std::size_t>(x) * stride + static_cast<std::size_t>(y) * stride);
      }
      stride *= static_cast<std::size_t>(n);
    }
  }

  std::string scotch_target(const Network& net) const override {
    // Scotch's torus wraps in every dimension; a mesh is its own target.
    // A dimension of 2 is one link either way (Fugaku's a and c), so only
    // a longer one without wrap makes the machine a mesh for Scotch.
    bool mesh = false;
    for (int d = 0; d < net.num_dims(); ++d) mesh = mesh || (!net.wrap[d] && net.dims[d] > 2);
    std::ostringstream s;
    s << (mesh ? "meshXD " : "torusXD ") << net.num_dims();
    for (int d : net.dims) s << ' ' << d;
    return s.str();
  }

  std::vector<NodeBox> boxes(const Allocation& allocation, const NodeGeometry& geo, std::size_t nodes,
                             std::size_t per_node) const override {
    return node_boxes(allocation, geo, nodes, per_node);
  }
};

}  // namespace

const EngineKind& torus_engine_kind() {
  static const TorusKind kind;
  return kind;
}

}  // namespace rankmap::detail
