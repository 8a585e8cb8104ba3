#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <random>

#include "helpers.hpp"
#include "rankmap/metrics.hpp"
#include "reference_router.hpp"
#include "score/link_loads.hpp"

using namespace rankmap;
using test::Coord;
using test::Link;

namespace {

std::vector<Link> route(const Machine& m, const Coord& a, const Coord& b) {
  auto index = [&](const Coord& c) {
    std::size_t i = 0;
    for (int d = m.network.num_dims() - 1; d >= 0; --d) i = i * m.network.dims[d] + c[d];
    return i;
  };
  std::vector<Link> links;
  for_each_link(m.network, index(a), index(b),
                [&](std::size_t id) { links.push_back(test::decode_link(id, m.network.dims)); });
  return links;
}

constexpr int X = 0, Y = 1, Z = 2, W = 3;

}  // namespace

// Expected routes below were worked out by hand from the rule: per dimension
// the shorter way round, half way round goes `+`, moves in routing order.
TEST(Routing, FourRingWithTie) {
  const Machine m = test::make_machine("[4]", "", "n[0-3]");
  EXPECT_EQ(route(m, {0}, {2}), (std::vector<Link>{{{0}, X, +1}, {{1}, X, +1}}));  // tie: `+`
  EXPECT_EQ(route(m, {3}, {1}), (std::vector<Link>{{{3}, X, +1}, {{0}, X, +1}}));  // tie, through the wrap
  EXPECT_EQ(route(m, {1}, {0}), (std::vector<Link>{{{1}, X, -1}}));
  EXPECT_EQ(route(m, {0}, {3}), (std::vector<Link>{{{0}, X, -1}}));
  EXPECT_TRUE(route(m, {2}, {2}).empty());
}

TEST(Routing, SizeTwoDimensionHasOneCable) {
  // Both directions go `+`: the single cable's two directions are the links
  // 0+X and 1+X, and the `-` links are never used.
  const Machine m = test::make_machine("[2]", "", "n[0-1]");
  EXPECT_EQ(route(m, {0}, {1}), (std::vector<Link>{{{0}, X, +1}}));
  EXPECT_EQ(route(m, {1}, {0}), (std::vector<Link>{{{1}, X, +1}}));
}

TEST(Routing, MeshWithoutWrap) {
  const Machine m = test::make_machine("[4]", "[false]", "n[0-3]");
  EXPECT_EQ(route(m, {0}, {3}), (std::vector<Link>{{{0}, X, +1}, {{1}, X, +1}, {{2}, X, +1}}));
  EXPECT_EQ(route(m, {3}, {0}), (std::vector<Link>{{{3}, X, -1}, {{2}, X, -1}, {{1}, X, -1}}));
  EXPECT_EQ(m.network.diameter(), 3);
}

TEST(Routing, DesmosFourDimensions) {
  const Machine m = load_machine(test::source_dir() / "data/machines/desmos.toml");
  // X: 0 -> 3 is one hop `-`; Y, Z, W one hop `+` each; all `+` moves first.
  EXPECT_EQ(
      route(m, {0, 0, 0, 0}, {3, 1, 1, 1}),
      (std::vector<Link>{{{0, 0, 0, 0}, Y, +1}, {{0, 1, 0, 0}, Z, +1}, {{0, 1, 1, 0}, W, +1}, {{0, 1, 1, 1}, X, -1}}));
  EXPECT_EQ(route(m, {1, 0, 0, 0}, {3, 0, 0, 0}), (std::vector<Link>{{{1, 0, 0, 0}, X, +1}, {{2, 0, 0, 0}, X, +1}}));
  // X 2 -> 0 is a tie (`+` through 3), Y 1 -> 0 on the single cable is `+`.
  EXPECT_EQ(
      route(m, {2, 1, 0, 1}, {0, 0, 1, 1}),
      (std::vector<Link>{{{2, 1, 0, 1}, X, +1}, {{3, 1, 0, 1}, X, +1}, {{0, 1, 0, 1}, Y, +1}, {{0, 0, 0, 1}, Z, +1}}));
}

// Six dimensions (X Y Z W V U, as Tofu's six): by hand, from (0,0,0,0,0,0)
// to (2,1,0,1,1,2) on a 3x2x2x2x2x3 torus. Y, W and V are one hop `+`
// each; on the 3-rings X and U, 0 -> 2 is one hop `-`. `+` moves come
// first in dimension order, then the `-` ones.
TEST(Routing, SixDimensions) {
  const Machine m = test::make_machine("[3, 2, 2, 2, 2, 3]", "", "n[000-143]");
  constexpr int V = 4, U = 5;
  EXPECT_EQ(m.network.routing_string(), "+X+Y+Z+W+V+U-X-Y-Z-W-V-U");
  EXPECT_EQ(route(m, {0, 0, 0, 0, 0, 0}, {2, 1, 0, 1, 1, 2}), (std::vector<Link>{{{0, 0, 0, 0, 0, 0}, Y, +1},
                                                                                 {{0, 1, 0, 0, 0, 0}, W, +1},
                                                                                 {{0, 1, 0, 1, 0, 0}, V, +1},
                                                                                 {{0, 1, 0, 1, 1, 0}, X, -1},
                                                                                 {{2, 1, 0, 1, 1, 0}, U, -1}}));
  EXPECT_EQ(m.network.diameter(), 1 + 1 + 1 + 1 + 1 + 1);
}

TEST(Routing, OrderOfMovesFollowsTheMachine) {
  const Machine plain = test::make_machine("[4, 4]", "", "n[00-15]");
  const Machine minus_first = test::make_machine("[4, 4]", "", "n[00-15]", "package:1 core:1 pu:1", "-X-Y+X+Y");
  EXPECT_EQ(route(plain, {0, 0}, {1, 3}), (std::vector<Link>{{{0, 0}, X, +1}, {{1, 0}, Y, -1}}));
  EXPECT_EQ(route(minus_first, {0, 0}, {1, 3}), (std::vector<Link>{{{0, 0}, Y, -1}, {{0, 3}, X, +1}}));
}

// Every pair of coordinates on several networks: the library's routes equal
// the step-by-step reference router's, and their length is the BFS distance.
TEST(Routing, AllPairsMatchTheReferenceRouter) {
  const std::vector<Machine> machines = {
      test::make_machine("[5]", "", "n[0-4]"),
      test::make_machine("[4, 3]", "[true, false]", "n[00-11]"),
      test::make_machine("[2, 2, 3]", "", "n[00-11]", "package:1 core:1 pu:1", "+Z-Y+X-X+Y-Z"),
      load_machine(test::source_dir() / "data/machines/desmos.toml"),
      load_machine(test::source_dir() / "data/machines/angara-k1.toml"),
      test::make_machine("[3, 2, 2, 2, 2]", "[true, true, false, true, true]", "n[00-47]"),
      // Six dimensions, as Tofu's; the sixth (U) a mesh, routed U first.
      test::make_machine("[3, 2, 2, 2, 2, 3]", "[true, true, true, true, true, false]", "n[000-143]",
                         "package:1 core:1 pu:1", "+U-U+X+Y+Z+W+V-X-Y-Z-W-V"),
  };
  for (const Machine& m : machines) {
    const std::size_t n = m.network.num_coords();
    int max_hops = 0;
    for (std::size_t a = 0; a < n; ++a) {
      const Coord ca = test::coord_of(a, m.network.dims);
      const auto dist = test::bfs_distances(m.network, ca);
      for (std::size_t b = 0; b < n; ++b) {
        const Coord cb = test::coord_of(b, m.network.dims);
        const auto links = route(m, ca, cb);
        ASSERT_EQ(links, test::reference_route(m.network, ca, cb)) << m.network.routing_string();
        ASSERT_EQ(static_cast<int>(links.size()), dist.at(cb));
        int hops = 0;
        for (int d = 0; d < m.network.num_dims(); ++d) hops += m.network.hops_1d(d, ca[d], cb[d]);
        ASSERT_EQ(hops, dist.at(cb));
        max_hops = std::max(max_hops, hops);
      }
    }
    EXPECT_EQ(max_hops, m.network.diameter());
  }
}

// LinkLoads adds a route as runs of links; summing the reference router's
// routes link by link must give the same bytes on every link, wraps and
// size-2 rings included.
TEST(Routing, LinkLoadsEqualTheReferenceRoutesSummed) {
  const std::vector<Machine> machines = {
      test::make_machine("[5]", "", "n[0-4]"),
      test::make_machine("[4, 3]", "[true, false]", "n[00-11]"),
      test::make_machine("[2, 2, 3]", "", "n[00-11]", "package:1 core:1 pu:1", "+Z-Y+X-X+Y-Z"),
      test::make_machine("[6, 7]", "", "n[00-41]", "package:1 core:1 pu:1", "-X-Y+X+Y"),
      load_machine(test::source_dir() / "data/machines/desmos.toml"),
      load_machine(test::source_dir() / "data/machines/angara-k1.toml"),
      test::make_machine("[3, 2, 2, 2, 2]", "[true, true, false, true, true]", "n[00-47]"),
      // Six dimensions, as Tofu's; the sixth (U) a mesh, routed U first.
      test::make_machine("[3, 2, 2, 2, 2, 3]", "[true, true, true, true, true, false]", "n[000-143]",
                         "package:1 core:1 pu:1", "+U-U+X+Y+Z+W+V-X-Y-Z-W-V"),
  };
  std::mt19937_64 rng(12);
  for (const Machine& m : machines) {
    const std::size_t n = m.network.num_coords();
    detail::LinkLoads loads(m.network);
    std::map<Link, std::uint64_t> expected;
    for (int i = 0; i < 3000; ++i) {
      const std::size_t a = rng() % n, b = rng() % n;
      const std::uint64_t bytes = 1 + rng() % 1000;
      const Coord ca = test::coord_of(a, m.network.dims), cb = test::coord_of(b, m.network.dims);
      std::array<int, kMaxDims> from{}, to{};
      std::copy(ca.begin(), ca.end(), from.begin());
      std::copy(cb.begin(), cb.end(), to.begin());
      loads.add_route(from, to, bytes);
      for (const Link& l : test::reference_route(m.network, ca, cb)) expected[l] += bytes;
    }
    const std::vector<std::uint64_t> got = loads.take();
    ASSERT_EQ(got.size(), m.network.num_links());
    std::size_t loaded = 0;
    for (std::size_t id = 0; id < got.size(); ++id) {
      const Link l = test::decode_link(id, m.network.dims);
      const auto it = expected.find(l);
      ASSERT_EQ(got[id], it == expected.end() ? 0 : it->second) << m.network.routing_string() << " link " << id;
      loaded += got[id] > 0;
    }
    EXPECT_EQ(loaded, expected.size());
  }
}
