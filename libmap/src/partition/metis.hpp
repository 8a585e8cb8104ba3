// METIS, called from here only: a graph into parts of exact sizes. METIS
// returns METIS_OK (1) on success; any other value becomes an internal
// rankmap::Error. Used by the engine (map/) and by the mesh generator
// (gen/). Internal to libmap.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/undirected.hpp"

namespace rankmap::detail {

// A part (0..sizes.size()-1) of every vertex, with exactly sizes[p] in part
// p: METIS k-way (or, with `recursive`, recursive bisection) into parts of
// weights proportional to sizes, `cuts` tries keeping the best, then
// enforce_part_sizes().
std::vector<int> metis_split(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes, std::uint64_t seed,
                             int cuts, bool recursive);

inline std::vector<int> partition_metis_kway(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes,
                                             std::uint64_t seed, int cuts) {
  return metis_split(g, sizes, seed, cuts, false);
}

}  // namespace rankmap::detail
