#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_map>

#include "map/engine.hpp"
#include "rankmap/error.hpp"
#include "rankmap/generate.hpp"
#include "rankmap/random.hpp"

namespace rankmap {

Graph make_irregular(const IrregularSpec& spec) {
  if (spec.ranks < 2 || spec.cells_per_rank < 1) throw Error("--ranks", 0, "expected at least 2 ranks and 1 cell per rank");
  const std::uint64_t n64 = static_cast<std::uint64_t>(spec.ranks) * spec.cells_per_rank;
  if (n64 > 50'000'000) throw Error("--cells", 0, "too many mesh cells (at most 50 million)");
  const auto n = static_cast<std::uint32_t>(n64);
  // Points in buckets of a regular grid, about 2 points a bucket; each point
  // is joined to the points within radius r, looked up in nearby buckets.
  Rng rng(spec.seed);
  std::vector<std::array<double, 3>> p(n);
  for (auto& q : p)
    for (double& c : q) c = static_cast<double>(rng.next() >> 11) / 9007199254740992.0;
  const int side = std::max(1, static_cast<int>(std::cbrt(n / 2.0)));
  const double r = 1.2 / side;  // about 8 neighbours a point on average
  auto bucket = [&](double c) { return std::min(side - 1, static_cast<int>(c * side)); };
  std::vector<std::vector<std::uint32_t>> buckets(static_cast<std::size_t>(side) * side * side);
  for (std::uint32_t i = 0; i < n; ++i)
    buckets[(bucket(p[i][2]) * side + bucket(p[i][1])) * side + bucket(p[i][0])].push_back(i);
  detail::UndirectedGraph mesh;
  mesh.n = n;
  mesh.xadj.assign(n + 1, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    const int bx = bucket(p[i][0]), by = bucket(p[i][1]), bz = bucket(p[i][2]);
    std::vector<std::uint32_t> near;
    for (int z = std::max(0, bz - 1); z <= std::min(side - 1, bz + 1); ++z)
      for (int y = std::max(0, by - 1); y <= std::min(side - 1, by + 1); ++y)
        for (int x = std::max(0, bx - 1); x <= std::min(side - 1, bx + 1); ++x)
          for (std::uint32_t j : buckets[(z * side + y) * side + x]) {
            if (j == i) continue;
            double d2 = 0;
            for (int k = 0; k < 3; ++k) d2 += (p[i][k] - p[j][k]) * (p[i][k] - p[j][k]);
            if (d2 <= r * r) near.push_back(j);
          }
    std::sort(near.begin(), near.end());
    for (std::uint32_t j : near) {
      mesh.adjncy.push_back(j);
      mesh.weight.push_back(1);
    }
    mesh.xadj[i + 1] = mesh.adjncy.size();
  }
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
