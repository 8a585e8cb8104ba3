// Synthetic communication graphs: structured-grid stencils.
#pragma once

#include <cstdint>
#include <vector>

#include "rankmap/graph.hpp"

namespace rankmap {

struct StencilSpec {
  std::vector<int> dims;       // ranks along each axis, X fastest in rank order
  bool full = false;           // false: faces only (2d+1 points); true: 3^d points
  bool periodic = false;       // neighbours wrap around the grid
  std::uint64_t bytes = 1;     // bytes sent to each neighbour, one message
};

Graph make_stencil(const StencilSpec& spec);

}  // namespace rankmap
