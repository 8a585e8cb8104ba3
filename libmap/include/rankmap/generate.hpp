// Synthetic communication graphs, for tests, examples and benchmarks.
#pragma once

#include <cstdint>
#include <vector>

#include "rankmap/graph.hpp"

namespace rankmap {

// A structured-grid halo exchange; ranks X fastest.
struct StencilSpec {
  std::vector<int> dims;    // ranks along each axis
  bool full = false;        // false: faces only (2d+1 points); true: 3^d points
  bool periodic = false;    // neighbours wrap around the grid
  std::uint64_t bytes = 1;  // bytes sent to each neighbour, one message
};
Graph make_stencil(const StencilSpec& spec);

// An unstructured code: a random 3D mesh (points in a unit cube joined to
// their near neighbours) cut into `ranks` parts by METIS; a rank sends
// `bytes` per mesh edge it shares with another rank.
struct IrregularSpec {
  std::uint32_t ranks = 64;
  std::uint32_t cells_per_rank = 64;
  std::uint64_t bytes = 1024;
  std::uint64_t seed = 1;
};
Graph make_irregular(const IrregularSpec& spec);

// A particle code: ranks are random points in the unit cube; ranks closer
// than the radius that gives `degree` neighbours on average exchange up to
// `bytes` each way, falling with the square of (1 - distance / radius).
struct GeometricSpec {
  std::uint32_t ranks = 64;
  double degree = 10;
  std::uint64_t bytes = 1 << 20;
  std::uint64_t seed = 1;
};
Graph make_geometric(const GeometricSpec& spec);

// A 2D process grid (rows x cols, row-major ranks) with an all-to-all inside
// every row, like the transposes of FFT and PME codes; optionally one inside
// every column too.
struct RowAlltoallSpec {
  int rows = 8;
  int cols = 8;
  std::uint64_t row_bytes = 1024;  // to each rank of the same row
  std::uint64_t col_bytes = 0;     // to each rank of the same column
};
Graph make_row_alltoall(const RowAlltoallSpec& spec);

// The same traffic with the ranks renumbered by a seeded uniform random
// permutation: old rank r becomes rank p[r]. A mapper that finds structure
// in the graph maps both equally well; one that reads it from rank order
// does not.
Graph renumber_ranks(const Graph& graph, std::uint64_t seed);

}  // namespace rankmap
