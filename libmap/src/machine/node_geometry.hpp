// Coordinates of the allocated nodes and the hops between them, looked up
// once: the scores and every stage of the engine need them per edge.
// Internal to libmap.
#pragma once

#include <array>
#include <vector>

#include "rankmap/allocation.hpp"

namespace rankmap::detail {

// Hop distances between allocated nodes (positions in the Allocation).
class NodeGeometry {
 public:
  NodeGeometry(const Machine& machine, const Allocation& allocation);
  int hops(int a, int b) const { return net_.hops(coord_[a], coord_[b]); }
  // On a tree with hosts: whether two nodes are VMs of one physical host.
  bool same_host(int a, int b) const { return a != b && host_levels_ > 0 && hops(a, b) <= 2 * host_levels_; }
  int coord(int node, int dim) const { return coord_[node][dim]; }
  const std::array<int, kMaxDims>& coords(int node) const { return coord_[node]; }
  std::size_t coord_index(int node) const { return coord_index_[node]; }
  // A dragonfly's group of the node (0 on other networks).
  int group_of(int node) const { return net_.group_of(coord_index_[node]); }
  const Network& network() const { return net_; }
  int size() const { return static_cast<int>(coord_.size()); }

 private:
  const Network& net_;
  std::vector<std::array<int, kMaxDims>> coord_;
  std::vector<std::size_t> coord_index_;
  int host_levels_ = 0;  // tree levels that are hosts (the lowest)
};

}  // namespace rankmap::detail
