#include "gen/points.hpp"

#include <algorithm>

namespace rankmap::detail {

std::vector<Point> random_points(std::uint32_t n, Rng& rng) {
  std::vector<Point> p(n);
  for (auto& q : p)
    for (double& c : q) c = static_cast<double>(rng.next() >> 11) / 9007199254740992.0;  // 53 bits in [0, 1)
  return p;
}

NearPoints near_points(const std::vector<Point>& p, double radius, int side) {
  const auto n = static_cast<std::uint32_t>(p.size());
  auto bucket = [&](double c) { return std::min(side - 1, static_cast<int>(c * side)); };
  std::vector<std::vector<std::uint32_t>> buckets(static_cast<std::size_t>(side) * side * side);
  for (std::uint32_t i = 0; i < n; ++i)
    buckets[(static_cast<std::size_t>(bucket(p[i][2])) * side + bucket(p[i][1])) * side + bucket(p[i][0])].push_back(i);
  NearPoints near;
  near.xadj.assign(n + 1, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    const int bx = bucket(p[i][0]), by = bucket(p[i][1]), bz = bucket(p[i][2]);
    for (int z = std::max(0, bz - 1); z <= std::min(side - 1, bz + 1); ++z)
      for (int y = std::max(0, by - 1); y <= std::min(side - 1, by + 1); ++y)
        for (int x = std::max(0, bx - 1); x <= std::min(side - 1, bx + 1); ++x)
          for (std::uint32_t j : buckets[(static_cast<std::size_t>(z) * side + y) * side + x]) {
            if (j == i) continue;
            double d2 = 0;
            for (int k = 0; k < 3; ++k) d2 += (p[i][k] - p[j][k]) * (p[i][k] - p[j][k]);
            if (d2 <= radius * radius) near.adj.push_back(j);
          }
    std::sort(near.adj.begin() + static_cast<std::ptrdiff_t>(near.xadj[i]), near.adj.end());
    near.xadj[i + 1] = near.adj.size();
  }
  return near;
}

}  // namespace rankmap::detail
