// rankmap::map: the mapping engine (shared/design.md, "Stages of map()").
//  1. Between nodes: partition the ranks into one part per node, each the
//     size of its node's slots (METIS k-way, recursive bisection with the
//     torus, or Scotch).
//  2. Onto the torus: place the parts on nodes from several starts, improve
//     the best by swaps on hop-bytes, then on the most loaded link.
//  3. Inside each node: split its ranks over packages and cores, heaviest
//     pairs closest.
// Pure: the same inputs and Context give the same Mapping.
#pragma once

#include <functional>
#include <string_view>

#include "rankmap/context.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/mapping.hpp"

namespace rankmap {

// Called between stages with a short description; may be empty.
using StageCallback = std::function<void(std::string_view stage)>;

// Throws Error when the ranks do not fit the allocation (unless
// context.oversubscribe) or the graph is unusable.
Mapping map(const Graph& graph, const Machine& machine, const Allocation& allocation,
            const Context& context, const StageCallback& on_stage = {});

}  // namespace rankmap
