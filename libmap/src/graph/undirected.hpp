// The graph made undirected for partitioners: an edge's weight is the bytes
// sent both ways; self-traffic and pairs without bytes are dropped. METIS
// and Scotch both want this shape. Internal to libmap.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "rankmap/graph.hpp"

namespace rankmap::detail {

struct UndirectedGraph {
  std::uint32_t n = 0;
  std::vector<std::uint64_t> xadj;    // n + 1
  std::vector<std::uint32_t> adjncy;  // both directions of every edge
  std::vector<std::uint64_t> weight;  // bytes both ways
};

UndirectedGraph make_undirected(const Graph& graph);

// The subgraph on `vertices` (renumbered 0.. in that order). `scratch` has
// one entry per vertex of g, all -1; it is left that way.
UndirectedGraph induced_subgraph(const UndirectedGraph& g, const std::vector<std::uint32_t>& vertices,
                                 std::vector<int>& scratch);

// induced_subgraph() of g from several threads at once: a scratch array for
// each subgraph being made, kept for the next.
class InducedSubgraphs {
 public:
  explicit InducedSubgraphs(const UndirectedGraph& g) : g_(g) {}
  UndirectedGraph of(const std::vector<std::uint32_t>& vertices);

 private:
  const UndirectedGraph& g_;
  std::mutex lock_;
  std::vector<std::vector<int>> spare_;
};

}  // namespace rankmap::detail
