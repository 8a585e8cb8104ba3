// Fiduccia-Mattheyses refinement of a k-way cut that keeps every part's
// size: each pair of parts that share traffic in turn, heaviest first.
// Used where a cut between a dragonfly's groups matters most: the joint
// bisection's cut into whole groups. Internal to libmap.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/undirected.hpp"
#include "rankmap/random.hpp"

namespace rankmap::detail {

// Moves vertices between parts (part[v], any ints; g without self-loops, as
// make_undirected builds it) so that the cut's weight
// falls, every part keeping its number of vertices, in up to `rounds`
// rounds over the pairs or until `budget` edge ends are read; returns the
// weight saved (each edge counted once). The same result for the same
// input: no randomness, ties to the lower vertex.
std::uint64_t refine_cut_pairwise(const UndirectedGraph& g, std::vector<int>& part, std::uint64_t budget,
                                  int rounds = 4);

// Iterated local search from a refined cut: `rounds` times, a copy of the
// best parts has `moves` vertices next to another part swapped each with a
// random vertex of that part (sizes kept), is refined pairwise within
// `budget` edge ends, and becomes the best when its cut is lower. A
// refined cut is a local minimum of single moves and of FM's passes; a
// few dozen swaps at once leave it for a neighbouring one. Returns the
// weight saved; the same result for the same input and generator state.
std::uint64_t perturb_and_refine(const UndirectedGraph& g, std::vector<int>& part, Rng& rng, int rounds,
                                 std::uint32_t moves, std::uint64_t budget);

// The weight of the edges between parts, each counted once.
std::uint64_t cut_weight(const UndirectedGraph& g, const std::vector<int>& part);

}  // namespace rankmap::detail
