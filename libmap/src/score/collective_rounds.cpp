// Collectives as the MPI library runs them: rounds one after another, every
// rank's sends of a round at once, each message leaving when its ends are
// ready. A chain of a rank's own messages misses two things this catches:
// a round's messages share links with the rest of the job's (a large
// all-to-all in each row at once), and a rank waits for its partner's
// previous round too (a recursive-doubling allreduce ends on the
// butterfly's longest path).
#include "score/collective_rounds.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace rankmap::detail {

namespace {

// One algorithm on one communicator slot, over all the ranks that ran it.
struct Group {
  std::vector<std::uint64_t> calls, firsts;  // per rank that ran it
  struct Round {
    std::vector<Flow> flows;  // one call's messages
    std::vector<double> latency;
  };
  std::map<std::uint32_t, Round> rounds;  // in round order
  double calls_median = 0, first_median = 0;
};

template <class T>
double median(std::vector<T> v) {
  const auto middle = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), middle, v.end());
  return static_cast<double>(*middle);
}

// The calls' groups, or nothing past the simulator's work limit (each
// send costs a step and its route's length).
std::optional<std::vector<Group>> groups_of(const std::vector<CollectiveCalls>& calls, const Network& net,
                                            const NodeGeometry& geometry, const Mapping& mapping, std::size_t nodes,
                                            PhaseSimulator& simulate) {
  std::map<std::pair<std::string, std::uint32_t>, Group> by_key;
  for (const CollectiveCalls& c : calls) {
    Group& g = by_key[{c.algorithm, c.slot}];
    g.calls.push_back(c.calls);
    g.firsts.push_back(c.first);
    if (!simulate.charge(c.sends.size() + 1)) return std::nullopt;
    for (const CollectiveCalls::Send& s : c.sends) {
      if (s.peer == c.rank || s.msgs == 0) continue;
      Flow f = routed_flow(net, geometry, mapping, nodes, c.rank, s.peer);
      if (!simulate.charge(f.resources.size())) return std::nullopt;
      f.bytes = static_cast<double>(s.bytes) / static_cast<double>(c.calls);  // one call's
      f.messages = 1;
      Group::Round& round = g.rounds[s.round];
      round.latency.push_back(f.start_ns);
      round.flows.push_back(std::move(f));
    }
  }
  std::vector<Group> groups;
  for (auto& [key, g] : by_key) {
    g.calls_median = median(g.calls);
    g.first_median = median(g.firsts);
    groups.push_back(std::move(g));
  }
  // In the order of an iteration: by the calls' first appearance. (std::map
  // gave them in name order, which breaks ties the same way every run.)
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& a, const Group& b) { return a.first_median < b.first_median; });
  return groups;
}

// One call of `g`, round after round, from and into the ranks' ready
// times. False past the simulator's work limit. A round costs its messages,
// never a pass over every rank: rounds that carry no bytes are work too.
bool run_call(Group& g, std::vector<double>& ready, PhaseSimulator& simulate) {
  std::vector<std::uint32_t> active;
  for (auto& [number, round] : g.rounds) {
    std::vector<Flow>& flows = round.flows;
    // A message moves once both ends have reached the round: its sender
    // has posted it and its receiver the matching receive.
    active.clear();
    for (std::uint32_t i = 0; i < flows.size(); ++i) {
      flows[i].start_ns = std::max(ready[flows[i].src], ready[flows[i].dst]) + round.latency[i];
      active.push_back(i);
    }
    const std::vector<double> end = simulate.run(flows, active);
    if (simulate.work() > kFlowModelWork) return false;
    // Every start above is taken: ready times move on in place.
    for (std::uint32_t i = 0; i < flows.size(); ++i) {
      ready[flows[i].dst] = std::max(ready[flows[i].dst], end[i]);
      if (flows[i].bytes >= kEagerLimitBytes) ready[flows[i].src] = std::max(ready[flows[i].src], end[i]);
    }
  }
  return true;
}

}  // namespace

RoundsTime collective_rounds_time(const std::vector<CollectiveCalls>& calls, const std::vector<double>& p2p_rank_ns,
                                  const std::vector<Flow>& p2p, const Machine& machine, const NodeGeometry& geometry,
                                  const Mapping& mapping, std::size_t nodes, PhaseSimulator& simulate) {
  RoundsTime t;
  std::optional<std::vector<Group>> grouped = groups_of(calls, machine.network, geometry, mapping, nodes, simulate);
  if (!grouped) return t;
  std::vector<Group>& groups = *grouped;
  // Each pass over the ranks below (a fill, a copy, a maximum) is charged.
  const std::uint64_t pass = p2p_rank_ns.size() + 1;
  // The run as I periods, I the most frequent group's calls: in each, a
  // rank's share of its point-to-point time, then every group of at least
  // I / 2 calls once, in order, weighing calls / I. Rarer groups (a
  // barrier before and after the loop) run apart, each call from ranks
  // that start together.
  double periods = 1;
  for (const Group& g : groups) periods = std::max(periods, g.calls_median);
  std::vector<double> ready(p2p_rank_ns.size(), 0.0), before, start;
  double apart = 0;
  for (Group& g : groups) {
    if (g.calls_median >= periods / 2) continue;
    if (!simulate.charge(2 * pass)) return t;
    std::fill(ready.begin(), ready.end(), 0.0);
    if (!run_call(g, ready, simulate)) return t;
    apart += g.calls_median * *std::max_element(ready.begin(), ready.end());
  }
  // Ready times carry over from one period to the next: a late rank stays
  // late. Three periods show the steady growth; the rest is extrapolated.
  std::fill(ready.begin(), ready.end(), 0.0);
  const int simulated = static_cast<int>(std::min(periods, 3.0));
  double last_end = 0, growth = 0;
  for (int period = 0; period < simulated; ++period) {
    // A rank's exchange starts when its partners reach it too: a late
    // partner's message arrives late (and a rendezvous send waits for its
    // receiver). The collectives leave ranks at different times (the
    // hand-back of an allreduce over 80 ranks): 8-byte halos between them
    // took SMPI 25 us an iteration more than with every rank starting
    // together (bench/RESULTS.md, issue 35).
    if (!simulate.charge(p2p.size() + pass)) return t;
    start = ready;
    for (const Flow& f : p2p) {
      start[f.dst] = std::max(start[f.dst], ready[f.src]);
      if (f.bytes >= kEagerLimitBytes) start[f.src] = std::max(start[f.src], ready[f.dst]);
    }
    for (std::size_t r = 0; r < ready.size(); ++r) ready[r] = start[r] + p2p_rank_ns[r] / periods;
    for (Group& g : groups) {
      if (g.calls_median < periods / 2) continue;
      if (!simulate.charge(2 * pass)) return t;
      before = ready;
      if (!run_call(g, ready, simulate)) return t;
      const double weight = std::min(1.0, g.calls_median / periods);
      if (weight < 1)
        for (std::size_t r = 0; r < ready.size(); ++r) ready[r] = before[r] + weight * (ready[r] - before[r]);
    }
    const double end = *std::max_element(ready.begin(), ready.end());
    growth = end - last_end;
    last_end = end;
  }
  t.total_ns = last_end + (periods - simulated) * growth + apart;
  const auto last = static_cast<std::size_t>(std::max_element(ready.begin(), ready.end()) - ready.begin());
  t.p2p_ns = p2p_rank_ns[last];
  t.computed = true;
  return t;
}

}  // namespace rankmap::detail
