#include "rankmap/gain.hpp"

namespace rankmap {

double message_time_ns(const Network& net, double hops) {
  return net.t_inj_ns + net.t_ej_ns + net.t_hop_ns * hops;
}

double relative_gain(double p_mpi, double t_before, double t_after) {
  return t_before > 0 ? p_mpi * (t_before - t_after) / t_before : 0;
}

double predicted_gain(const Network& net, double p_mpi, double hops_before, double hops_after) {
  return relative_gain(p_mpi, message_time_ns(net, hops_before), message_time_ns(net, hops_after));
}

double mean_distance(const Network& net) {
  // Per dimension, the mean 1D distance over all pairs of positions; their
  // sum is the mean over all pairs of nodes, a node with itself included.
  double all_pairs = 0, nodes = 1;
  for (int i = 0; i < net.num_dims(); ++i) {
    const int k = net.dims[i];
    double sum = 0;
    for (int a = 0; a < k; ++a)
      for (int b = 0; b < k; ++b) sum += net.hops_1d(i, a, b);
    all_pairs += sum / (static_cast<double>(k) * k);
    nodes *= k;
  }
  return nodes > 1 ? all_pairs * nodes / (nodes - 1) : 0;  // leave out the pairs of a node with itself
}

double seed_gain(const Network& net, double p_mpi, SeedDistance reading) {
  const double d = reading == SeedDistance::diameter ? net.diameter() : mean_distance(net);
  const double denominator = net.t_inj_ns + net.t_ej_ns + net.t_hop_ns * d;
  return denominator > 0 ? p_mpi * net.t_hop_ns * (d - 1) / denominator : 0;
}

MessageTimes mean_message_times(const Graph& graph, const Network& net, const Metrics& metrics) {
  MessageTimes t;
  t.by_messages_ns = message_time_ns(net, metrics.avg_hops_by_msgs);
  if (net.link_gbps <= 0) return t;
  // sum(b T(h)) / sum(b) is T of the byte-weighted mean hops (avg_dilation);
  // the transfer term is the byte-weighted mean message size over the link.
  double bytes = 0, size_weighted = 0;
  for (std::uint32_t r = 0; r < graph.ranks; ++r)
    for (std::uint64_t e = graph.offsets[r]; e < graph.offsets[r + 1]; ++e) {
      if (graph.targets[e] == r || graph.bytes[e] == 0) continue;
      const double b = static_cast<double>(graph.bytes[e]);
      const double size = graph.msgs[e] > 0 ? b / static_cast<double>(graph.msgs[e]) : b;
      bytes += b;
      size_weighted += b * size;
    }
  const double ns_per_byte = 8.0 / net.link_gbps;
  t.by_bytes_ns = bytes > 0 ? message_time_ns(net, metrics.avg_dilation) + size_weighted / bytes * ns_per_byte : 0;
  return t;
}

}  // namespace rankmap
