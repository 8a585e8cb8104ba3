#include "rankmap/machine.hpp"

#include "rankmap/error.hpp"

namespace rankmap {

namespace {
std::size_t slot_of(std::string_view host, std::size_t mask) { return std::hash<std::string_view>{}(host)&mask; }
}  // namespace

int Machine::find_host(std::string_view host) const {
  if (host_slots_.empty()) return -1;
  const std::size_t mask = host_slots_.size() - 1;
  for (std::size_t s = slot_of(host, mask);; s = (s + 1) & mask) {
    const int i = host_slots_[s];
    if (i < 0 || nodes[static_cast<std::size_t>(i)].host == host) return i;
  }
}

std::string Machine::link_name(std::size_t link) const {
  return network.link_name(link, [this](std::size_t position) {
    const int node = position < node_at_coord_.size() ? node_at_coord_[position] : -1;
    return node < 0 ? "node " + std::to_string(position) : nodes[static_cast<std::size_t>(node)].host;
  });
}

void Machine::index(const std::string& source) {
  std::size_t size = 16;
  while (size < 2 * nodes.size()) size *= 2;
  host_slots_.assign(size, -1);
  const std::size_t mask = size - 1;
  node_at_coord_.assign(network.num_coords(), -1);
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    const Node& n = nodes[i];
    std::size_t s = slot_of(n.host, mask);
    for (; host_slots_[s] >= 0; s = (s + 1) & mask)
      if (nodes[static_cast<std::size_t>(host_slots_[s])].host == n.host)
        throw Error(source, 0, "host '" + n.host + "' is listed twice");
    host_slots_[s] = i;
    if (node_at_coord_[n.coord_index] >= 0)
      throw Error(
          source, 0,
          "hosts '" + nodes[node_at_coord_[n.coord_index]].host + "' and '" + n.host + "' have the same coordinates");
    node_at_coord_[n.coord_index] = i;
  }
}

}  // namespace rankmap
