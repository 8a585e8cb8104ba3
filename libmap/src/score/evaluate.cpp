#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "core/huge_pages.hpp"
#include "core/prefetch.hpp"
#include "core/sparse_accumulator.hpp"
#include "core/workers.hpp"
#include "machine/node_geometry.hpp"
#include "rankmap/error.hpp"
#include "rankmap/metrics.hpp"
#include "score/link_loads.hpp"
#include "score/mapping_size.hpp"

namespace rankmap {

namespace {

// The scores of the traffic leaving some nodes' ranks.
struct NodeScores {
  NodeScores(const Network& net, std::size_t nodes)
      : loads(net),
        msgs_at_hops(static_cast<std::size_t>(net.diameter()) + 1, 0),
        bytes_at_hops(msgs_at_hops.size(), 0),
        to_node(nodes) {}

  std::uint64_t total_bytes = 0, total_msgs = 0, distinct_bytes = 0, distinct_msgs = 0;
  std::uint64_t cross_socket_bytes = 0, same_host_bytes = 0, inter_node_bytes = 0, inter_node_msgs = 0, hop_bytes = 0,
                hop_msgs = 0;
  std::uint64_t inter_group_bytes = 0;
  int max_dilation = 0;
  detail::LinkLoads loads;
  std::vector<std::uint64_t> msgs_at_hops, bytes_at_hops;

  // Traffic to each other node is added up first (far fewer node pairs
  // than rank pairs), then each pair's hops are counted and its route
  // loaded once.
  void add_node(std::size_t u, const Graph& graph, const detail::NodeGeometry& geometry,
                const std::vector<int>& node_of, const std::vector<int>& package_of,
                const std::vector<std::uint32_t>& first_rank, const std::vector<std::uint32_t>& ranks_by_node) {
    for (std::uint32_t i = first_rank[u]; i < first_rank[u + 1]; ++i) {
      // A node's ranks may lie anywhere in the graph: their rows are
      // fetched a few ranks ahead so that the misses overlap.
      if (i + 8 < graph.ranks) detail::prefetch(graph.offsets, ranks_by_node[i + 8]);
      if (i + 4 < graph.ranks) {
        const std::uint64_t ahead = graph.offsets[ranks_by_node[i + 4]];
        detail::prefetch(graph.targets, ahead);
        detail::prefetch(graph.bytes, ahead);
        detail::prefetch(graph.msgs, ahead);
      }
      const std::uint32_t r = ranks_by_node[i];
      for (std::uint64_t e = graph.offsets[r]; e < graph.offsets[r + 1]; ++e) {
        const std::uint32_t s = graph.targets[e];
        const std::uint64_t b = graph.bytes[e], msg = graph.msgs[e];
        total_bytes += b;
        total_msgs += msg;
        if (s == r) continue;  // self-traffic never leaves the process
        distinct_bytes += b;
        distinct_msgs += msg;
        const auto v = static_cast<std::uint32_t>(node_of[s]);
        if (v == u) {
          if (package_of[r] != package_of[s]) cross_socket_bytes += b;
          continue;
        }
        if (!(b || msg)) continue;
        to_node.add(v, {b, msg});
      }
    }
    for (std::uint32_t v : to_node.keys()) {
      const std::uint64_t b = to_node[v].bytes, msg = to_node[v].msgs;
      const int h = geometry.hops(static_cast<int>(u), static_cast<int>(v));
      inter_node_bytes += b;
      inter_node_msgs += msg;
      hop_bytes += b * static_cast<std::uint64_t>(h);
      hop_msgs += msg * static_cast<std::uint64_t>(h);
      max_dilation = std::max(max_dilation, h);
      msgs_at_hops[static_cast<std::size_t>(h)] += msg;
      bytes_at_hops[static_cast<std::size_t>(h)] += b;
      if (geometry.same_host(static_cast<int>(u), static_cast<int>(v))) same_host_bytes += b;
      if (geometry.group_of(static_cast<int>(u)) != geometry.group_of(static_cast<int>(v))) inter_group_bytes += b;
      if (b) loads.add_route(geometry.coords(static_cast<int>(u)), geometry.coords(static_cast<int>(v)), b);
    }
    to_node.clear();
  }

  void merge(NodeScores&& other) {
    total_bytes += other.total_bytes;
    total_msgs += other.total_msgs;
    distinct_bytes += other.distinct_bytes;
    distinct_msgs += other.distinct_msgs;
    cross_socket_bytes += other.cross_socket_bytes;
    same_host_bytes += other.same_host_bytes;
    inter_group_bytes += other.inter_group_bytes;
    inter_node_bytes += other.inter_node_bytes;
    inter_node_msgs += other.inter_node_msgs;
    hop_bytes += other.hop_bytes;
    hop_msgs += other.hop_msgs;
    max_dilation = std::max(max_dilation, other.max_dilation);
    loads.merge(other.loads);
    for (std::size_t h = 0; h < msgs_at_hops.size(); ++h)
      msgs_at_hops[h] += other.msgs_at_hops[h], bytes_at_hops[h] += other.bytes_at_hops[h];
  }

 private:
  struct Traffic {
    std::uint64_t bytes = 0, msgs = 0;
    Traffic& operator+=(const Traffic& t) {
      bytes += t.bytes, msgs += t.msgs;
      return *this;
    }
  };
  detail::SparseAccumulator<Traffic> to_node;  // a node's traffic to each other node
};

// Groups used, bytes between groups, and the busiest links of both readings.
void add_dragonfly_scores(Metrics& m, std::uint64_t inter_group_bytes, const Network& net,
                          const detail::NodeGeometry& geometry, const std::vector<char>& used) {
  m.inter_group_bytes = inter_group_bytes;
  std::vector<char> group_used(static_cast<std::size_t>(net.dragonfly.groups), 0);
  for (std::size_t k = 0; k < used.size(); ++k)
    if (used[k]) group_used[static_cast<std::size_t>(geometry.group_of(static_cast<int>(k)))] = 1;
  m.groups = static_cast<std::uint64_t>(std::count(group_used.begin(), group_used.end(), 1));
  const std::size_t first_global = detail::DragonflyLinks(net).global;
  for (std::size_t l = first_global; l < m.link_bytes.size(); ++l)
    m.max_global_link_bytes = std::max(m.max_global_link_bytes, m.link_bytes[l]);
  const std::vector<double> adaptive = adaptive_link_bytes(net, m.link_bytes);
  for (std::size_t l = 0; l < adaptive.size(); ++l) {
    const auto bytes = static_cast<std::uint64_t>(std::llround(adaptive[l]));
    m.adaptive_max_link_bytes = std::max(m.adaptive_max_link_bytes, bytes);
    if (l >= first_global) m.adaptive_max_global_link_bytes = std::max(m.adaptive_max_global_link_bytes, bytes);
  }
}

}  // namespace

Metrics evaluate(const Graph& graph, const Machine& machine, const Allocation& allocation, const Mapping& mapping,
                 int threads) {
  const detail::ThreadsScope scope(threads);
  detail::require_mapping_of(graph, mapping);
  const Network& net = machine.network;
  const std::size_t nalloc = allocation.size();
  const detail::NodeGeometry geometry(machine, allocation);

  // Per rank: its node and package, looked up once rather than per edge.
  std::vector<int> node_of = detail::huge_vector<int>(graph.ranks), package_of = detail::huge_vector<int>(graph.ranks);
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

  // One pass over the edges, a node's ranks at a time (NodeScores).
  std::vector<std::uint32_t> first_rank(nalloc + 1, 0), ranks_by_node = detail::huge_vector<std::uint32_t>(graph.ranks);
  for (const Placement& p : mapping.ranks) ++first_rank[p.node + 1];
  for (std::size_t k = 0; k < nalloc; ++k) first_rank[k + 1] += first_rank[k];
  {
    std::vector<std::uint32_t> fill(first_rank.begin(), first_rank.end() - 1);
    for (std::uint32_t r = 0; r < graph.ranks; ++r) ranks_by_node[fill[mapping.ranks[r].node]++] = r;
  }
  // Nodes in ranges of about equal ranks, a range a thread, for graphs
  // large enough to pay for it: a million ranks laid out by block took
  // 3.6 s to score on one. Sums of integers: the same result on any number.
  const std::size_t ranges =
      graph.num_edges() < detail::kParallelEdges ? 1 : std::min(nalloc, std::size_t(detail::scoped_threads()));
  std::vector<std::size_t> split(ranges + 1, nalloc);
  split[0] = 0;
  for (std::size_t i = 1, k = 0; i < ranges; ++i) {
    while (k < nalloc && first_rank[k] < std::uint64_t{graph.ranks} * i / ranges) ++k;
    split[i] = k;
  }
  std::vector<std::optional<NodeScores>> parts(ranges);
  detail::run_jobs(static_cast<int>(ranges), ranges, [&](std::size_t i) {
    parts[i].emplace(net, nalloc);
    for (std::size_t u = split[i]; u < split[i + 1]; ++u)
      parts[i]->add_node(u, graph, geometry, node_of, package_of, first_rank, ranks_by_node);
  });
  NodeScores all = std::move(*parts[0]);
  for (std::size_t i = 1; i < ranges; ++i) all.merge(std::move(*parts[i]));
  m.total_bytes = all.total_bytes;
  m.total_msgs = all.total_msgs;
  m.cross_socket_bytes = all.cross_socket_bytes;
  m.same_host_bytes = all.same_host_bytes;
  m.inter_node_bytes = all.inter_node_bytes;
  m.inter_node_msgs = all.inter_node_msgs;
  m.hop_bytes = all.hop_bytes;
  m.hop_msgs = all.hop_msgs;
  m.max_dilation = all.max_dilation;
  const std::uint64_t distinct_bytes = all.distinct_bytes, distinct_msgs = all.distinct_msgs;
  m.avg_dilation = distinct_bytes ? static_cast<double>(m.hop_bytes) / static_cast<double>(distinct_bytes) : 0;
  m.avg_hops_by_msgs = distinct_msgs ? static_cast<double>(m.hop_msgs) / static_cast<double>(distinct_msgs) : 0;
  m.link_bytes = all.loads.take();
  m.msgs_at_hops = std::move(all.msgs_at_hops);
  m.bytes_at_hops = std::move(all.bytes_at_hops);
  m.max_link_bytes = m.link_bytes.empty() ? 0 : *std::max_element(m.link_bytes.begin(), m.link_bytes.end());
  if (net.is_dragonfly()) add_dragonfly_scores(m, all.inter_group_bytes, net, geometry, used);
  return m;
}

}  // namespace rankmap
