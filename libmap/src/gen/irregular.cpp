#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "gen/points.hpp"
#include "graph/undirected.hpp"
#include "partition/metis.hpp"
#include "rankmap/error.hpp"
#include "rankmap/generate.hpp"
#include "rankmap/random.hpp"

namespace rankmap {

Graph make_irregular(const IrregularSpec& spec) {
  if (spec.ranks < 2 || spec.cells_per_rank < 1)
    throw Error(ErrorKind::argument, Parameter{"ranks"}, "expected at least 2 ranks and 1 cell per rank");
  const std::uint64_t n64 = static_cast<std::uint64_t>(spec.ranks) * spec.cells_per_rank;
  if (n64 > 50'000'000)
    throw Error(ErrorKind::argument, Parameter{"cells_per_rank"}, "too many mesh cells (at most 50 million)");
  const auto n = static_cast<std::uint32_t>(n64);
  // Points joined to those within r, about 8 neighbours a point on average.
  Rng rng(spec.seed);
  const std::vector<detail::Point> p = detail::random_points(n, rng);
  const int side = std::max(1, static_cast<int>(std::cbrt(n / 2.0)));
  detail::NearPoints near = detail::near_points(p, 1.2 / side, side);
  detail::UndirectedGraph mesh;
  mesh.n = n;
  mesh.xadj = std::move(near.xadj);
  mesh.adjncy = std::move(near.adj);
  mesh.weight.assign(mesh.adjncy.size(), 1);
  const std::vector<std::uint32_t> sizes(spec.ranks, spec.cells_per_rank);
  const std::vector<int> part = detail::partition_metis_kway(mesh, sizes, spec.seed, 1);
  // The quotient: bytes per mesh edge between two ranks' cells.
  std::unordered_map<std::uint64_t, std::uint64_t> shared;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint64_t e = mesh.xadj[i]; e < mesh.xadj[i + 1]; ++e) {
      const int a = part[i], b = part[mesh.adjncy[e]];
      if (a != b) ++shared[static_cast<std::uint64_t>(a) << 32 | static_cast<std::uint32_t>(b)];
    }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> edges(shared.begin(), shared.end());
  std::sort(edges.begin(), edges.end());
  GraphBuilder builder(spec.ranks);
  for (const auto& [key, count] : edges)
    builder.add(static_cast<std::uint32_t>(key >> 32), static_cast<std::uint32_t>(key), count * spec.bytes, count);
  return builder.build();
}

}  // namespace rankmap
