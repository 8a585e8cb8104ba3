// Partitioners balance within a tolerance; a node has an exact number of
// slots. Internal to libmap.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/undirected.hpp"

namespace rankmap::detail {

// Moves vertices out of over-full parts into under-full ones, those that
// lose the least traffic first, until part p has exactly sizes[p].
void enforce_part_sizes(const UndirectedGraph& g, std::vector<int>& part, const std::vector<std::uint32_t>& sizes);

}  // namespace rankmap::detail
