#include <gtest/gtest.h>

#include <cmath>

#include "helpers.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/generate.hpp"

using namespace rankmap;

TEST(Stencil, FacesOnAnOpenGrid) {
  // 3x2 grid: horizontal pairs 2 per row x 2 rows, vertical 3; each both ways.
  const Graph g = make_stencil({{3, 2}, false, false, 10});
  EXPECT_EQ(g.ranks, 6u);
  EXPECT_EQ(g.num_edges(), 2u * (2 * 2 + 3));
  EXPECT_EQ(g.total_bytes(), 140u);
  // Rank 4 = (1,1): neighbours (0,1)=3, (2,1)=5, (1,0)=1.
  EXPECT_EQ(std::vector<std::uint32_t>(g.targets.begin() + g.offsets[4], g.targets.begin() + g.offsets[5]),
            (std::vector<std::uint32_t>{1, 3, 5}));
}

TEST(Stencil, FullPeriodicCubeHas26Neighbours) {
  const Graph g = make_stencil({{3, 3, 3}, true, true, 1});
  for (std::uint32_t r = 0; r < g.ranks; ++r) EXPECT_EQ(g.offsets[r + 1] - g.offsets[r], 26u);
  // Open 27-point 3x3x3: corner 7, edge 11, face 17, centre 26 neighbours.
  const Graph open = make_stencil({{3, 3, 3}, true, false, 1});
  EXPECT_EQ(open.num_edges(), 8u * 7 + 12 * 11 + 6 * 17 + 26);
}

TEST(Stencil, PeriodicSizeTwoSendsTwice) {
  // Left and right neighbour are the same rank: two messages to it.
  const Graph g = make_stencil({{2}, false, true, 5});
  EXPECT_EQ(g.num_edges(), 2u);
  EXPECT_EQ(g.bytes[0], 10u);
  EXPECT_EQ(g.msgs[0], 2u);
}

// The worked values of docs/design.md: p_mpi 0.30, t_inj + t_ej = 850 ns,
// t_hop = 129 ns, d the diameter before and 1 after.
TEST(Gain, DomainWorkedValues) {
  Network net;
  net.t_inj_ns = 425;
  net.t_ej_ns = 425;
  net.t_hop_ns = 129;
  EXPECT_NEAR(message_time_ns(net, 5), 850 + 645, 1e-9);
  EXPECT_NEAR(predicted_gain(net, 0.30, 5, 1), 0.30 * 129 * 4 / 1495.0, 1e-12);
  EXPECT_EQ(std::round(predicted_gain(net, 0.30, 5, 1) * 1000), 104);  // 4x2x2x2: 10.4 %
  EXPECT_EQ(std::round(predicted_gain(net, 0.30, 8, 1) * 1000), 144);  // 8x8, 4x4x4x4: 14.4 %
  EXPECT_EQ(predicted_gain(net, 0.30, 2, 2), 0);
}
