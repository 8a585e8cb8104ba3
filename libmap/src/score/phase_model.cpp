// The phase model of gain.hpp: one exchange phase lasts as long as its
// slowest message or its busiest link, whichever is longer.
#include <algorithm>
#include <vector>

#include "machine/node_geometry.hpp"
#include "rankmap/gain.hpp"
#include "score/mapping_size.hpp"

namespace rankmap {

double PhaseTimes::phase_ns() const { return std::max({latency_ns, link_ns, injection_ns, ejection_ns}); }

PhaseTimes phase_times(const Graph& graph, const Machine& machine, const Allocation& allocation,
                       const Mapping& mapping, const Metrics& metrics) {
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

  // A pair that exchanges m messages is active in m / K of the phases, so
  // a rare message does not pace every phase: a receiver's latency is the
  // expected slowest of its senders, each present with chance m / K.
  std::vector<std::vector<std::pair<double, double>>> senders(graph.ranks);  // (time, chance)
  std::vector<double> sent(allocation.size(), 0), received(allocation.size(), 0);
  for (std::uint32_t r = 0; r < graph.ranks; ++r)
    for (std::uint64_t e = graph.offsets[r]; e < graph.offsets[r + 1]; ++e) {
      const std::uint32_t s = graph.targets[e];
      if (s == r || graph.msgs[e] == 0) continue;
      const double bytes = static_cast<double>(graph.bytes[e]), msgs = static_cast<double>(graph.msgs[e]);
      const int a = mapping.ranks[r].node, b = mapping.ranks[s].node;
      const double latency = a == b ? net.local_ns() : message_time_ns(net, geometry.hops(a, b));
      senders[s].emplace_back(latency + transfer_ns(bytes / msgs), msgs / t.phases);
      if (a != b) sent[static_cast<std::size_t>(a)] += bytes, received[static_cast<std::size_t>(b)] += bytes;
    }
  for (auto& list : senders) {
    std::sort(list.begin(), list.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    double expected = 0, none_slower = 1;  // chance that no slower sender was active
    for (const auto& [time, chance] : list) {
      expected += time * chance * none_slower;
      none_slower *= 1 - chance;
    }
    t.latency_ns = std::max(t.latency_ns, expected);
  }
  const double per_phase = 1 / t.phases;
  t.link_ns = transfer_ns(static_cast<double>(metrics.max_link_bytes) * per_phase);
  if (!sent.empty()) {
    t.injection_ns = transfer_ns(*std::max_element(sent.begin(), sent.end()) * per_phase);
    t.ejection_ns = transfer_ns(*std::max_element(received.begin(), received.end()) * per_phase);
  }
  return t;
}

}  // namespace rankmap
