#include <algorithm>
#include <array>

#include "machine/node_geometry.hpp"
#include "rankmap/error.hpp"
#include "rankmap/metrics.hpp"
#include "score/link_loads.hpp"
#include "score/mapping_size.hpp"

namespace rankmap {

Metrics evaluate(const Graph& graph, const Machine& machine, const Allocation& allocation,
                 const Mapping& mapping) {
  detail::require_mapping_of(graph, mapping);
  const Network& net = machine.network;
  const std::size_t nalloc = allocation.size();
  const detail::NodeGeometry geometry(machine, allocation);

  // Per rank: its node and package, looked up once rather than per edge.
  std::vector<int> node_of(graph.ranks), package_of(graph.ranks);
  for (std::uint32_t r = 0; r < graph.ranks; ++r) {
    const Placement p = mapping.ranks[r];
    node_of[r] = p.node;
    package_of[r] = allocation.slots(p.node)[p.slot].package;
  }

  Metrics m;
  m.ranks = graph.ranks;
  std::vector<char> used(nalloc, 0);
  for (const Placement& p : mapping.ranks) used[p.node] = 1;
  m.nodes = static_cast<std::uint64_t>(std::count(used.begin(), used.end(), 1));

  // One pass over the edges, a node's ranks at a time: traffic to each
  // other node is added up first (far fewer node pairs than rank pairs), then
  // each pair's hops are counted and its route loaded once.
  std::vector<std::uint32_t> first_rank(nalloc + 1, 0), ranks_by_node(graph.ranks);
  for (const Placement& p : mapping.ranks) ++first_rank[p.node + 1];
  for (std::size_t k = 0; k < nalloc; ++k) first_rank[k + 1] += first_rank[k];
  {
    std::vector<std::uint32_t> fill(first_rank.begin(), first_rank.end() - 1);
    for (std::uint32_t r = 0; r < graph.ranks; ++r) ranks_by_node[fill[mapping.ranks[r].node]++] = r;
  }
  detail::LinkLoads loads(net);
  std::uint64_t distinct_bytes = 0, distinct_msgs = 0;
  std::vector<std::uint64_t> pair_bytes(nalloc, 0), pair_msgs(nalloc, 0);
  std::vector<char> touched_mark(nalloc, 0);
  std::vector<std::uint32_t> touched;
  for (std::size_t u = 0; u < nalloc; ++u) {
    for (std::uint32_t i = first_rank[u]; i < first_rank[u + 1]; ++i) {
      // A node's ranks may lie anywhere in the graph: their rows are
      // fetched a few ranks ahead so that the misses overlap.
      if (i + 8 < graph.ranks) __builtin_prefetch(&graph.offsets[ranks_by_node[i + 8]]);
      if (i + 4 < graph.ranks) {
        const std::uint64_t ahead = graph.offsets[ranks_by_node[i + 4]];
        __builtin_prefetch(&graph.targets[ahead]);
        __builtin_prefetch(&graph.bytes[ahead]);
        __builtin_prefetch(&graph.msgs[ahead]);
      }
      const std::uint32_t r = ranks_by_node[i];
      for (std::uint64_t e = graph.offsets[r]; e < graph.offsets[r + 1]; ++e) {
        const std::uint32_t s = graph.targets[e];
        const std::uint64_t b = graph.bytes[e], msg = graph.msgs[e];
        m.total_bytes += b;
        m.total_msgs += msg;
        if (s == r) continue;  // self-traffic never leaves the process
        distinct_bytes += b;
        distinct_msgs += msg;
        const auto v = static_cast<std::uint32_t>(node_of[s]);
        if (v == u) {
          if (package_of[r] != package_of[s]) m.cross_socket_bytes += b;
          continue;
        }
        if (!(b || msg)) continue;
        if (!touched_mark[v]) touched_mark[v] = 1, touched.push_back(v);
        pair_bytes[v] += b;
        pair_msgs[v] += msg;
      }
    }
    std::sort(touched.begin(), touched.end());  // a fixed order: sums are exact anyway
    for (std::uint32_t v : touched) {
      const std::uint64_t b = pair_bytes[v], msg = pair_msgs[v];
      const int h = geometry.hops(static_cast<int>(u), static_cast<int>(v));
      m.inter_node_bytes += b;
      m.inter_node_msgs += msg;
      m.hop_bytes += b * static_cast<std::uint64_t>(h);
      m.hop_msgs += msg * static_cast<std::uint64_t>(h);
      m.max_dilation = std::max(m.max_dilation, h);
      if (b) loads.add_route(geometry.coords(static_cast<int>(u)), geometry.coords(static_cast<int>(v)), b);
      pair_bytes[v] = pair_msgs[v] = 0;
      touched_mark[v] = 0;
    }
    touched.clear();
  }
  m.avg_dilation = distinct_bytes ? static_cast<double>(m.hop_bytes) / static_cast<double>(distinct_bytes) : 0;
  m.avg_hops_by_msgs = distinct_msgs ? static_cast<double>(m.hop_msgs) / static_cast<double>(distinct_msgs) : 0;
  m.link_bytes = loads.take();
  m.max_link_bytes = m.link_bytes.empty() ? 0 : *std::max_element(m.link_bytes.begin(), m.link_bytes.end());
  return m;
}

}  // namespace rankmap
