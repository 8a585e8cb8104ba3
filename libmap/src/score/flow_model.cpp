// The flow model of gain.hpp: exchange phases as max-min fair flows,
// collectives as chains.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "machine/node_geometry.hpp"
#include "rankmap/error.hpp"
#include "rankmap/gain.hpp"
#include "score/mapping_size.hpp"

namespace rankmap {

namespace {

// About a second of simulation on this project's machines: beyond it the
// model gives up (FlowTimes::computed false) rather than stall a map.
constexpr std::uint64_t kFlowModelWork = std::uint64_t{400} << 20;

// One message of a phase: who sends and receives it, its size, when it
// starts streaming, and the resources it streams through (empty inside a
// node).
struct Flow {
  std::uint32_t src = 0, dst = 0;
  double bytes = 0, start_ns = 0;
  std::uint64_t messages = 0;  // the pair's: it takes part in the first `messages` phases
  std::vector<std::uint32_t> resources;
};

// Resources: network links by Network::link_id, then each allocated node's
// injection link, then its ejection link (unused where routes include the
// NICs, as a tree's do). Each streams its rate in bytes a ns, each way.
std::vector<double> resource_rates(const Network& net, std::size_t nodes) {
  const std::size_t links = net.num_links();
  std::vector<double> rate(links + 2 * nodes, net.link_gbps / 8);
  for (std::size_t l = 0; l < links; ++l) rate[l] = net.link_gbps_of(l) / 8;
  return rate;
}

class PhaseSimulator {
 public:
  PhaseSimulator(std::vector<double> capacity, double bytes_per_ns)
      : bytes_per_ns_(bytes_per_ns), capacity_(std::move(capacity)), room_(capacity_.size()), users_(capacity_.size()),
        first_user_(capacity_.size()), fill_(capacity_.size()) {}

  // Steps of progressive filling so far, over all runs: each event costs
  // the live flows' resources plus a scan of the resources per bottleneck.
  std::uint64_t work() const { return work_; }

  // When each of `active` (indices into flows) ends, by progressive filling:
  // at every event (a message starting or ending) the resource that leaves
  // its flows the least share fixes their rates, and so on until every
  // streaming flow has one.
  std::vector<double> run(const std::vector<Flow>& flows, const std::vector<std::uint32_t>& active) {
    std::vector<double> end(flows.size(), 0), left(flows.size(), 0), rate(flows.size(), 0);
    std::vector<std::uint32_t> pending;  // network flows not yet streaming, latest start first
    for (std::uint32_t f : active) {
      const Flow& flow = flows[f];
      if (bytes_per_ns_ <= 0 || flow.bytes <= 0) {
        end[f] = flow.start_ns;  // latency only
      } else if (flow.resources.empty()) {
        end[f] = flow.start_ns + flow.bytes / bytes_per_ns_;  // inside a node: alone at the link rate
      } else {
        left[f] = flow.bytes;
        pending.push_back(f);
      }
    }
    std::sort(pending.begin(), pending.end(),
              [&](std::uint32_t a, std::uint32_t b) { return flows[a].start_ns > flows[b].start_ns; });
    std::vector<std::uint32_t> live;
    double now = 0;
    while ((!live.empty() || !pending.empty()) && work_ <= kFlowModelWork) {
      if (live.empty()) now = std::max(now, flows[pending.back()].start_ns);
      while (!pending.empty() && flows[pending.back()].start_ns <= now) live.push_back(pending.back()), pending.pop_back();
      share(flows, live, rate);
      double step = pending.empty() ? -1 : flows[pending.back()].start_ns - now;
      for (std::uint32_t f : live) {
        const double t = left[f] / rate[f];
        if (step < 0 || t < step) step = t;
      }
      now += step;
      std::size_t kept = 0;
      for (std::uint32_t f : live) {
        left[f] -= rate[f] * step;
        // Flows of one size on equal shares end together: a relative
        // tolerance keeps rounding from making that two events.
        if (left[f] <= 1e-9 * flows[f].bytes) end[f] = now;
        else live[kept++] = f;
      }
      live.resize(kept);
    }
    return end;
  }

 private:
  void share(const std::vector<Flow>& flows, const std::vector<std::uint32_t>& live, std::vector<double>& rate) {
    touched_.clear();
    for (std::uint32_t f : live)
      for (std::uint32_t r : flows[f].resources) {
        if (users_[r] == 0) touched_.push_back(r);
        ++users_[r];
      }
    // Each touched resource's live flows, grouped (a counting sort).
    std::uint32_t at = 0;
    for (std::uint32_t r : touched_) first_user_[r] = at, at += users_[r], room_[r] = capacity_[r];
    user_list_.resize(at);
    for (std::uint32_t r : touched_) fill_[r] = first_user_[r];
    for (std::uint32_t f : live)
      for (std::uint32_t r : flows[f].resources) user_list_[fill_[r]++] = f;
    if (fixed_.size() < flows.size()) fixed_.assign(flows.size(), 0);  // all 0 between calls
    work_ += at;
    std::size_t unfixed = live.size();
    while (unfixed > 0) {
      std::uint32_t best = 0;
      double best_share = -1;
      for (std::uint32_t r : touched_)
        if (users_[r] > 0) {
          const double s = room_[r] / users_[r];
          if (best_share < 0 || s < best_share) best_share = s, best = r;
        }
      work_ += touched_.size();
      for (std::uint32_t i = first_user_[best]; i < fill_[best]; ++i) {
        const std::uint32_t f = user_list_[i];
        if (fixed_[f]) continue;
        fixed_[f] = 1, --unfixed;
        rate[f] = std::max(best_share, 1e-12 * bytes_per_ns_);
        for (std::uint32_t r : flows[f].resources) room_[r] = std::max(0.0, room_[r] - best_share), --users_[r];
      }
    }
    for (std::uint32_t f : live) fixed_[f] = 0;
  }

  double bytes_per_ns_;
  std::vector<double> capacity_;
  std::vector<double> room_;
  std::vector<std::uint32_t> users_, first_user_, fill_, touched_, user_list_;
  std::vector<char> fixed_;
  std::uint64_t work_ = 0;
};

// The messages of one traffic kind, one per pair of distinct ranks that
// exchange any, with the latency and route of the mapping.
std::vector<Flow> flows_of(const Graph& graph, const Machine& machine, const detail::NodeGeometry& geometry,
                           const Mapping& mapping, std::size_t nodes) {
  const Network& net = machine.network;
  const std::size_t links = net.num_links();
  std::vector<Flow> flows;
  for (std::uint32_t r = 0; r < graph.ranks; ++r)
    for (std::uint64_t e = graph.offsets[r]; e < graph.offsets[r + 1]; ++e) {
      const std::uint32_t s = graph.targets[e];
      if (s == r || graph.msgs[e] == 0) continue;
      Flow f;
      f.src = r, f.dst = s, f.messages = graph.msgs[e];
      f.bytes = static_cast<double>(graph.bytes[e]) / static_cast<double>(graph.msgs[e]);
      const int a = mapping.ranks[r].node, b = mapping.ranks[s].node;
      if (a == b) {
        f.start_ns = net.local_ns();
      } else {
        f.start_ns = message_time_ns(net, geometry.hops(a, b));
        const bool nics = !net.routes_include_nics();  // as resources of their own
        if (nics) f.resources.push_back(static_cast<std::uint32_t>(links + static_cast<std::size_t>(a)));
        for_each_link(net, geometry.coord_index(a), geometry.coord_index(b),
                      [&](std::size_t link) { f.resources.push_back(static_cast<std::uint32_t>(link)); });
        if (nics) f.resources.push_back(static_cast<std::uint32_t>(links + nodes + static_cast<std::size_t>(b)));
      }
      flows.push_back(std::move(f));
    }
  return flows;
}

}  // namespace

FlowTimes flow_times(const Graph& p2p, const Graph& collective, const Machine& machine,
                     const Allocation& allocation, const Mapping& mapping) {
  detail::require_mapping_of(p2p, mapping);
  if (collective.ranks != 0) detail::require_mapping_of(collective, mapping);
  const Network& net = machine.network;
  const detail::NodeGeometry geometry(machine, allocation);
  const std::size_t nodes = allocation.size();
  const double bytes_per_ns = net.link_gbps / 8;
  FlowTimes t;

  std::size_t messages = 0;  // counted before any flow is made: a million-rank graph has tens of millions
  for (std::uint32_t r = 0; r < p2p.ranks; ++r)
    for (std::uint64_t e = p2p.offsets[r]; e < p2p.offsets[r + 1]; ++e) messages += p2p.targets[e] != r && p2p.msgs[e] > 0;
  if (messages > kMaxFlowsPerPhase) return t;
  std::vector<Flow> flows = flows_of(p2p, machine, geometry, mapping, nodes);
  // K, the phases: the (upper) median pair's message count. A pair with
  // more sends its bytes spread over all K (a halo's two faces to one
  // partner, in a grid two ranks deep, go out together, not in phases of
  // their own).
  if (!flows.empty()) {
    std::vector<std::uint64_t> counts;
    for (const Flow& f : flows) counts.push_back(f.messages);
    const auto middle = static_cast<std::ptrdiff_t>(counts.size() / 2);
    std::nth_element(counts.begin(), counts.begin() + middle, counts.end());
    const std::uint64_t k = counts[static_cast<std::size_t>(middle)];
    for (Flow& f : flows)
      if (f.messages > k) f.bytes = f.bytes * static_cast<double>(f.messages) / static_cast<double>(k), f.messages = k;
  }
  std::vector<double> rank_ns(mapping.ranks.size(), 0);
  // Phases j < m hold every pair with more than j messages: between two
  // consecutive message counts of the graph the phases are alike.
  std::vector<std::uint64_t> counts;
  for (const Flow& f : flows) counts.push_back(f.messages);
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  t.phases = counts.empty() ? 0 : static_cast<double>(counts.back());
  const std::vector<double> rate = resource_rates(net, nodes);
  PhaseSimulator simulate(rate, bytes_per_ns);
  std::vector<double> phase_end(mapping.ranks.size());
  std::uint64_t done = 0;  // phases simulated so far
  for (const std::uint64_t count : counts) {
    std::vector<std::uint32_t> active;
    for (std::uint32_t f = 0; f < flows.size(); ++f)
      if (flows[f].messages >= count) active.push_back(f);
    const std::vector<double> end = simulate.run(flows, active);
    if (simulate.work() > kFlowModelWork) return t;
    std::fill(phase_end.begin(), phase_end.end(), 0.0);
    for (std::uint32_t f : active) {
      phase_end[flows[f].dst] = std::max(phase_end[flows[f].dst], end[f]);
      if (flows[f].bytes >= kEagerLimitBytes) phase_end[flows[f].src] = std::max(phase_end[flows[f].src], end[f]);
    }
    const auto repeats = static_cast<double>(count - done);
    for (std::size_t r = 0; r < rank_ns.size(); ++r) rank_ns[r] += repeats * phase_end[r];
    done = count;
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

}  // namespace rankmap
