// The scores of a mapping: one function computes them all, and every other
// part of rankmap (CLI, mapping engine, benchmarks) uses it.
#pragma once

#include <cstdint>
#include <vector>

#include "rankmap/graph.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/mapping.hpp"

namespace rankmap {

struct Metrics {
  std::uint64_t ranks = 0;
  std::uint64_t nodes = 0;        // nodes holding at least one rank
  std::uint64_t total_bytes = 0;  // all traffic, self-traffic included
  std::uint64_t total_msgs = 0;
  std::uint64_t hop_bytes = 0;            // sum of bytes x hops
  std::uint64_t hop_msgs = 0;             // sum of messages x hops
  double avg_dilation = 0;                // hop_bytes / bytes between distinct ranks
  double avg_hops_by_msgs = 0;            // hop_msgs / messages between distinct ranks
  int max_dilation = 0;                   // most hops of any communicating pair
  std::uint64_t inter_node_bytes = 0;     // bytes between ranks on different nodes
  std::uint64_t inter_node_msgs = 0;      // messages between ranks on different nodes
  std::uint64_t cross_socket_bytes = 0;   // same node, different packages
  std::uint64_t same_host_bytes = 0;      // between VMs of one physical host (trees with hosts)
  std::uint64_t max_link_bytes = 0;       // congestion: the most loaded directed link
  std::vector<std::uint64_t> link_bytes;  // per Network::link_id, routed bytes
  // Dragonflies only (0 elsewhere): bytes between ranks in different
  // groups, the groups holding ranks, the busiest link between groups, and
  // under the adaptive reading (adaptive_link_bytes) the busiest link and
  // the busiest link between groups.
  std::uint64_t inter_group_bytes = 0;
  std::uint64_t groups = 0;
  std::uint64_t max_global_link_bytes = 0;
  std::uint64_t adaptive_max_link_bytes = 0, adaptive_max_global_link_bytes = 0;
  // Between nodes, by hops (index 0 unused): the gain model's per-level
  // form reads them where T is not linear in hops (a tree's level latencies).
  std::vector<std::uint64_t> msgs_at_hops, bytes_at_hops;
};

// Routes every inter-node byte along the network's route (a torus: the
// routing order, per dimension the shorter way round, ties `+`; a tree: up
// and down, machine.hpp) and adds it to each link passed. On graphs of
// millions of edges it uses up to `threads` threads (0: every CPU the
// process may use); the result is the same for any number.
Metrics evaluate(const Graph& graph, const Machine& machine, const Allocation& allocation, const Mapping& mapping,
                 int threads = 0);

// A dragonfly's link loads as adaptive routing (UGAL) would spread them
// under load, from the minimal routes' `minimal` loads: of each group
// pair's bytes, DragonflyShape::adaptive_minimal_share stays on its
// cables, evenly, and the rest goes evenly through every other group
// (over a cable into it, across it, and over a cable out). Local links at
// both ends keep the minimal routes' bytes. An approximation: real UGAL
// decides message by message on the queues it sees.
std::vector<double> adaptive_link_bytes(const Network& net, const std::vector<std::uint64_t>& minimal);

// Calls visit(link_id) for each directed link of the route from coordinate
// index a to b, in order, whatever the network's kind.
template <class Visit>
void for_each_link(const Network& net, std::size_t a, std::size_t b, Visit&& visit);

}  // namespace rankmap

#include "rankmap/detail/route.hpp"
