#include "rankmap/machine.hpp"

#include "rankmap/error.hpp"

namespace rankmap {

int Machine::find_host(std::string_view host) const {
  auto it = host_index_.find(host);
  return it == host_index_.end() ? -1 : it->second;
}

void Machine::index(const std::string& source) {
  host_index_.clear();
  host_index_.reserve(nodes.size());  // no rehash on the way: 10^7 hosts are read in seconds
  node_at_coord_.assign(network.num_coords(), -1);
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    const Node& n = nodes[i];
    if (!host_index_.emplace(n.host, i).second) throw Error(source, 0, "host '" + n.host + "' is listed twice");
    if (node_at_coord_[n.coord_index] >= 0)
      throw Error(
          source, 0,
          "hosts '" + nodes[node_at_coord_[n.coord_index]].host + "' and '" + n.host + "' have the same coordinates");
    node_at_coord_[n.coord_index] = i;
  }
}

}  // namespace rankmap
