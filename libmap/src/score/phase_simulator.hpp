// Exchange phases as max-min fair flows (progressive filling): the
// simulator under the flow model's point-to-point phases and its collective
// rounds (gain.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "machine/node_geometry.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/mapping.hpp"

namespace rankmap::detail {

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
inline std::vector<double> resource_rates(const Network& net, std::size_t nodes) {
  const std::size_t links = net.num_links();
  std::vector<double> rate(links + 2 * nodes, net.link_gbps / 8);
  for (std::size_t l = 0; l < links; ++l) rate[l] = net.link_gbps_of(l) / 8;
  return rate;
}

// A message from rank src to dst under `mapping`: start_ns is its latency
// (T(h), or local_ns() inside a node), resources its route (with the NICs
// where they are resources of their own). Bytes and messages are the
// caller's.
inline Flow routed_flow(const Network& net, const NodeGeometry& geometry, const Mapping& mapping, std::size_t nodes,
                        std::uint32_t src, std::uint32_t dst) {
  Flow f;
  f.src = src, f.dst = dst;
  const int a = mapping.ranks[src].node, b = mapping.ranks[dst].node;
  if (a == b) {
    f.start_ns = net.local_ns();
    return f;
  }
  f.start_ns = message_time_ns(net, geometry.hops(a, b));
  const std::size_t links = net.num_links();
  const bool nics = !net.routes_include_nics();
  if (nics) f.resources.push_back(static_cast<std::uint32_t>(links + static_cast<std::size_t>(a)));
  for_each_link(net, geometry.coord_index(a), geometry.coord_index(b),
                [&](std::size_t link) { f.resources.push_back(static_cast<std::uint32_t>(link)); });
  if (nics) f.resources.push_back(static_cast<std::uint32_t>(links + nodes + static_cast<std::size_t>(b)));
  return f;
}

class PhaseSimulator {
 public:
  PhaseSimulator(std::vector<double> capacity, double bytes_per_ns)
      : bytes_per_ns_(bytes_per_ns),
        capacity_(std::move(capacity)),
        room_(capacity_.size()),
        users_(capacity_.size()),
        first_user_(capacity_.size()),
        fill_(capacity_.size()) {}

  // Steps so far, over all runs: each event of progressive filling costs
  // the live flows' resources plus a scan of the resources per bottleneck,
  // each run its flows, and charge() the model's other loops.
  std::uint64_t work() const { return work_; }

  // Counts work done outside run() (a pass over the ranks, routes built,
  // rounds that carry no bytes) against the same budget: every loop of the
  // model is bounded by it, whatever the bytes. False once over the budget.
  bool charge(std::uint64_t steps) {
    work_ += steps;
    return work_ <= kFlowModelWork;
  }

  // When each of `active` (indices into flows) ends, by progressive filling:
  // at every event (a message starting or ending) the resource that leaves
  // its flows the least share fixes their rates, and so on until every
  // streaming flow has one.
  std::vector<double> run(const std::vector<Flow>& flows, const std::vector<std::uint32_t>& active) {
    work_ += active.size() + 1;  // zero-byte and in-node flows cost a step too
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
      while (!pending.empty() && flows[pending.back()].start_ns <= now)
        live.push_back(pending.back()), pending.pop_back();
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
        if (left[f] <= 1e-9 * flows[f].bytes)
          end[f] = now;
        else
          live[kept++] = f;
      }
      live.resize(kept);
    }
    return end;
  }

  // Each of `live`'s rate (into rate[f]): the resource that leaves its
  // flows the least share fixes their rates, and so on until every live
  // flow has one (max-min fairness).
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

 private:
  double bytes_per_ns_;
  std::vector<double> capacity_;
  std::vector<double> room_;
  std::vector<std::uint32_t> users_, first_user_, fill_, touched_, user_list_;
  std::vector<char> fixed_;
  std::uint64_t work_ = 0;
};

}  // namespace rankmap::detail
