#include "graph/undirected.hpp"

#include <algorithm>
#include <optional>

#include "core/huge_pages.hpp"
#include "core/prefetch.hpp"
#include "core/workers.hpp"

namespace rankmap::detail {
namespace {

// Most graphs list every pair both ways (stencils, profiles of symmetric
// exchanges). Then each row already is the undirected row, and the weights
// need only the reverse edge's bytes: no transpose to build. Rows are
// visited in order, so the reverses of row r's upper edges (t, r), t > r,
// come up in row t in ascending r: a cursor per row finds each in one step
// (a binary search per edge took 1.0 s on a million-rank stencil).
//
// Rows [begin, end) on one thread: its cursors start at each later row's
// first entry >= begin. Every weight is written once, by the thread of the
// smaller end's row, so ranges never write the same entry. False when some
// upper edge of these rows has no reverse, or some entry of a later row
// naming one of these rows is no upper edge's reverse.
bool pair_weights(const Graph& g, std::uint32_t begin, std::uint32_t end, std::vector<std::uint64_t>& weight) {
  const std::uint64_t edges = g.num_edges();
  auto row_begin = [&](std::uint32_t t) { return g.targets.begin() + static_cast<std::ptrdiff_t>(g.offsets[t]); };
  auto row_end = [&](std::uint32_t t) { return g.targets.begin() + static_cast<std::ptrdiff_t>(g.offsets[t + 1]); };
  auto first_from = [&](std::uint32_t t, std::uint32_t r) {  // position of row t's first entry >= r
    return static_cast<std::uint64_t>(std::lower_bound(row_begin(t), row_end(t), r) - g.targets.begin());
  };
  std::vector<std::uint64_t> cursor = huge_vector<std::uint64_t>(g.ranks);
  for (std::uint32_t t = begin; t < g.ranks; ++t) cursor[t] = begin == 0 ? g.offsets[t] : first_from(t, begin);
  for (std::uint32_t r = begin; r < end; ++r) {
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
      if (back >= g.offsets[t + 1] || g.targets[back] != r) return false;
      cursor[t] = back + 1;
      weight[e] = weight[back] = g.bytes[e] + g.bytes[back];
    }
  }
  // Every entry of a later row naming these rows was some upper edge's reverse.
  for (std::uint32_t t = begin; t < g.ranks; ++t)
    if (cursor[t] < g.offsets[t + 1] && g.targets[cursor[t]] < std::min(end, t)) return false;
  return true;
}

// Empty when some edge has no reverse.
std::optional<UndirectedGraph> undirected_if_symmetric(const Graph& g) {
  const std::uint64_t edges = g.num_edges();
  UndirectedGraph u;
  u.n = g.ranks;
  u.xadj = huge_vector<std::uint64_t>(static_cast<std::size_t>(g.ranks) + 1);
  assign_huge(u.adjncy, g.targets.begin(), g.targets.end());
  u.weight = huge_vector<std::uint64_t>(edges);  // bytes both ways, at both edges of a pair
  // Millions of edges: a range of rows a thread (renumbered ranks' rows are
  // cache misses, which cores overlap).
  const std::size_t ranges = ranges_for(g.ranks, edges >= kParallelEdges);
  std::vector<char> symmetric(ranges, 0);
  for_each_range(g.ranks, ranges, [&](std::size_t i, std::size_t begin, std::size_t end) {
    symmetric[i] = pair_weights(g, static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end), u.weight);
  });
  if (std::count(symmetric.begin(), symmetric.end(), 0) > 0) return std::nullopt;
  // Drop self-traffic and pairs without bytes, in place (a stencil has none).
  if (std::count(u.weight.begin(), u.weight.end(), std::uint64_t{0}) == 0) {
    std::copy(g.offsets.begin(), g.offsets.end(), u.xadj.begin());
    return u;
  }
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

// Row r of the graph merged with row r of its transpose (both sorted by
// rank): emit(v, bytes both ways) for each partner v other than r with
// bytes, in ascending v.
template <class Emit>
void merge_row(const Graph& g, const std::vector<std::uint64_t>& in_start, const std::vector<std::uint32_t>& in_source,
               const std::vector<std::uint64_t>& in_bytes, std::uint32_t r, Emit&& emit) {
  std::uint64_t i = g.offsets[r], j = in_start[r];
  while (i < g.offsets[r + 1] || j < in_start[r + 1]) {
    const std::uint32_t a = i < g.offsets[r + 1] ? g.targets[i] : UINT32_MAX;
    const std::uint32_t b = j < in_start[r + 1] ? in_source[j] : UINT32_MAX;
    const std::uint32_t v = std::min(a, b);
    std::uint64_t both = 0;
    if (a == v) both += g.bytes[i++];
    if (b == v) both += in_bytes[j++];
    if (v != r && both > 0) emit(v, both);
  }
}

}  // namespace

UndirectedGraph make_undirected(const Graph& g) {
  if (std::optional<UndirectedGraph> u = undirected_if_symmetric(g)) return std::move(*u);
  // The transpose gives each rank its incoming traffic; merging a row of the
  // graph with the same row of its transpose gives bytes both ways.
  // Millions of edges: the transpose a range of receivers a thread (each
  // reads every edge, in row order, so its sources come out sorted, and
  // writes only its receivers' entries), the merge a range of rows a thread
  // (counted first, so each row's place is known).
  const std::uint64_t edges = g.num_edges();
  const std::size_t ranges = ranges_for(g.ranks, edges >= kParallelEdges);
  std::vector<std::uint64_t> in_start = huge_vector<std::uint64_t>(static_cast<std::size_t>(g.ranks) + 1);
  for_each_range(g.ranks, ranges, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::uint32_t t : g.targets)
      if (t >= begin && t < end) ++in_start[t + 1];
  });
  for (std::size_t r = 0; r < g.ranks; ++r) in_start[r + 1] += in_start[r];
  std::vector<std::uint32_t> in_source = huge_vector<std::uint32_t>(edges);
  std::vector<std::uint64_t> in_bytes = huge_vector<std::uint64_t>(edges);
  for_each_range(g.ranks, ranges, [&](std::size_t, std::size_t begin, std::size_t end) {
    std::vector<std::uint64_t> fill(in_start.begin() + static_cast<std::ptrdiff_t>(begin),
                                    in_start.begin() + static_cast<std::ptrdiff_t>(end));
    for (std::uint32_t r = 0; r < g.ranks; ++r)
      for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e) {
        const std::uint32_t t = g.targets[e];
        if (t < begin || t >= end) continue;
        const std::uint64_t at = fill[t - begin]++;
        in_source[at] = r;
        in_bytes[at] = g.bytes[e];
      }
  });
  UndirectedGraph u;
  u.n = g.ranks;
  u.xadj = huge_vector<std::uint64_t>(static_cast<std::size_t>(g.ranks) + 1);
  for_each_range(g.ranks, ranges, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (auto r = static_cast<std::uint32_t>(begin); r < end; ++r)
      merge_row(g, in_start, in_source, in_bytes, r, [&](std::uint32_t, std::uint64_t) { ++u.xadj[r + 1]; });
  });
  for (std::size_t r = 0; r < g.ranks; ++r) u.xadj[r + 1] += u.xadj[r];
  u.adjncy = huge_vector<std::uint32_t>(u.xadj[g.ranks]);
  u.weight = huge_vector<std::uint64_t>(u.xadj[g.ranks]);
  for_each_range(g.ranks, ranges, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (auto r = static_cast<std::uint32_t>(begin); r < end; ++r) {
      std::uint64_t at = u.xadj[r];
      merge_row(g, in_start, in_source, in_bytes, r, [&](std::uint32_t v, std::uint64_t both) {
        u.adjncy[at] = v;
        u.weight[at++] = both;
      });
    }
  });
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

UndirectedGraph InducedSubgraphs::of(const std::vector<std::uint32_t>& vertices) {
  std::vector<int> scratch;
  {
    const std::lock_guard<std::mutex> guard(lock_);
    if (spare_.empty()) {
      scratch.assign(g_.n, -1);
    } else {
      scratch = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  UndirectedGraph sub = induced_subgraph(g_, vertices, scratch);
  const std::lock_guard<std::mutex> guard(lock_);
  spare_.push_back(std::move(scratch));
  return sub;
}

}  // namespace rankmap::detail
