// Random points in the unit cube and the pairs of them closer than a
// radius: the raw material of the irregular and geometric generators.
// Internal to libmap.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "rankmap/random.hpp"

namespace rankmap::detail {

using Point = std::array<double, 3>;

std::vector<Point> random_points(std::uint32_t n, Rng& rng);

// For every point i, the points j != i within `radius` of it, ascending:
// adj[xadj[i]] .. adj[xadj[i + 1] - 1].
// Points are looked up in a side^3 grid of buckets, one bucket either way;
// pairs further apart than a bucket and a half may be missed when the
// buckets are narrower than the radius, as they are for the irregular mesh.
struct NearPoints {
  std::vector<std::uint64_t> xadj;
  std::vector<std::uint32_t> adj;
};
NearPoints near_points(const std::vector<Point>& p, double radius, int side);

}  // namespace rankmap::detail
