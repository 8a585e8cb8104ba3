#include "machine/node_geometry.hpp"

#include <algorithm>

namespace rankmap::detail {

NodeGeometry::NodeGeometry(const Machine& machine, const Allocation& allocation)
    : net_(machine.network), coord_(allocation.size()), coord_index_(allocation.size()) {
  for (std::size_t k = 0; k < allocation.size(); ++k) {
    const Node& node = machine.nodes[allocation.nodes[k]];
    std::copy(node.coord.begin(), node.coord.end(), coord_[k].begin());
    coord_index_[k] = node.coord_index;
  }
  for (const TreeLevel& level : net_.levels) host_levels_ += level.host;
}

}  // namespace rankmap::detail
