// Messages in flight between ranks that each run a program (the pipeline
// model's stages, the exchange program's iterations): the event loop both
// share. The caller starts a message once both its ends have posted it;
// this times it (its latency, then its bytes at a max-min fair share of
// its route, shares recomputed at every start and end) and says when it
// ends, so that the caller can move its ranks on and start more.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <queue>
#include <utility>
#include <vector>

#include "score/phase_simulator.hpp"

namespace rankmap::detail {

class MessageEvents {
 public:
  // `flows`: one per pair (its latency, route and one message's bytes),
  // their routes already given to sim.group_routes().
  MessageEvents(const std::vector<Flow>& flows, PhaseSimulator& sim, double bytes_per_ns)
      : flows_(flows), sim_(sim), bytes_per_ns_(bytes_per_ns), left_(flows.size(), 0), rate_(flows.size(), 0) {}

  // Flow f's next message, both ends posted by `at`: its latency first,
  // then its bytes (in a node alone at the link rate).
  void start(std::uint32_t f, double at) {
    const Flow& flow = flows_[f];
    const double streaming = at + flow.start_ns;
    if (bytes_per_ns_ <= 0 || flow.bytes <= 0) {
      timed_.emplace(streaming, f);
    } else if (flow.resources.empty()) {
      timed_.emplace(streaming + flow.bytes / bytes_per_ns_, f);
    } else {
      left_[f] = flow.bytes;
      waiting_.emplace(streaming, f);
    }
  }

  // Runs until no message is in flight, or the simulator's budget runs
  // out (its charge() then false). received(f, now) is called for each
  // message as it ends, those ending together in flow order (the same
  // order whatever the heaps'); it may start() more.
  template <class Received>
  void run(Received&& received) {
    double now = 0;
    std::vector<std::uint32_t> ended;
    for (;;) {
      if (changed_) sim_.share(live_, rate_), changed_ = false;
      double next = std::numeric_limits<double>::infinity();
      if (!waiting_.empty()) next = waiting_.top().first;
      if (!timed_.empty()) next = std::min(next, timed_.top().first);
      for (const std::uint32_t f : live_) next = std::min(next, now + left_[f] / rate_[f]);
      if (next == std::numeric_limits<double>::infinity() || !sim_.charge(live_.size() + 1)) return;
      ended.clear();
      std::size_t kept = 0;
      for (const std::uint32_t f : live_) {
        left_[f] -= rate_[f] * (next - now);
        // Flows of one size on equal shares end together.
        if (left_[f] <= 1e-9 * flows_[f].bytes)
          ended.push_back(f), changed_ = true;
        else
          live_[kept++] = f;
      }
      live_.resize(kept);
      now = next;
      while (!timed_.empty() && timed_.top().first <= now) ended.push_back(timed_.top().second), timed_.pop();
      while (!waiting_.empty() && waiting_.top().first <= now)
        live_.push_back(waiting_.top().second), waiting_.pop(), changed_ = true;
      std::sort(ended.begin(), ended.end());
      for (const std::uint32_t f : ended) received(f, now);
    }
  }

 private:
  using Event = std::pair<double, std::uint32_t>;
  using Heap = std::priority_queue<Event, std::vector<Event>, std::greater<>>;

  const std::vector<Flow>& flows_;
  PhaseSimulator& sim_;
  double bytes_per_ns_;
  std::vector<double> left_, rate_;  // bytes still to stream, and at what rate
  std::vector<std::uint32_t> live_;  // streaming
  Heap waiting_;                     // in their latency: when they start streaming
  Heap timed_;                       // ending at a known time (in a node, or no bytes)
  bool changed_ = false;
};

}  // namespace rankmap::detail
