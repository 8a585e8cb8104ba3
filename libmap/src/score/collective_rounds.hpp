// The flow model's collective term when the profile records calls (version
// 2): collectives replayed round by round, each rank waiting for its
// partners (gain.hpp, flow_times). Internal to libmap.
#pragma once

#include <vector>

#include "machine/node_geometry.hpp"
#include "rankmap/profile.hpp"
#include "score/phase_simulator.hpp"

namespace rankmap::detail {

struct RoundsTime {
  bool computed = false;  // false: over the simulator's work limit
  double total_ns = 0;    // the run's communication time
  double p2p_ns = 0;      // the point-to-point part of the rank that ends last
};

// p2p_rank_ns: each rank's point-to-point time over the whole run (the
// flow model's exchange phases); p2p: their messages, one per pair (who
// waits for whom).
RoundsTime collective_rounds_time(const std::vector<CollectiveCalls>& calls, const std::vector<double>& p2p_rank_ns,
                                  const std::vector<Flow>& p2p, const Machine& machine, const NodeGeometry& geometry,
                                  const Mapping& mapping, std::size_t nodes, PhaseSimulator& simulate);

}  // namespace rankmap::detail
