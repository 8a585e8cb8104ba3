// The phase model of gain.hpp: each message of an exchange phase waits for
// the busiest resource on its way; each receiver for its slowest message.
#include <algorithm>
#include <vector>

#include "machine/node_geometry.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/metrics.hpp"
#include "score/mapping_size.hpp"

namespace rankmap {

PhaseTimes phase_times(const Graph& graph, const Machine& machine, const Allocation& allocation, const Mapping& mapping,
                       const Metrics& metrics) {
  detail::require_mapping_of(graph, mapping);
  const Network& net = machine.network;
  const detail::NodeGeometry geometry(machine, allocation);
  const double bytes_per_ns = net.link_gbps / 8;  // 0: no bandwidth terms
  const auto transfer_ns = [&](double bytes) { return bytes_per_ns > 0 ? bytes / bytes_per_ns : 0.0; };

  PhaseTimes t;
  for (std::uint32_t r = 0; r < graph.ranks; ++r)
    for (std::uint64_t e = graph.offsets[r]; e < graph.offsets[r + 1]; ++e)
      if (graph.targets[e] != r) t.phases = std::max(t.phases, static_cast<double>(graph.msgs[e]));
  if (t.phases == 0) return t;

  std::vector<double> sent(allocation.size(), 0), received(allocation.size(), 0);
  for (std::uint32_t r = 0; r < graph.ranks; ++r)
    for (std::uint64_t e = graph.offsets[r]; e < graph.offsets[r + 1]; ++e) {
      const int from = mapping.ranks[r].node, to = mapping.ranks[graph.targets[e]].node;
      if (from != to)
        sent[static_cast<std::size_t>(from)] += static_cast<double>(graph.bytes[e]),
            received[static_cast<std::size_t>(to)] += static_cast<double>(graph.bytes[e]);
    }
  const double per_phase = 1 / t.phases;
  // A message's bytes share the busiest resource on its way (its node's
  // injection, a network link, the far node's ejection) with the phase's
  // other traffic there: it lasts T(h) plus that resource's bytes a phase
  // (at least its own size) over the bandwidth.
  const auto bottleneck = [&](int from, int to) {
    double most = std::max(sent[static_cast<std::size_t>(from)], received[static_cast<std::size_t>(to)]);
    for_each_link(net, geometry.coord_index(from), geometry.coord_index(to),
                  [&](std::size_t link) { most = std::max(most, static_cast<double>(metrics.link_bytes[link])); });
    return most * per_phase;
  };
  // A pair that exchanges m messages is active in m / K of the phases, so
  // a rare message does not pace every phase: a receiver waits for the
  // expected slowest of its senders, each present with chance m / K.
  std::vector<std::vector<std::pair<double, double>>> senders(graph.ranks);  // (time, chance)
  std::vector<double> messages_in(graph.ranks, 0);
  for (std::uint32_t r = 0; r < graph.ranks; ++r)
    for (std::uint64_t e = graph.offsets[r]; e < graph.offsets[r + 1]; ++e) {
      const std::uint32_t s = graph.targets[e];
      if (s == r || graph.msgs[e] == 0) continue;
      const double bytes = static_cast<double>(graph.bytes[e]), msgs = static_cast<double>(graph.msgs[e]);
      const int a = mapping.ranks[r].node, b = mapping.ranks[s].node;
      const double size = bytes / msgs;
      const double time =
          a == b ? net.local_ns() + transfer_ns(size)
                 : message_time_ns(net, geometry.hops(a, b)) + transfer_ns(std::max(size, bottleneck(a, b)));
      senders[s].emplace_back(time, msgs / t.phases);
      messages_in[s] += msgs;
    }
  double weighted = 0, messages = 0;
  for (std::uint32_t r = 0; r < graph.ranks; ++r) {
    auto& list = senders[r];
    std::sort(list.begin(), list.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    double expected = 0, none_slower = 1;  // chance that no slower sender was active
    for (const auto& [time, chance] : list) {
      expected += time * chance * none_slower;
      none_slower *= 1 - chance;
    }
    t.slowest_ns = std::max(t.slowest_ns, expected);
    weighted += messages_in[r] * expected;
    messages += messages_in[r];
  }
  t.mean_ns = messages > 0 ? weighted / messages : 0;
  t.link_ns = transfer_ns(static_cast<double>(metrics.max_link_bytes) * per_phase);
  if (!sent.empty()) {
    t.injection_ns = transfer_ns(*std::max_element(sent.begin(), sent.end()) * per_phase);
    t.ejection_ns = transfer_ns(*std::max_element(received.begin(), received.end()) * per_phase);
  }
  return t;
}

}  // namespace rankmap
