// Exchange phases as max-min fair flows (progressive filling): the
// simulator under the flow model's point-to-point phases and its collective
// rounds (gain.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "machine/node_geometry.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/mapping.hpp"

namespace rankmap::detail {

// About two seconds of simulation on this project's machines: beyond it the
// model gives up (FlowTimes::computed false) rather than stall a map. Half
// of it (about a second) left HPCC 64 spread one rank a node over the
// 4x4x4 torus untimed, at 603 million steps: `map` kept a packed mapping
// the model puts 45 % slower (bench/RESULTS.md, issue 54, fourteenth
// session).
constexpr std::uint64_t kFlowModelWork = std::uint64_t{800} << 20;
// FlowTimes::why and PipelineTimes::why past it.
static_assert(kFlowModelWork == 838'860'800, "the budget's text below says 838,860,800");
inline constexpr const char* kFlowModelWorkRanOut = "its work budget of 838,860,800 steps (about two seconds) ran out";

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
  // the live routes' resources and the live flows, plus a scan of the
  // resources per share fixed; each run its flows and their routes'
  // numbering; and charge() the model's other loops.
  std::uint64_t work() const { return work_; }
  // Whether the last run() stopped at its give_up times.
  bool gave_up() const { return gave_up_; }

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
  //
  // With `give_up` (a time for each rank), it stops as soon as some rank is
  // sure to end the phase after its time (gave_up() is then true): a rank
  // ends with the last message it receives, or sends from kEagerLimitBytes.
  std::vector<double> run(const std::vector<Flow>& flows, const std::vector<std::uint32_t>& active,
                          const std::vector<double>* give_up = nullptr) {
    work_ += active.size() + 1;  // zero-byte and in-node flows cost a step too
    gave_up_ = false;
    auto past = [&](std::uint32_t f, double t) {
      const Flow& flow = flows[f];
      return give_up && (t > (*give_up)[flow.dst] || (flow.bytes >= kEagerLimitBytes && t > (*give_up)[flow.src]));
    };
    group_routes(flows, active);
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
        continue;
      }
      if (past(f, end[f])) {
        gave_up_ = true;
        return end;
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
      share(live, rate);
      double step = pending.empty() ? -1 : flows[pending.back()].start_ns - now;
      for (std::uint32_t f : live) {
        const double t = left[f] / rate[f];
        if (step < 0 || t < step) step = t;
      }
      now += step;
      std::size_t kept = 0;
      for (std::uint32_t f : live) {
        if (past(f, now)) {  // it ends now or later
          gave_up_ = true;
          return end;
        }
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

  // Numbers the routes of `flows` (those of `of`; all when empty): flows
  // with the same resources share a route, and share() gives them one
  // rate. Each route's resources are kept in one array, in route order,
  // and each resource's routes in another: share() walks them at every
  // event. Before share() on flows run() has not seen; run() calls it.
  void group_routes(const std::vector<Flow>& flows, const std::vector<std::uint32_t>& of = {}) {
    std::vector<std::uint32_t> order = of;
    if (of.empty())
      for (std::uint32_t f = 0; f < flows.size(); ++f) order.push_back(f);
    std::erase_if(order, [&](std::uint32_t f) { return flows[f].resources.empty(); });
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return flows[a].resources != flows[b].resources ? flows[a].resources < flows[b].resources : a < b;
    });
    route_of_.assign(flows.size(), 0);
    route_start_.assign(1, 0);
    route_resources_.clear();
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::vector<std::uint32_t>& resources = flows[order[i]].resources;
      if (i == 0 || resources != flows[order[i - 1]].resources) {
        route_resources_.insert(route_resources_.end(), resources.begin(), resources.end());
        route_start_.push_back(static_cast<std::uint32_t>(route_resources_.size()));
      }
      route_of_[order[i]] = static_cast<std::uint32_t>(route_start_.size() - 2);
      work_ += resources.size() + 1;
    }
    const std::size_t routes = route_start_.size() - 1;
    // Each resource's routes, in route order, once a run: share() takes a
    // bottleneck's live routes from them, where it had sorted the live
    // routes by resource at every event (HPCC 64 on the 4x4x4 torus: the
    // whole map in 0.87-0.89 of the time; bench/RESULTS.md, issue 54,
    // twenty-first session). A counting sort in users_, which is zero
    // outside share(); its steps are the routes' resources counted above.
    used_.clear();
    for (std::uint32_t r : route_resources_)
      if (users_[r]++ == 0) used_.push_back(r);
    std::uint32_t at = 0;
    for (std::uint32_t r : used_) first_user_[r] = fill_[r] = at, at += users_[r], users_[r] = 0;
    user_list_.resize(at);
    for (std::uint32_t k = 0; k < routes; ++k)
      for (std::uint32_t i = route_start_[k]; i < route_start_[k + 1]; ++i)
        user_list_[fill_[route_resources_[i]]++] = k;
    members_.assign(routes, 0);
    route_rate_.assign(routes, 0);
    route_fixed_.assign(routes, 0);
  }

  // Each of `live`'s rate (into rate[f], live indexing the flows last
  // given to group_routes()): the resource that leaves its
  // flows the least share fixes their rates, and so on until every live
  // flow has one (max-min fairness). Flows of one route get one rate, so
  // each route is one user of its resources, weighing its live flows: at
  // two ranks a node, a pair of nodes' four flows cost as one (HPCC 64 on
  // the Dragonfly+: bench/RESULTS.md, issue 54, thirteenth session).
  void share(const std::vector<std::uint32_t>& live, std::vector<double>& rate) {
    routes_.clear();  // the live routes
    for (std::uint32_t f : live)
      if (members_[route_of_[f]]++ == 0) routes_.push_back(route_of_[f]);
    auto resources_of = [&](std::uint32_t k) {
      return std::span<const std::uint32_t>(route_resources_.data() + route_start_[k],
                                            route_start_[k + 1] - route_start_[k]);
    };
    touched_.clear();
    std::size_t at = 0;
    for (std::uint32_t k : routes_) {
      for (std::uint32_t r : resources_of(k)) {
        if (users_[r] == 0) touched_.push_back(r);
        users_[r] += members_[k];
      }
      at += route_start_[k + 1] - route_start_[k];
    }
    for (std::uint32_t r : touched_) room_[r] = capacity_[r];
    work_ += at + live.size();
    std::size_t unfixed = routes_.size();
    while (unfixed > 0) {
      // The least share, and every resource at it. Fixing flows at the
      // least share s leaves a resource that was at s at s, so they all
      // saturate together and one scan serves them (on the Dragonfly+ at
      // one rank a node, every node cable starts at one share). A resource
      // whose flows are all fixed leaves the scan.
      double least = -1;
      bottlenecks_.clear();
      std::size_t kept = 0;
      for (std::uint32_t r : touched_)
        if (users_[r] > 0) {
          touched_[kept++] = r;
          const double s = room_[r] / users_[r];
          if (least < 0 || s < least) least = s, bottlenecks_.clear();
          if (s == least) bottlenecks_.push_back(r);
        }
      work_ += touched_.size();
      touched_.resize(kept);
      for (std::uint32_t best : bottlenecks_) {
        if (users_[best] == 0) continue;  // fixed through the others
        const double best_share = room_[best] / users_[best];
        for (std::uint32_t i = first_user_[best]; i < fill_[best]; ++i) {
          const std::uint32_t k = user_list_[i];
          if (route_fixed_[k] || members_[k] == 0) continue;  // fixed, or not live
          route_fixed_[k] = 1, --unfixed;
          const std::uint32_t m = members_[k];
          route_rate_[k] = std::max(best_share, 1e-12 * bytes_per_ns_);
          for (std::uint32_t r : resources_of(k)) room_[r] = std::max(0.0, room_[r] - m * best_share), users_[r] -= m;
        }
      }
    }
    for (std::uint32_t f : live) rate[f] = route_rate_[route_of_[f]];
    for (std::uint32_t k : routes_) route_fixed_[k] = 0, members_[k] = 0;
  }

 private:
  double bytes_per_ns_;
  std::vector<double> capacity_;
  std::vector<double> room_;
  std::vector<std::uint32_t> users_, first_user_, fill_, touched_, user_list_, bottlenecks_, used_;
  std::vector<std::uint32_t> route_of_;                       // each flow's route
  std::vector<std::uint32_t> route_start_, route_resources_;  // each route's resources, one after another
  std::vector<std::uint32_t> members_, routes_;               // each route's live flows; the live routes
  std::vector<double> route_rate_;
  std::vector<char> route_fixed_;
  std::uint64_t work_ = 0;
  bool gave_up_ = false;
};

}  // namespace rankmap::detail
