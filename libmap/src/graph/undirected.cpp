#include "graph/undirected.hpp"

#include <algorithm>

namespace rankmap::detail {

UndirectedGraph make_undirected(const Graph& g) {
  // The transpose gives each rank its incoming traffic; merging a row of the
  // graph with the same row of its transpose gives bytes both ways.
  std::vector<std::uint64_t> in_start(static_cast<std::size_t>(g.ranks) + 1, 0);
  for (std::uint32_t t : g.targets) ++in_start[t + 1];
  for (std::size_t r = 0; r < g.ranks; ++r) in_start[r + 1] += in_start[r];
  std::vector<std::uint32_t> in_source(g.num_edges());
  std::vector<std::uint64_t> in_bytes(g.num_edges());
  {
    std::vector<std::uint64_t> fill(in_start.begin(), in_start.end() - 1);
    for (std::uint32_t r = 0; r < g.ranks; ++r)  // rows in order: sources come out sorted
      for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e) {
        const std::uint64_t at = fill[g.targets[e]]++;
        in_source[at] = r;
        in_bytes[at] = g.bytes[e];
      }
  }
  UndirectedGraph u;
  u.n = g.ranks;
  u.xadj.assign(static_cast<std::size_t>(g.ranks) + 1, 0);
  u.adjncy.reserve(2 * g.num_edges());
  u.weight.reserve(2 * g.num_edges());
  for (std::uint32_t r = 0; r < g.ranks; ++r) {
    std::uint64_t i = g.offsets[r], j = in_start[r];
    while (i < g.offsets[r + 1] || j < in_start[r + 1]) {
      const std::uint32_t a = i < g.offsets[r + 1] ? g.targets[i] : UINT32_MAX;
      const std::uint32_t b = j < in_start[r + 1] ? in_source[j] : UINT32_MAX;
      const std::uint32_t v = std::min(a, b);
      std::uint64_t both = 0;
      if (a == v) both += g.bytes[i++];
      if (b == v) both += in_bytes[j++];
      if (v != r && both > 0) {
        u.adjncy.push_back(v);
        u.weight.push_back(both);
      }
    }
    u.xadj[r + 1] = u.adjncy.size();
  }
  return u;
}

UndirectedGraph induced_subgraph(const UndirectedGraph& g, const std::vector<std::uint32_t>& vertices,
                                 std::vector<int>& scratch) {
  for (std::size_t i = 0; i < vertices.size(); ++i) scratch[vertices[i]] = static_cast<int>(i);
  UndirectedGraph sub;
  sub.n = static_cast<std::uint32_t>(vertices.size());
  sub.xadj.assign(vertices.size() + 1, 0);
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    for (std::uint64_t e = g.xadj[vertices[i]]; e < g.xadj[vertices[i] + 1]; ++e)
      if (scratch[g.adjncy[e]] >= 0) {
        sub.adjncy.push_back(static_cast<std::uint32_t>(scratch[g.adjncy[e]]));
        sub.weight.push_back(g.weight[e]);
      }
    sub.xadj[i + 1] = sub.adjncy.size();
  }
  for (std::uint32_t v : vertices) scratch[v] = -1;
  return sub;
}

}  // namespace rankmap::detail
