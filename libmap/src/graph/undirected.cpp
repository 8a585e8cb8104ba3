#include "graph/undirected.hpp"

#include <algorithm>
#include <optional>

#include "core/huge_pages.hpp"
#include "core/prefetch.hpp"

namespace rankmap::detail {
namespace {

// Most graphs list every pair both ways (stencils, profiles of symmetric
// exchanges). Then each row already is the undirected row, and the weights
// need only the reverse edge's bytes: no transpose to build. Rows are
// visited in order, so the reverses of row r's upper edges (t, r), t > r,
// come up in row t in ascending r: a cursor per row finds each in one step
// (a binary search per edge took 1.0 s on a million-rank stencil). Empty
// when some edge has no reverse.
std::optional<UndirectedGraph> undirected_if_symmetric(const Graph& g) {
  const std::uint64_t edges = g.num_edges();
  UndirectedGraph u;
  u.n = g.ranks;
  u.xadj = huge_vector<std::uint64_t>(static_cast<std::size_t>(g.ranks) + 1);
  assign_huge(u.adjncy, g.targets.begin(), g.targets.end());
  u.weight = huge_vector<std::uint64_t>(edges);  // bytes both ways, at both edges of a pair
  std::vector<std::uint64_t> cursor = huge_vector<std::uint64_t>(g.ranks);
  std::copy(g.offsets.begin(), g.offsets.end() - 1, cursor.begin());
  for (std::uint32_t r = 0; r < g.ranks; ++r) {
    for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e) {
      // Rows of renumbered ranks are far apart in memory: the cursors are
      // fetched 16 edges ahead and what they point at 8 ahead, so that
      // several cache misses are under way at once.
      if (e + 16 < edges) detail::prefetch(cursor, g.targets[e + 16]);
      if (e + 8 < edges) {
        const std::uint64_t ahead = cursor[g.targets[e + 8]];
        detail::prefetch(g.targets, ahead);
        detail::prefetch(g.bytes, ahead);
      }
      const std::uint32_t t = g.targets[e];
      if (t <= r) continue;  // self-traffic (weight 0: dropped), or done from row t
      const std::uint64_t back = cursor[t];
      if (back >= g.offsets[t + 1] || g.targets[back] != r) return std::nullopt;
      cursor[t] = back + 1;
      u.weight[e] = u.weight[back] = g.bytes[e] + g.bytes[back];
    }
  }
  // Every lower edge of every row was some upper edge's reverse.
  for (std::uint32_t t = 0; t < g.ranks; ++t)
    if (cursor[t] < g.offsets[t + 1] && g.targets[cursor[t]] < t) return std::nullopt;
  // Drop self-traffic and pairs without bytes, in place.
  std::uint64_t kept = 0;
  for (std::uint32_t r = 0; r < g.ranks; ++r) {
    for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e)
      if (u.weight[e] > 0) {
        u.adjncy[kept] = u.adjncy[e];
        u.weight[kept++] = u.weight[e];
      }
    u.xadj[r + 1] = kept;
  }
  u.adjncy.resize(kept);
  u.weight.resize(kept);
  return u;
}

}  // namespace

UndirectedGraph make_undirected(const Graph& g) {
  if (std::optional<UndirectedGraph> u = undirected_if_symmetric(g)) return std::move(*u);
  // The transpose gives each rank its incoming traffic; merging a row of the
  // graph with the same row of its transpose gives bytes both ways.
  std::vector<std::uint64_t> in_start = huge_vector<std::uint64_t>(static_cast<std::size_t>(g.ranks) + 1);
  for (std::uint32_t t : g.targets) ++in_start[t + 1];
  for (std::size_t r = 0; r < g.ranks; ++r) in_start[r + 1] += in_start[r];
  std::vector<std::uint32_t> in_source = huge_vector<std::uint32_t>(g.num_edges());
  std::vector<std::uint64_t> in_bytes = huge_vector<std::uint64_t>(g.num_edges());
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
  u.xadj = huge_vector<std::uint64_t>(static_cast<std::size_t>(g.ranks) + 1);
  reserve_huge(u.adjncy, 2 * g.num_edges());
  reserve_huge(u.weight, 2 * g.num_edges());
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
