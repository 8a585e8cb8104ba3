// The flow model (gain.hpp's flow_times) for the engine's candidates: it
// gives up on a mapping as soon as the mapping is sure to be slower than
// one already timed, and guesses which to time first.
#pragma once

#include <optional>
#include <vector>

#include "machine/node_geometry.hpp"
#include "rankmap/gain.hpp"
#include "score/phase_simulator.hpp"

namespace rankmap::detail {

// FlowTimes::why when flow_times_below() stopped at its limit. Compare the
// text, not the pointer: a sanitizer build keeps each translation unit's
// copy of the literal apart (the engine took a stop for a budget there).
inline constexpr const char* kSlowerThanLimit = "slower than the limit it was given";

// flow_times(), but once some rank's point-to-point phases alone take more
// than above_ns (its collectives can only add to them) it stops: computed
// false, why kSlowerThanLimit. Where collectives are replayed by rounds
// there is no such bound, and it runs to the end.
FlowTimes flow_times_below(const Graph& p2p, const Graph& collective, const Machine& machine,
                           const Allocation& allocation, const Mapping& mapping,
                           const std::vector<CollectiveCalls>* calls, double above_ns);

// The messages of a phase at most: one per pair of distinct ranks that
// exchange any. Counted before any flow is made: a million-rank graph has
// tens of millions, past kMaxFlowsPerPhase.
std::size_t phase_messages(const Graph& p2p);

// K, the phases (the pipeline's stages, the programs' iterations): the
// (upper) median pair's message count; 0 with no messages.
std::uint64_t phase_count(const Graph& p2p);

// The point-to-point messages as flow_times() has them: one flow per pair
// of distinct ranks that exchange any, with the mapping's latency and
// route, its messages capped at K (the median pair's count; a pair with
// more sends its bytes spread over the K). nullopt past the simulator's
// work budget (a route costs its length).
std::optional<std::vector<Flow>> phase_flows(const Graph& p2p, const Machine& machine, const NodeGeometry& geometry,
                                             const Mapping& mapping, std::size_t nodes, PhaseSimulator& simulate);

// The busiest resource's point-to-point bytes over its rate, in ns (links,
// and the NICs where they are resources of their own, as the flow model
// has them): not a bound on the model's time, but quick, and mostly in its
// order. The engine times its likely fastest candidates first by it, so
// that flow_times_below() stops the others early.
double busiest_resource_ns(const Graph& p2p, const Machine& machine, const Allocation& allocation,
                           const Mapping& mapping);

}  // namespace rankmap::detail
