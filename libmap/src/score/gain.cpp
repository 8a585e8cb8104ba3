#include "rankmap/gain.hpp"

#include <algorithm>
#include <vector>

#include "machine/node_geometry.hpp"
#include "score/mapping_size.hpp"

namespace rankmap {

double message_time_ns(const Network& net, double hops) { return net.message_ns(hops); }

double relative_gain(double p_mpi, double t_before, double t_after) {
  return t_before > 0 ? p_mpi * (t_before - t_after) / t_before : 0;
}

double predicted_gain(const Network& net, double p_mpi, double hops_before, double hops_after) {
  return relative_gain(p_mpi, message_time_ns(net, hops_before), message_time_ns(net, hops_after));
}

double mean_distance(const Network& net) { return net.mean_distance(); }

double seed_gain(const Network& net, double p_mpi, SeedDistance reading) {
  const double d = reading == SeedDistance::diameter ? net.diameter() : mean_distance(net);
  const double denominator = net.t_inj_ns + net.t_ej_ns + net.t_hop_ns * d;
  return denominator > 0 ? p_mpi * net.t_hop_ns * (d - 1) / denominator : 0;
}

MessageTimes mean_message_times(const Graph& graph, const Network& net, const Metrics& metrics) {
  // Over pairs of distinct ranks: a message between nodes costs T(h), one
  // inside a node local_ns(). T is linear in h, so the weighted sum of T(h)
  // over inter-node traffic is (t_inj + t_ej) per message plus t_hop per hop.
  double bytes = 0, msgs = 0, size_weighted = 0;
  for (std::uint32_t r = 0; r < graph.ranks; ++r)
    for (std::uint64_t e = graph.offsets[r]; e < graph.offsets[r + 1]; ++e) {
      if (graph.targets[e] == r) continue;
      const double b = static_cast<double>(graph.bytes[e]);
      msgs += static_cast<double>(graph.msgs[e]);
      if (b == 0) continue;
      const double size = graph.msgs[e] > 0 ? b / static_cast<double>(graph.msgs[e]) : b;
      bytes += b;
      size_weighted += b * size;
    }
  const double nic = net.t_inj_ns + net.t_ej_ns, local = net.local_ns();
  const auto weighted_time = [&](double all, double inter, double hops) {
    return (inter * nic + net.t_hop_ns * hops + (all - inter) * local) / all;
  };
  // Where levels have latencies of their own (a tree's), T is not linear in
  // hops: it is summed hop count by hop count (the per-level form).
  const bool per_level = !net.linear_times() && metrics.msgs_at_hops.size() > 1;
  const auto level_time = [&](double all, double inter, const std::vector<std::uint64_t>& at_hops) {
    double t = (all - inter) * local;
    for (std::size_t h = 1; h < at_hops.size(); ++h)
      t += static_cast<double>(at_hops[h]) * message_time_ns(net, static_cast<double>(h));
    return t / all;
  };
  MessageTimes t;
  if (msgs > 0)
    t.by_messages_ns = per_level ? level_time(msgs, static_cast<double>(metrics.inter_node_msgs), metrics.msgs_at_hops)
                                 : weighted_time(msgs, static_cast<double>(metrics.inter_node_msgs),
                                                 static_cast<double>(metrics.hop_msgs));
  if (bytes == 0) return t;
  t.by_bytes_ns = per_level ? level_time(bytes, static_cast<double>(metrics.inter_node_bytes), metrics.bytes_at_hops)
                            : weighted_time(bytes, static_cast<double>(metrics.inter_node_bytes),
                                            static_cast<double>(metrics.hop_bytes));
  // The transfer term, when the machine gives a bandwidth: the byte-weighted
  // mean message size over the link.
  if (net.link_gbps > 0) t.by_bytes_ns += size_weighted / bytes * 8.0 / net.link_gbps;
  return t;
}

double slowest_sender_ns(const Graph& graph, const Machine& machine, const Allocation& allocation,
                         const Mapping& mapping) {
  detail::require_mapping_of(graph, mapping);
  const Network& net = machine.network;
  const detail::NodeGeometry geometry(machine, allocation);
  std::vector<double> slowest(graph.ranks, 0), received(graph.ranks, 0);
  for (std::uint32_t r = 0; r < graph.ranks; ++r)
    for (std::uint64_t e = graph.offsets[r]; e < graph.offsets[r + 1]; ++e) {
      const std::uint32_t s = graph.targets[e];
      if (s == r || graph.msgs[e] == 0) continue;
      const int a = mapping.ranks[r].node, b = mapping.ranks[s].node;
      const double t = a == b ? net.local_ns() : message_time_ns(net, geometry.hops(a, b));
      slowest[s] = std::max(slowest[s], t);
      received[s] += static_cast<double>(graph.msgs[e]);
    }
  double weighted = 0, total = 0;
  for (std::uint32_t r = 0; r < graph.ranks; ++r) weighted += received[r] * slowest[r], total += received[r];
  return total > 0 ? weighted / total : 0;
}

}  // namespace rankmap
