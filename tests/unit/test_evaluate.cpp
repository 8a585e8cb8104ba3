#include <gtest/gtest.h>

#include <algorithm>

#include "helpers.hpp"
#include "rankmap/baseline.hpp"
#include "rankmap/metrics.hpp"
#include "rankmap/random.hpp"
#include "reference_router.hpp"

using namespace rankmap;

// Four ring nodes of two single-core packages. Ranks 0 and 1 share node 0
// (packages 0 and 1), rank 2 is on node 1, rank 3 on node 2.
TEST(Evaluate, HandWorkedFourRing) {
  const Machine m = test::make_machine("[4]", "", "n[0-3]", "package:2 core:1 pu:1");
  const Allocation a = make_allocation(m, {});
  GraphBuilder b(4);
  b.add(0, 1, 10, 1);    // same node, other package: cross-socket, 0 hops
  b.add(0, 2, 100, 1);   // node 0 -> 1: link 0+X
  b.add(1, 3, 1000, 1);  // node 0 -> 2: tie, links 0+X 1+X
  b.add(3, 0, 5, 1);     // node 2 -> 0: tie, links 2+X 3+X
  b.add(2, 2, 7, 1);     // self: counted in totals only
  b.add(0, 2, 20, 2);    // a duplicate entry adds up: 0 -> 2 is 120 bytes, 3 messages
  const Graph g = b.build();
  const Mapping map{{{0, 0}, {0, 1}, {1, 0}, {2, 0}}};
  const Metrics s = evaluate(g, m, a, map);

  EXPECT_EQ(s.ranks, 4u);
  EXPECT_EQ(s.nodes, 3u);
  EXPECT_EQ(s.total_bytes, 10u + 120 + 1000 + 5 + 7);
  EXPECT_EQ(s.total_msgs, 7u);
  EXPECT_EQ(s.hop_bytes, 120u * 1 + 1000 * 2 + 5 * 2);
  EXPECT_EQ(s.hop_msgs, 3u * 1 + 1 * 2 + 1 * 2);
  EXPECT_DOUBLE_EQ(s.avg_dilation, 2130.0 / 1135.0);
  EXPECT_DOUBLE_EQ(s.avg_hops_by_msgs, 7.0 / 6.0);
  EXPECT_EQ(s.max_dilation, 2);
  EXPECT_EQ(s.inter_node_bytes, 120u + 1000 + 5);
  EXPECT_EQ(s.cross_socket_bytes, 10u);
  std::vector<std::uint64_t> expected(m.network.num_links(), 0);
  expected[m.network.link_id(0, 0, +1)] = 1120;
  expected[m.network.link_id(1, 0, +1)] = 1000;
  expected[m.network.link_id(2, 0, +1)] = 5;
  expected[m.network.link_id(3, 0, +1)] = 5;
  EXPECT_EQ(s.link_bytes, expected);
  EXPECT_EQ(s.max_link_bytes, 1120u);
}

TEST(Evaluate, SizeTwoCableCarriesBothDirections) {
  const Machine m = test::make_machine("[2]", "", "n[0-1]");
  const Allocation a = make_allocation(m, {});
  GraphBuilder b(2);
  b.add(0, 1, 3, 1);
  b.add(1, 0, 4, 1);
  const Metrics s = evaluate(b.build(), m, a, Mapping{{{0, 0}, {1, 0}}});
  EXPECT_EQ(s.hop_bytes, 7u);
  EXPECT_EQ(s.link_bytes, (std::vector<std::uint64_t>{3, 0, 4, 0}));  // 0+X, 0-X, 1+X, 1-X
}

// Random traffic on the heterogeneous Angara-K1 under a random mapping and a
// partial allocation: every score equals a rank-pair-by-rank-pair recount
// with the reference router.
TEST(Evaluate, MatchesABruteForceRecount) {
  const Machine m = load_machine(test::source_dir() / "data/machines/angara-k1.toml");
  const Allocation a = make_allocation(m, {{"a01", "a05", "a07", "a12", "a13", "b02", "b07", "b12"}, 0, false});
  const std::uint32_t ranks = 60;
  Rng rng(42);
  GraphBuilder b(ranks);
  for (int e = 0; e < 500; ++e)
    b.add(static_cast<std::uint32_t>(rng.below(ranks)), static_cast<std::uint32_t>(rng.below(ranks)),
          rng.below(1 << 20), 1 + rng.below(4));
  const Graph g = b.build();
  const Mapping map = baseline_mapping(Baseline::random, a, ranks, 7);
  const Metrics s = evaluate(g, m, a, map);

  std::map<test::Link, std::uint64_t> loads;
  std::uint64_t hop_bytes = 0, inter = 0, cross = 0;
  int max_dil = 0;
  for (std::uint32_t r = 0; r < ranks; ++r)
    for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e) {
      const std::uint32_t t = g.targets[e];
      if (t == r) continue;
      const Node& nr = m.nodes[a.nodes[map.ranks[r].node]];
      const Node& nt = m.nodes[a.nodes[map.ranks[t].node]];
      if (&nr == &nt) {
        const auto& tr = m.node_types[nr.type];
        const int pr = tr.pus[a.slots(map.ranks[r].node)[map.ranks[r].slot].pus[0]].package;
        const int pt = tr.pus[a.slots(map.ranks[t].node)[map.ranks[t].slot].pus[0]].package;
        if (pr != pt) cross += g.bytes[e];
        continue;
      }
      inter += g.bytes[e];
      const auto links = test::reference_route(m.network, nr.coord, nt.coord);
      hop_bytes += g.bytes[e] * links.size();
      max_dil = std::max(max_dil, static_cast<int>(links.size()));
      for (const auto& l : links) loads[l] += g.bytes[e];
    }
  EXPECT_EQ(s.hop_bytes, hop_bytes);
  EXPECT_EQ(s.inter_node_bytes, inter);
  EXPECT_EQ(s.cross_socket_bytes, cross);
  EXPECT_EQ(s.max_dilation, max_dil);
  std::uint64_t max_load = 0;
  for (std::size_t id = 0; id < s.link_bytes.size(); ++id) {
    const auto it = loads.find(test::decode_link(id, m.network.dims));
    EXPECT_EQ(s.link_bytes[id], it == loads.end() ? 0 : it->second) << "link " << id;
    max_load = std::max(max_load, s.link_bytes[id]);
  }
  EXPECT_EQ(s.max_link_bytes, max_load);
  EXPECT_GT(cross, 0u);  // the case really exercises both packages
}

// Over 2^22 edges evaluate() scores on two threads, each over half the
// nodes; a plain per-edge recount (routes from for_each_link, hop by hop)
// must agree with the merged halves.
TEST(Evaluate, LargeGraphsScoredOnTwoThreadsMatchAPerEdgeRecount) {
  const Machine m = test::make_machine("[4, 4, 4]", "", "n[00-63]", "package:2 core:128 pu:1");
  const Allocation a = make_allocation(m, {});
  const std::uint32_t ranks = 16384, per_rank = 260;  // 4,259,840 edges
  Rng rng(9);
  GraphBuilder b(ranks);
  b.reserve(std::size_t{ranks} * per_rank);
  std::vector<std::uint32_t> row;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    row.clear();
    for (std::uint32_t k = 1; k <= per_rank; ++k) row.push_back((r + k * 61) % ranks);  // distinct: 61 is odd
    std::sort(row.begin(), row.end());
    for (std::uint32_t t : row) b.add(r, t, 1 + rng.below(1000), 1);
  }
  const Graph g = b.build();
  ASSERT_GE(g.num_edges(), std::size_t{1} << 22);
  const Mapping map = baseline_mapping(Baseline::random, a, ranks, 3);
  const Metrics s = evaluate(g, m, a, map);

  std::vector<std::uint64_t> loads(m.network.num_links(), 0);
  std::uint64_t hop_bytes = 0, inter = 0;
  for (std::uint32_t r = 0; r < ranks; ++r)
    for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e) {
      const Node& from = m.nodes[a.nodes[map.ranks[r].node]];
      const Node& to = m.nodes[a.nodes[map.ranks[g.targets[e]].node]];
      if (&from == &to) continue;
      inter += g.bytes[e];
      std::size_t a_index = 0, b_index = 0;
      for (int d = 2; d >= 0; --d) {
        a_index = a_index * 4 + static_cast<std::size_t>(from.coord[d]);
        b_index = b_index * 4 + static_cast<std::size_t>(to.coord[d]);
      }
      for_each_link(m.network, a_index, b_index, [&](std::size_t link) {
        loads[link] += g.bytes[e];
        hop_bytes += g.bytes[e];
      });
    }
  EXPECT_EQ(s.hop_bytes, hop_bytes);
  EXPECT_EQ(s.inter_node_bytes, inter);
  EXPECT_EQ(s.link_bytes, loads);
  EXPECT_EQ(s.total_bytes, g.total_bytes());
}

TEST(Evaluate, RejectsAMappingOfTheWrongSize) {
  const Machine m = test::make_machine("[2]", "", "n[0-1]");
  GraphBuilder b(3);
  test::expect_error(
      [&] {
        evaluate(b.build(), m, make_allocation(m, {}), Mapping{{{0, 0}, {1, 0}}});
      },
      0, "places 2 ranks but the graph has 3");
}

TEST(VerifyMapping, FindsEachViolation) {
  const Machine m = test::make_machine("[2]", "", "n[0-1]", "core:2");
  const Allocation a = make_allocation(m, {});
  EXPECT_NO_THROW(verify_mapping(Mapping{{{0, 0}, {1, 1}, {0, 1}}}, a, 3, "f"));
  test::expect_error([&] { verify_mapping(Mapping{{{0, 0}, {0, 0}}}, a, 2, "f"); }, 0, "ranks 0 and 1 share a slot");
  test::expect_error([&] { verify_mapping(Mapping{{{0, 2}}}, a, 1, "f"); }, 0, "uses slot 2, the node has 2");
  test::expect_error([&] { verify_mapping(Mapping{{{2, 0}}}, a, 1, "f"); }, 0, "outside the allocation");
  test::expect_error([&] { verify_mapping(Mapping{{{0, 0}, {-1, -1}}}, a, 2, "f"); }, 0, "rank 1 has no placement");
  test::expect_error([&] { verify_mapping(Mapping{{{0, 0}}}, a, 2, "f"); }, 0, "places 1 ranks, expected 2");
}
