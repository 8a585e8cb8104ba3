// The flow model of gain.hpp: exchange phases as max-min fair flows,
// collectives replayed by rounds (collective_rounds.cpp) when the profile
// records its calls, else as chains.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "machine/node_geometry.hpp"
#include "rankmap/error.hpp"
#include "rankmap/gain.hpp"
#include "score/collective_rounds.hpp"
#include "score/flow_model.hpp"
#include "score/mapping_size.hpp"
#include "score/phase_simulator.hpp"

namespace rankmap {

namespace {

using detail::Flow;

// Phase grouping (phase_group_ends): how many distinct message counts are
// simulated one by one, and past that how far a group's pairs may fall.
constexpr std::size_t kExactPhases = 16;
constexpr double kPhaseGroupDrop = 0.1;

// Which phases are simulated: the last phase of each group, groups in
// order. Up to kExactPhases distinct message counts, each count ends a
// group of its own (every phase is simulated as it is). Past that,
// consecutive counts whose pairs fall by under kPhaseGroupDrop from the
// group's first join it, and the group is simulated once, as its middle
// phase. HPCC 64's 88 distinct counts (208 to 212 messages a pair are
// one benchmark's) cost some 8 s to simulate one by one; in 6 groups,
// block, round-robin and a random mapping on 6 machines come out within
// 0.7 % of that, on each machine in the same order (bench/RESULTS.md,
// issue 54, thirteenth session). `counts`: the distinct counts,
// ascending; `by_messages`: every pair's count, ascending.
std::vector<std::uint64_t> phase_group_ends(const std::vector<std::uint64_t>& counts,
                                            const std::vector<std::uint64_t>& by_messages) {
  if (counts.size() <= kExactPhases) return counts;
  auto pairs_with = [&](std::uint64_t at_least) {
    return static_cast<double>(by_messages.end() - std::lower_bound(by_messages.begin(), by_messages.end(), at_least));
  };
  std::vector<std::uint64_t> ends;
  for (std::size_t i = 0; i < counts.size();) {
    const double first = pairs_with(counts[i]);
    std::size_t last = i;
    while (last + 1 < counts.size() && pairs_with(counts[last + 1]) >= (1 - kPhaseGroupDrop) * first) ++last;
    ends.push_back(counts[last]);
    i = last + 1;
  }
  return ends;
}

// Whether every record names ranks of the mapping, and the rounds hold few
// enough messages to replay (past that, collectives stay chains).
bool usable(const std::vector<CollectiveCalls>* calls, std::size_t ranks) {
  if (!calls || calls->empty()) return false;
  std::size_t sends = 0;
  for (const CollectiveCalls& c : *calls) {
    if (c.rank >= ranks || c.calls == 0) return false;
    for (const CollectiveCalls::Send& s : c.sends)
      if (s.peer >= ranks) return false;
    sends += c.sends.size();
  }
  return sends <= kMaxCollectiveSends;
}

}  // namespace

FlowTimes flow_times(const Graph& p2p, const Graph& collective, const Machine& machine, const Allocation& allocation,
                     const Mapping& mapping, const std::vector<CollectiveCalls>* calls) {
  return detail::flow_times_below(p2p, collective, machine, allocation, mapping, calls,
                                  std::numeric_limits<double>::infinity());
}

namespace detail {

std::optional<std::vector<Flow>> phase_flows(const Graph& p2p, const Machine& machine, const NodeGeometry& geometry,
                                             const Mapping& mapping, std::size_t nodes, PhaseSimulator& simulate) {
  std::vector<Flow> flows;
  for (std::uint32_t r = 0; r < p2p.ranks; ++r)
    for (std::uint64_t e = p2p.offsets[r]; e < p2p.offsets[r + 1]; ++e) {
      const std::uint32_t s = p2p.targets[e];
      if (s == r || p2p.msgs[e] == 0) continue;
      Flow f = routed_flow(machine.network, geometry, mapping, nodes, r, s);
      if (!simulate.charge(f.resources.size() + 1)) return std::nullopt;
      f.messages = p2p.msgs[e];
      f.bytes = static_cast<double>(p2p.bytes[e]) / static_cast<double>(p2p.msgs[e]);
      flows.push_back(std::move(f));
    }
  // A pair with more than K messages sends its bytes spread over all K (a
  // halo's two faces to one partner, in a grid two ranks deep, go out
  // together, not in phases of their own).
  const std::uint64_t k = phase_count(p2p);
  for (Flow& f : flows)
    if (f.messages > k) f.bytes = f.bytes * static_cast<double>(f.messages) / static_cast<double>(k), f.messages = k;
  return flows;
}

std::size_t phase_messages(const Graph& p2p) {
  std::size_t messages = 0;
  for (std::uint32_t r = 0; r < p2p.ranks; ++r)
    for (std::uint64_t e = p2p.offsets[r]; e < p2p.offsets[r + 1]; ++e)
      messages += p2p.targets[e] != r && p2p.msgs[e] > 0;
  return messages;
}

std::uint64_t phase_count(const Graph& p2p) {
  std::vector<std::uint64_t> counts;
  for (std::uint32_t r = 0; r < p2p.ranks; ++r)
    for (std::uint64_t e = p2p.offsets[r]; e < p2p.offsets[r + 1]; ++e)
      if (p2p.targets[e] != r && p2p.msgs[e] > 0) counts.push_back(p2p.msgs[e]);
  if (counts.empty()) return 0;
  const auto middle = static_cast<std::ptrdiff_t>(counts.size() / 2);
  std::nth_element(counts.begin(), counts.begin() + middle, counts.end());
  return counts[static_cast<std::size_t>(middle)];
}

FlowTimes flow_times_below(const Graph& p2p, const Graph& collective, const Machine& machine,
                           const Allocation& allocation, const Mapping& mapping,
                           const std::vector<CollectiveCalls>* calls, double above_ns) {
  detail::require_mapping_of(p2p, mapping);
  if (collective.ranks != 0) detail::require_mapping_of(collective, mapping);
  const Network& net = machine.network;
  const detail::NodeGeometry geometry(machine, allocation);
  const std::size_t nodes = allocation.size();
  const double bytes_per_ns = net.link_gbps / 8;
  FlowTimes t;
  // Every other early return below is the work budget running out.
  t.why = kFlowModelWorkRanOut;

  if (detail::phase_messages(p2p) > kMaxFlowsPerPhase) {
    t.why = "more than 131,072 messages a phase";
    return t;
  }
  const std::vector<double> rate = resource_rates(net, nodes);
  PhaseSimulator simulate(rate, bytes_per_ns);
  std::optional<std::vector<Flow>> made = detail::phase_flows(p2p, machine, geometry, mapping, nodes, simulate);
  if (!made) return t;
  std::vector<Flow>& flows = *made;
  std::vector<double> rank_ns(mapping.ranks.size(), 0);
  // Phase j (from 1) holds every pair with j messages or more: between two
  // consecutive message counts of the graph the phases are alike.
  std::vector<std::uint64_t> counts;
  for (const Flow& f : flows) counts.push_back(f.messages);
  std::sort(counts.begin(), counts.end());
  const std::vector<std::uint64_t> by_messages = counts;
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  t.phases = counts.empty() ? 0 : static_cast<double>(counts.back());
  const std::vector<std::uint64_t> ends = phase_group_ends(counts, by_messages);
  std::vector<double> phase_end(mapping.ranks.size());
  const bool replayed = usable(calls, rank_ns.size());
  // A rank's chain only adds to its phases, so once they pass above_ns the
  // mapping is slower. (Replayed collectives start from the phases'
  // shares, not their sum: no such bound, no stop.)
  const bool limited = !replayed && above_ns < std::numeric_limits<double>::infinity();
  std::vector<double> give_up(limited ? rank_ns.size() : 0);
  std::uint64_t done = 0;  // phases simulated so far
  for (const std::uint64_t count : ends) {
    // A pass over the flows and one over the ranks, whatever their bytes.
    if (!simulate.charge(flows.size() + rank_ns.size())) return t;
    // The group's phases done + 1 to count, as their middle one (the one
    // phase of a group of one).
    const std::uint64_t middle = done + (count - done + 1) / 2;
    std::vector<std::uint32_t> active;
    for (std::uint32_t f = 0; f < flows.size(); ++f)
      if (flows[f].messages >= middle) active.push_back(f);
    // Each rank's phase end past which its time passes above_ns.
    const auto repeats = static_cast<double>(count - done);
    if (limited)
      for (std::size_t r = 0; r < rank_ns.size(); ++r) give_up[r] = (above_ns - rank_ns[r]) / repeats;
    const std::vector<double> end = simulate.run(flows, active, limited ? &give_up : nullptr);
    if (simulate.work() > kFlowModelWork) return t;
    if (simulate.gave_up()) {
      t.why = kSlowerThanLimit;
      return t;
    }
    std::fill(phase_end.begin(), phase_end.end(), 0.0);
    for (std::uint32_t f : active) {
      phase_end[flows[f].dst] = std::max(phase_end[flows[f].dst], end[f]);
      if (flows[f].bytes >= kEagerLimitBytes) phase_end[flows[f].src] = std::max(phase_end[flows[f].src], end[f]);
    }
    for (std::size_t r = 0; r < rank_ns.size(); ++r) rank_ns[r] += repeats * phase_end[r];
    done = count;
  }
  if (replayed) {
    const detail::RoundsTime rounds =
        detail::collective_rounds_time(*calls, rank_ns, flows, machine, geometry, mapping, nodes, simulate);
    if (!rounds.computed) return t;
    t.slowest_ns = rounds.total_ns, t.p2p_ns = rounds.p2p_ns, t.chain_ns = rounds.total_ns - rounds.p2p_ns;
    t.rounds = t.computed = true;
    return t;
  }

  // Collectives: each message after the one before, and no faster than the
  // busiest resource's collective bytes allow (every rank's rounds run at
  // once: a large all-to-all is bound by its most shared link).
  std::vector<double> chain_ns(mapping.ranks.size(), 0);
  std::vector<double> load(net.num_links() + 2 * nodes, 0);
  for (std::uint32_t r = 0; r < collective.ranks; ++r)
    for (std::uint64_t e = collective.offsets[r]; e < collective.offsets[r + 1]; ++e) {
      const std::uint32_t s = collective.targets[e];
      const std::uint64_t m = collective.msgs[e];
      if (s == r || m == 0) continue;
      const int a = mapping.ranks[r].node, b = mapping.ranks[s].node;
      const double latency = a == b ? net.local_ns() : message_time_ns(net, geometry.hops(a, b));
      const auto bytes = static_cast<double>(collective.bytes[e]);
      // The message streams at its slowest link's rate.
      double slowest = bytes_per_ns;
      if (a != b)
        for_each_link(net, geometry.coord_index(a), geometry.coord_index(b), [&](std::size_t link) {
          load[link] += bytes;
          slowest = std::min(slowest, rate[link]);
        });
      chain_ns[s] += static_cast<double>(m) * latency + (slowest > 0 ? bytes / slowest : 0);
      if (a == b || net.routes_include_nics()) continue;
      load[net.num_links() + static_cast<std::size_t>(a)] += bytes;
      load[net.num_links() + nodes + static_cast<std::size_t>(b)] += bytes;
    }
  if (bytes_per_ns > 0)
    for (std::size_t r = 0; r < load.size(); ++r)
      if (rate[r] > 0) t.collective_floor_ns = std::max(t.collective_floor_ns, load[r] / rate[r]);
  for (std::uint32_t r = 0; r < collective.ranks; ++r)
    if (chain_ns[r] > 0) chain_ns[r] = std::max(chain_ns[r], t.collective_floor_ns);
  for (std::size_t r = 0; r < rank_ns.size(); ++r)
    if (rank_ns[r] + chain_ns[r] > t.slowest_ns || r == 0)
      t.slowest_ns = rank_ns[r] + chain_ns[r], t.p2p_ns = rank_ns[r], t.chain_ns = chain_ns[r];
  t.computed = true;
  return t;
}

double busiest_resource_ns(const Graph& p2p, const Machine& machine, const Allocation& allocation,
                           const Mapping& mapping) {
  detail::require_mapping_of(p2p, mapping);
  const NodeGeometry geometry(machine, allocation);
  const std::size_t nodes = allocation.size();
  const std::vector<double> rate = resource_rates(machine.network, nodes);
  std::vector<double> bytes(rate.size(), 0);
  for (std::uint32_t r = 0; r < p2p.ranks; ++r)
    for (std::uint64_t e = p2p.offsets[r]; e < p2p.offsets[r + 1]; ++e)
      for (std::uint32_t resource : routed_flow(machine.network, geometry, mapping, nodes, r, p2p.targets[e]).resources)
        bytes[resource] += static_cast<double>(p2p.bytes[e]);
  double busiest = 0;
  for (std::size_t i = 0; i < rate.size(); ++i)
    if (rate[i] > 0) busiest = std::max(busiest, bytes[i] / rate[i]);
  return busiest;
}

}  // namespace detail

}  // namespace rankmap
