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
  int hops(int a, int b) const {
    int h = 0;
    for (int d = 0; d < net_.num_dims(); ++d) h += net_.hops_1d(d, coord_[a][d], coord_[b][d]);
    return h;
  }
  int coord(int node, int dim) const { return coord_[node][dim]; }
  const std::array<int, kMaxDims>& coords(int node) const { return coord_[node]; }
  std::size_t coord_index(int node) const { return coord_index_[node]; }
  const Network& network() const { return net_; }
  int size() const { return static_cast<int>(coord_.size()); }

 private:
  const Network& net_;
  std::vector<std::array<int, kMaxDims>> coord_;
  std::vector<std::size_t> coord_index_;
};

}  // namespace rankmap::detail
