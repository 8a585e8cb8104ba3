// A random geometric graph: ranks are points in the unit cube, and two
// ranks closer than r exchange bytes that fall with distance, like the
// neighbour lists of a particle code. Unlike the irregular generator's
// METIS quotient, degrees vary widely and nothing in the graph was cut to
// fit a partitioner.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "gen/points.hpp"
#include "rankmap/error.hpp"
#include "rankmap/generate.hpp"

namespace rankmap {

Graph make_geometric(const GeometricSpec& spec) {
  if (spec.ranks < 2) throw Error(ErrorKind::argument, Parameter{"ranks"}, "expected at least 2 ranks");
  if (!(spec.degree > 0) || spec.degree > 1000)
    throw Error(ErrorKind::argument, Parameter{"degree"}, "expected a mean degree in (0, 1000]");
  Rng rng(spec.seed);
  const std::vector<detail::Point> p = detail::random_points(spec.ranks, rng);
  // n * 4/3 pi r^3 neighbours inside the cube, fewer near its faces.
  const double r = std::min(1.0, std::cbrt(3.0 * spec.degree / (4.0 * std::numbers::pi * spec.ranks)));
  const int side = std::max(1, static_cast<int>(1.0 / r));  // buckets at least r wide
  const detail::NearPoints near = detail::near_points(p, r, side);
  GraphBuilder builder(spec.ranks);
  for (std::uint32_t i = 0; i < spec.ranks; ++i)
    for (std::uint64_t k = near.xadj[i]; k < near.xadj[i + 1]; ++k) {
      const std::uint32_t j = near.adj[k];
      double d2 = 0;
      for (int c = 0; c < 3; ++c) d2 += (p[i][c] - p[j][c]) * (p[i][c] - p[j][c]);
      const double closeness = 1.0 - std::sqrt(d2) / r;  // 1 at the same point, 0 at r
      const auto bytes =
          static_cast<std::uint64_t>(std::llround(static_cast<double>(spec.bytes) * closeness * closeness));
      builder.add(i, j, std::max<std::uint64_t>(1, bytes), 1);
    }
  return builder.build();
}

}  // namespace rankmap
