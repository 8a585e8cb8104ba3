// Generators checked against brute force: every pair of points is measured.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <set>

#include "core/workers.hpp"
#include "gen/points.hpp"
#include "rankmap/error.hpp"
#include "rankmap/generate.hpp"

namespace rankmap {
namespace {

TEST(Generate, GeometricJoinsExactlyThePairsWithinTheRadius) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const GeometricSpec spec{500, 12, 1000, seed};
    const Graph g = make_geometric(spec);
    Rng rng(seed);
    const auto p = detail::random_points(spec.ranks, rng);
    const double r = std::cbrt(3.0 * spec.degree / (4.0 * std::numbers::pi * spec.ranks));
    std::set<std::pair<std::uint32_t, std::uint32_t>> expected;
    for (std::uint32_t i = 0; i < spec.ranks; ++i)
      for (std::uint32_t j = 0; j < spec.ranks; ++j) {
        const double d = std::hypot(p[i][0] - p[j][0], p[i][1] - p[j][1], p[i][2] - p[j][2]);
        if (i != j && d <= r) expected.insert({i, j});
      }
    std::set<std::pair<std::uint32_t, std::uint32_t>> found;
    for (std::uint32_t i = 0; i < g.ranks; ++i)
      for (std::uint64_t e = g.offsets[i]; e < g.offsets[i + 1]; ++e) {
        found.insert({i, g.targets[e]});
        EXPECT_GE(g.bytes[e], 1u);
        EXPECT_LE(g.bytes[e], spec.bytes);
      }
    EXPECT_EQ(found, expected) << "seed " << seed;
    // 500 points, 12 neighbours in the open: fewer near the cube's faces.
    EXPECT_GT(expected.size(), 500u * 6);
  }
}

// Over 65,536 ranks the mesh is cut in two levels (blocks, then ranks in
// each block). With one cell a rank every mesh edge joins two ranks, so the
// quotient is the mesh itself relabelled: as many edges, and the same
// degrees, whichever rank each cell went to, if every rank got one cell.
TEST(Generate, IrregularCutInTwoLevelsGivesEveryRankItsCells) {
  const IrregularSpec spec{65537, 1, 3, 5};
  const Graph g = make_irregular(spec);
  ASSERT_EQ(g.ranks, spec.ranks);
  Rng rng(spec.seed);
  const auto p = detail::random_points(spec.ranks, rng);
  const int side = static_cast<int>(std::cbrt(spec.ranks / 2.0));
  const detail::NearPoints mesh = detail::near_points(p, 1.2 / side, side);
  std::multiset<std::uint64_t> mesh_degrees, rank_degrees;
  for (std::uint32_t i = 0; i < spec.ranks; ++i) {
    mesh_degrees.insert(mesh.xadj[i + 1] - mesh.xadj[i]);
    rank_degrees.insert(g.offsets[i + 1] - g.offsets[i]);
  }
  EXPECT_EQ(g.targets.size(), mesh.adj.size());
  EXPECT_EQ(g.total_bytes(), 3 * mesh.adj.size());
  EXPECT_EQ(rank_degrees, mesh_degrees);
  // The blocks are cut a block a thread: one thread gives the same graph.
  const Graph one_thread = [&] {
    const detail::ThreadsScope scope(1);
    return make_irregular(spec);
  }();
  EXPECT_EQ(one_thread.offsets, g.offsets);
  EXPECT_EQ(one_thread.targets, g.targets);
  EXPECT_EQ(one_thread.bytes, g.bytes);
}

TEST(Generate, GeometricBytesFallWithDistance) {
  const GeometricSpec spec{200, 10, 1'000'000, 5};
  const Graph g = make_geometric(spec);
  Rng rng(spec.seed);
  const auto p = detail::random_points(spec.ranks, rng);
  const double r = std::cbrt(3.0 * spec.degree / (4.0 * std::numbers::pi * spec.ranks));
  for (std::uint32_t i = 0; i < g.ranks; ++i)
    for (std::uint64_t e = g.offsets[i]; e < g.offsets[i + 1]; ++e) {
      const std::uint32_t j = g.targets[e];
      const double d = std::hypot(p[i][0] - p[j][0], p[i][1] - p[j][1], p[i][2] - p[j][2]);
      const double expected = 1e6 * (1 - d / r) * (1 - d / r);
      EXPECT_NEAR(static_cast<double>(g.bytes[e]), std::max(1.0, expected), 1.0);
    }
}

TEST(Generate, GeometricRefusesNonsense) {
  EXPECT_THROW(make_geometric({1, 10, 1, 1}), Error);
  EXPECT_THROW(make_geometric({10, 0, 1, 1}), Error);
}

}  // namespace
}  // namespace rankmap
