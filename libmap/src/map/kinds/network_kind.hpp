// What the engine does differently on each kind of network. Scores, the
// gain model and most stages see a network only through Network's hops,
// routes and links (machine.hpp); the choices here are heuristics that
// follow the network's shape. One file per kind: kind_torus.cpp (tori and
// meshes), kind_tree.cpp (switches, fat trees, VMs on hosts),
// kind_dragonfly.cpp (dragonflies and Dragonfly+). A new kind
// is one more file and one line in engine_kind(). Internal to libmap.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "map/engine.hpp"

namespace rankmap::detail {

class EngineKind {
 public:
  virtual ~EngineKind() = default;
  // Orders `items` (each standing for allocation position node_of(item))
  // so that the first `cut` and the rest are two compact halves of them;
  // returns cut (0 when they cannot be split).
  virtual std::size_t halve(std::vector<int>& items, const std::function<int(int)>& node_of,
                            const NodeGeometry& geometry) const = 0;
  // `items` split by the network's groups, whose crossings cost most (a
  // dragonfly's groups), in group order; empty where the network has none,
  // or when all items are in one.
  virtual std::vector<std::vector<int>> whole_groups(const std::vector<int>& /*items*/,
                                                     const std::function<int(int)>& /*node_of*/,
                                                     const NodeGeometry& /*geometry*/) const {
    return {};
  }
  // Calls visit(coordinate index) for each position next to c, not c.
  virtual void neighbours(const Network& net, std::size_t c, const std::function<void(std::size_t)>& visit) const = 0;
  // The whole network as a Scotch target architecture, in Scotch's text
  // form; terminals numbered as coordinate indices.
  virtual std::string scotch_target(const Network& net) const = 0;
  // Boxes of `nodes` whole nodes of per_node slots for the Cartesian
  // layouts of a grid, each shaped as a mesh or torus of its own.
  virtual std::vector<NodeBox> boxes(const Allocation& allocation, const NodeGeometry& geometry, std::size_t nodes,
                                     std::size_t per_node) const = 0;
};

const EngineKind& engine_kind(const Network& net);

// The implementations (kind_torus.cpp, kind_tree.cpp, kind_dragonfly.cpp).
const EngineKind& torus_engine_kind();
const EngineKind& tree_engine_kind();
const EngineKind& dragonfly_engine_kind();

}  // namespace rankmap::detail
