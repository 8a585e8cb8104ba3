// The flow model (gain.hpp's flow_times) for the engine's candidates: it
// gives up on a mapping as soon as the mapping is sure to be slower than
// one already timed, and guesses which to time first.
#pragma once

#include <vector>

#include "rankmap/gain.hpp"

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

// The busiest resource's point-to-point bytes over its rate, in ns (links,
// and the NICs where they are resources of their own, as the flow model
// has them): not a bound on the model's time, but quick, and mostly in its
// order. The engine times its likely fastest candidates first by it, so
// that flow_times_below() stops the others early.
double busiest_resource_ns(const Graph& p2p, const Machine& machine, const Allocation& allocation,
                           const Mapping& mapping);

}  // namespace rankmap::detail
