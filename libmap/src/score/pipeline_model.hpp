// The pipeline model's time of one mapping, for the engine: how it ranks
// its candidates when the traffic is one-way (gain.hpp's pipeline term).
#pragma once

#include <optional>

#include "rankmap/allocation.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/mapping.hpp"

namespace rankmap::detail {

// K stages of the pipeline under `mapping`, each rank computing for
// compute_ns a stage (pipeline_times' c). nullopt where the model does not
// apply (not a pipeline, or past its work budget).
std::optional<double> pipeline_run_ns(const Graph& p2p, const Machine& machine, const Allocation& allocation,
                                      const Mapping& mapping, double compute_ns);

}  // namespace rankmap::detail
