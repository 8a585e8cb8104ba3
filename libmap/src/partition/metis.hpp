// METIS, called from here only: a graph into parts of exact sizes. METIS
// returns METIS_OK (1) on success; any other value becomes an internal
// rankmap::Error. Used by the engine (map/) and by the mesh generator
// (gen/). Internal to libmap.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/undirected.hpp"

namespace rankmap::detail {

// The order METIS sees the vertices in. METIS's result follows the vertex
// order more than its seed (Debian's 5.1.0 gave one k-way cut for six
// seeds): `drawn` hands it the graph in an order the seed draws, so each
// trial is a new draw and no rank numbering is favoured (a renumbered twin
// draws from the same distribution). The mesh generator keeps `as_given`,
// so that its graphs stay what they were.
enum class VertexOrder { as_given, drawn };

// A part (0..sizes.size()-1) of every vertex, with exactly sizes[p] in part
// p: METIS k-way (or, with `recursive`, recursive bisection) into parts of
// weights proportional to sizes, `cuts` tries keeping the best, then
// enforce_part_sizes().
std::vector<int> metis_split(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes, std::uint64_t seed,
                             int cuts, bool recursive, VertexOrder order);

// How many vertices each part takes when the graph decides: METIS k-way
// with part p allowed up to capacity[p] vertices (targets in proportion to
// capacity). Sums to g.n, none above its capacity; all zero when the
// capacities sum to less than g.n.
std::vector<std::uint32_t> metis_shares(const UndirectedGraph& g, const std::vector<std::uint32_t>& capacity,
                                        std::uint64_t seed, int cuts);

inline std::vector<int> partition_metis_kway(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes,
                                             std::uint64_t seed, int cuts) {
  return metis_split(g, sizes, seed, cuts, false, VertexOrder::as_given);
}

}  // namespace rankmap::detail
