// The engine on a dragonfly or Dragonfly+ (network_kind.hpp). A node's
// coordinates are {node, router, chassis, group}, so the tree kind's
// halving (whole groups first, then chassis, then routers) and its
// neighbours (the nodes of one router) serve as they are: what keeps
// bytes inside groups. Scotch gets a tree-leaf target of the same levels,
// each priced at its route's hops. The joint bisection cuts the ranks into
// whole groups in one step (whole_groups), not by halves.
#include <map>
#include <sstream>

#include "map/kinds/network_kind.hpp"

namespace rankmap::detail {
namespace {

class DragonflyKind : public EngineKind {
 public:
  std::size_t halve(std::vector<int>& items, const std::function<int(int)>& node_of,
                    const NodeGeometry& geometry) const override {
    return tree_engine_kind().halve(items, node_of, geometry);
  }

  std::vector<std::vector<int>> whole_groups(const std::vector<int>& items, const std::function<int(int)>& node_of,
                                             const NodeGeometry& geometry) const override {
    std::map<int, std::vector<int>> by_group;
    for (int item : items) by_group[geometry.group_of(node_of(item))].push_back(item);
    std::vector<std::vector<int>> groups;
    if (by_group.size() < 2) return groups;
    for (auto& [group, members] : by_group) groups.push_back(std::move(members));
    return groups;
  }

  void neighbours(const Network& net, std::size_t c, const std::function<void(std::size_t)>& visit) const override {
    tree_engine_kind().neighbours(net, c, visit);
  }

  // Levels from the top, each with the hops of two nodes that meet there:
  // another group 3 plus the local hops at both ends (one each, taken as
  // typical), another chassis 4 (green and black), another router of the
  // chassis 3 (a Dragonfly+ leaf: 4, through a spine), one router 2.
  // Levels of one are left out.
  std::string scotch_target(const Network& net) const override {
    const DragonflyShape& s = net.dragonfly;
    std::vector<std::pair<int, int>> levels;  // fan-out, cost
    if (s.groups > 1) levels.emplace_back(s.groups, 5);
    if (s.chassis > 1) levels.emplace_back(s.chassis, 4);
    if (s.routers > 1) levels.emplace_back(s.routers, s.plus() ? 4 : 3);
    if (s.nodes > 1 || levels.empty()) levels.emplace_back(s.nodes, 2);
    std::ostringstream out;
    out << "tleaf " << levels.size();
    for (const auto& [fanout, cost] : levels) out << ' ' << fanout << ' ' << cost;
    return out.str();
  }

  std::vector<NodeBox> boxes(const Allocation& allocation, const NodeGeometry& geometry, std::size_t nodes,
                             std::size_t per_node) const override {
    return tree_engine_kind().boxes(allocation, geometry, nodes, per_node);
  }
};

}  // namespace

const EngineKind& dragonfly_engine_kind() {
  static const DragonflyKind kind;
  return kind;
}

}  // namespace rankmap::detail
