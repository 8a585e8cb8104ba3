// The mappings a user gets without rankmap, used as baselines.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rankmap/mapping.hpp"

namespace rankmap {

enum class Baseline {
  block,   // Open MPI's default by-slot: fill the first node's slots, then the next
  rr,      // round-robin by node: rank r on the (r mod nodes)-th node with room
  random,  // a seeded uniform shuffle of the slots
};

std::vector<std::string> baseline_names();  // block, rr, random
// Throws an argument Error about Parameter "baseline" for an unknown name.
Baseline parse_baseline(std::string_view name);
std::string_view baseline_name(Baseline b);

// Throws Error when `ranks` exceeds the allocation's slots, unless
// `oversubscribe`: then the launcher's order is repeated, round after round
// over all slots (as mpirun --oversubscribe does), so no slot holds more
// than its share rounded up.
Mapping baseline_mapping(Baseline kind, const Allocation& allocation, std::size_t ranks, std::uint64_t seed = 1,
                         bool oversubscribe = false);

}  // namespace rankmap
