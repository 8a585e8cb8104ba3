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

// Calls visit(link_id) for each directed link of the route from coordinate
// index a to b, in order, whatever the network's kind.
template <class Visit>
void for_each_link(const Network& net, std::size_t a, std::size_t b, Visit&& visit);

}  // namespace rankmap

#include "rankmap/detail/route.hpp"
