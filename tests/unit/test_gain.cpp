// The gain model against hand-worked values (docs/design.md) and a
// brute-force mean distance.
#include <gtest/gtest.h>

#include <cmath>

#include "helpers.hpp"
#include "rankmap/allocation.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/metrics.hpp"

using namespace rankmap;

namespace {

Network torus(std::vector<int> dims, double t_nic = 425, double t_hop = 129) {
  Network net;
  net.dims = std::move(dims);
  net.wrap.assign(net.dims.size(), true);
  net.t_inj_ns = net.t_ej_ns = t_nic;
  net.t_hop_ns = t_hop;
  return net;
}

double percent(double x) { return std::round(x * 1000) / 10; }

}  // namespace

// docs/design.md: p_mpi 0.30, 850/129 ns, d = diameter: 10.4 %, 14.4 %, 14.4 %.
TEST(SeedGain, DomainWorkedValuesWithTheDiameter) {
  EXPECT_EQ(percent(seed_gain(torus({4, 2, 2, 2}), 0.30)), 10.4);
  EXPECT_EQ(percent(seed_gain(torus({8, 8}), 0.30)), 14.4);
  EXPECT_EQ(percent(seed_gain(torus({4, 4, 4, 4}), 0.30)), 14.4);
  EXPECT_NEAR(seed_gain(torus({4, 2, 2, 2}), 0.30), 0.30 * 129 * 4 / (850 + 129 * 5.0), 1e-15);
}

// Mean distance by hand: a 4-ring averages 1 hop over all pairs of
// positions (0 1 2 1), a 2-ring 0.5, an 8-ring 2 (0 1 2 3 4 3 2 1); pairs
// of a node with itself are then left out.
TEST(SeedGain, MeanDistanceByHand) {
  EXPECT_NEAR(mean_distance(torus({4, 2, 2, 2})), 2.5 * 32 / 31, 1e-12);
  EXPECT_NEAR(mean_distance(torus({8, 8})), 4.0 * 64 / 63, 1e-12);
  EXPECT_NEAR(mean_distance(torus({4, 4, 4, 4})), 4.0 * 256 / 255, 1e-12);
  Network line = torus({3});
  line.wrap = {false};
  EXPECT_NEAR(mean_distance(line), 4.0 / 3, 1e-12);  // (1 + 2 + 1) x 2 / 6 ordered pairs
  // 4x2x2x2 at p_mpi 0.30 with the mean distance: 5.2 %.
  const double d = 2.5 * 32 / 31;
  EXPECT_NEAR(seed_gain(torus({4, 2, 2, 2}), 0.30, SeedDistance::mean), 0.30 * 129 * (d - 1) / (850 + 129 * d), 1e-15);
  EXPECT_EQ(percent(seed_gain(torus({4, 2, 2, 2}), 0.30, SeedDistance::mean)), 5.2);
}

TEST(SeedGain, MeanDistanceMatchesEveryPairCounted) {
  Network net = torus({3, 4, 2});
  net.wrap = {false, true, true};
  double sum = 0, pairs = 0;
  for (int a = 0; a < 24; ++a)
    for (int b = 0; b < 24; ++b) {
      if (a == b) continue;
      sum += net.hops_1d(0, a % 3, b % 3) + net.hops_1d(1, a / 3 % 4, b / 3 % 4) + net.hops_1d(2, a / 12, b / 12);
      ++pairs;
    }
  EXPECT_NEAR(mean_distance(net), sum / pairs, 1e-12);
}

// The seed formula is the measured model with the partner at the diameter
// before and one hop away after: two real mappings of one pair on a 4x2x2x2.
TEST(MeasuredGain, SeedIsTheSpecialCaseDiameterToOneHop) {
  const Machine m = test::make_machine("[4, 2, 2, 2]", "", "n[0-31]");
  const Allocation a = make_allocation(m, {});
  GraphBuilder b(2);
  b.add(0, 1, 8, 10);
  const Graph g = b.build();
  // Node 30 is at (2,1,1,1): 2 + 1 + 1 + 1 = 5 hops from node 0, the diameter.
  const Metrics far = evaluate(g, m, a, Mapping{{{0, 0}, {30, 0}}});
  const Metrics near = evaluate(g, m, a, Mapping{{{0, 0}, {1, 0}}});
  ASSERT_EQ(far.avg_hops_by_msgs, m.network.diameter());
  ASSERT_EQ(near.avg_hops_by_msgs, 1);
  const double before = mean_message_times(g, m.network, far).by_messages_ns;
  const double after = mean_message_times(g, m.network, near).by_messages_ns;
  EXPECT_DOUBLE_EQ(before, 800 + 100 * 5.0);  // make_machine: 400 + 400 ns, 100 ns a hop
  EXPECT_DOUBLE_EQ(after, 800 + 100 * 1.0);
  EXPECT_NEAR(relative_gain(0.3, before, after), seed_gain(m.network, 0.3), 1e-15);
  EXPECT_NEAR(seed_gain(m.network, 0.3), 0.3 * 100 * 4 / 1300.0, 1e-15);
}

// Ranks 0, 1, 2 on nodes 0, 1, 2 of a 4-ring (T(h) = 800 + 100 h ns), an
// 8 Gbit/s link (1 ns a byte): 0 -> 1 one message of 100 B, 0 -> 2 three of
// 100 B. By messages: (1 x 900 + 3 x 1000) / 4 = 975 ns. By bytes:
// (100 x (900 + 100) + 300 x (1000 + 100)) / 400 = 1075 ns (975 ns of
// latency without the bandwidth).
TEST(MeasuredGain, MeanMessageTimesByHand) {
  Machine m = test::make_machine("[4]", "", "n[0-3]");
  const Allocation a = make_allocation(m, {});
  GraphBuilder b(3);
  b.add(0, 1, 100, 1);
  b.add(0, 2, 300, 3);
  b.add(1, 1, 5000, 1);  // self-traffic: left out
  const Graph g = b.build();
  const Metrics s = evaluate(g, m, a, Mapping{{{0, 0}, {1, 0}, {2, 0}}});
  EXPECT_DOUBLE_EQ(mean_message_times(g, m.network, s).by_messages_ns, 975);
  // No bandwidth given: latencies only, (100 x 900 + 300 x 1000) / 400.
  EXPECT_DOUBLE_EQ(mean_message_times(g, m.network, s).by_bytes_ns, 975);
  m.network.link_gbps = 8;
  EXPECT_DOUBLE_EQ(mean_message_times(g, m.network, s).by_bytes_ns, 1075);
  EXPECT_DOUBLE_EQ(relative_gain(0.5, 1000, 900), 0.05);
  EXPECT_EQ(relative_gain(0.5, 0, 0), 0);
}

// Messages inside a node cost t_local_ns when the machine gives it, else
// T(0). Ranks 0, 1 on node 0 and rank 2 on node 2 of a 4-ring (T(h) = 800 +
// 100 h ns): 0 -> 1 two messages of 50 B (inside the node), 0 -> 2 one of
// 100 B (two hops, 1000 ns). By messages, with t_local 200 ns:
// (2 x 200 + 1000) / 3 = 466.67 ns; without it (2 x 800 + 1000) / 3 =
// 866.67 ns. By bytes at 8 Gbit/s (1 ns a byte; mean sizes 50 and 100 B):
// (100 x 200 + 100 x 1000) / 200 + (100 x 50 + 100 x 100) / 200 = 675 ns.
TEST(MeasuredGain, MessagesInsideANodeCostTLocal) {
  Machine m = test::make_machine("[4]", "", "n[0-3]", "package:1 core:2 pu:1");
  const Allocation a = make_allocation(m, {});
  GraphBuilder b(3);
  b.add(0, 1, 100, 2);
  b.add(0, 2, 100, 1);
  const Graph g = b.build();
  const Metrics s = evaluate(g, m, a, Mapping{{{0, 0}, {0, 1}, {2, 0}}});
  EXPECT_NEAR(mean_message_times(g, m.network, s).by_messages_ns, 2600.0 / 3, 1e-9);
  m.network.t_local_ns = 200;
  EXPECT_NEAR(mean_message_times(g, m.network, s).by_messages_ns, 1400.0 / 3, 1e-9);
  m.network.link_gbps = 8;
  EXPECT_DOUBLE_EQ(mean_message_times(g, m.network, s).by_bytes_ns, 675);
}

// Ranks 0, 1, 2 on nodes 0, 1, 2 of a 4-ring (T(h) = 800 + 100 h ns):
// 0 -> 2 one message (2 hops, 1000 ns), 1 -> 2 three (1 hop, 900 ns),
// 1 -> 0 two (900 ns). Rank 2 receives 4 messages, its slowest sender costs
// 1000 ns; rank 0 receives 2, slowest 900 ns: (4 x 1000 + 2 x 900) / 6 =
// 966.67 ns, where the mean message is (1000 + 3 x 900 + 2 x 900) / 6 =
// 916.67 ns.
TEST(MeasuredGain, SlowestSenderByHand) {
  const Machine m = test::make_machine("[4]", "", "n[0-3]");
  const Allocation a = make_allocation(m, {});
  GraphBuilder b(3);
  b.add(0, 2, 10, 1);
  b.add(1, 2, 30, 3);
  b.add(1, 0, 20, 2);
  b.add(2, 2, 99, 9);  // self-traffic: left out
  const Graph g = b.build();
  const Mapping spread{{{0, 0}, {1, 0}, {2, 0}}};
  EXPECT_NEAR(slowest_sender_ns(g, m, a, spread), 5800.0 / 6, 1e-9);
  EXPECT_NEAR(mean_message_times(g, m.network, evaluate(g, m, a, spread)).by_messages_ns, 5500.0 / 6, 1e-9);
  EXPECT_THROW(slowest_sender_ns(g, m, a, Mapping{{{0, 0}}}), Error);
}

namespace {
// phase_times() of a mapping, with its own evaluate().
PhaseTimes phase_of(const Graph& g, const Machine& m, const Allocation& a, const Mapping& map) {
  return phase_times(g, m, a, map, evaluate(g, m, a, map));
}
}  // namespace

// The phase model's seed case: every message the diameter away before, one
// hop after, no bandwidth: a phase is T(5) against T(1) on a 4x2x2x2, the
// seed formula exactly.
TEST(PhaseModel, SeedIsTheSpecialCase) {
  const Machine m = test::make_machine("[4, 2, 2, 2]", "", "n[0-31]");
  const Allocation a = make_allocation(m, {});
  GraphBuilder b(2);
  b.add(0, 1, 8, 10);
  b.add(1, 0, 8, 10);
  const Graph g = b.build();
  const PhaseTimes far = phase_of(g, m, a, Mapping{{{0, 0}, {30, 0}}});
  const PhaseTimes near = phase_of(g, m, a, Mapping{{{0, 0}, {1, 0}}});
  EXPECT_EQ(far.phases, 10);
  EXPECT_DOUBLE_EQ(far.slowest_ns, 800 + 100 * 5.0);
  EXPECT_DOUBLE_EQ(near.slowest_ns, 800 + 100 * 1.0);
  EXPECT_DOUBLE_EQ(far.mean_ns, far.slowest_ns);
  EXPECT_NEAR(relative_gain(0.3, far.slowest_ns, near.slowest_ns), seed_gain(m.network, 0.3), 1e-15);
}

// Two nodes on a line, 8 Gbit/s (1 ns a byte), 4 cores each; T(1) = 900 ns.
// Ranks 0-3 on node 0 each send 1,000 B to one of ranks 4-7 on node 1, in
// `msgs` messages. One message each: node 0's injection link, the link and
// node 1's ejection link each carry 4,000 B a phase, so every message takes
// 900 + 4000 ns. Two messages each: K = 2 phases of 2,000 B: 900 + 2000 ns.
TEST(PhaseModel, SharedLinksByHand) {
  Machine m = test::make_machine("[2]", "", "n[0-1]", "core:4");
  m.network.link_gbps = 8;
  const Allocation a = make_allocation(m, {});
  const Mapping map{{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 1}, {1, 2}, {1, 3}}};
  for (std::uint64_t msgs : {1, 2}) {
    GraphBuilder b(8);
    for (std::uint32_t r = 0; r < 4; ++r) b.add(r, r + 4, 1000, msgs);
    const Graph g = b.build();
    const PhaseTimes t = phase_of(g, m, a, map);
    const double per_phase = 4000.0 / static_cast<double>(msgs);
    EXPECT_EQ(t.phases, static_cast<double>(msgs));
    EXPECT_DOUBLE_EQ(t.slowest_ns, 900 + per_phase);
    EXPECT_DOUBLE_EQ(t.mean_ns, 900 + per_phase);
    EXPECT_DOUBLE_EQ(t.injection_ns, per_phase);
    EXPECT_DOUBLE_EQ(t.ejection_ns, per_phase);
    EXPECT_DOUBLE_EQ(t.link_ns, per_phase);
  }
  // Inside one node nothing is shared: local_ns() + size / bw. Rank 1
  // waits 800 + 1000 ns, rank 4 (from rank 0, alone on the link) 900 +
  // 500 ns; each receives one message: a mean of 1600 ns.
  GraphBuilder b(8);
  b.add(0, 1, 1000, 1);
  b.add(0, 4, 500, 1);
  const Graph g = b.build();
  const PhaseTimes t = phase_of(g, m, a, map);
  EXPECT_DOUBLE_EQ(t.slowest_ns, 800 + 1000);
  EXPECT_DOUBLE_EQ(t.mean_ns, (1800 + 1400) / 2.0);
}

// A rare message does not pace every phase. Ranks 0, 1, 2 on nodes 0, 1, 2
// of a 4-ring, no bandwidth: rank 2 receives one message from 0 (2 hops,
// 1000 ns) and two from 1 (1 hop, 900 ns), so K = 2 and rank 0's message
// comes in half the phases: 0.5 x 1000 + 0.5 x 900 = 950 ns.
TEST(PhaseModel, RareSendersCountByTheirShareOfPhases) {
  const Machine m = test::make_machine("[4]", "", "n[0-3]");
  const Allocation a = make_allocation(m, {});
  GraphBuilder b(3);
  b.add(0, 2, 10, 1);
  b.add(1, 2, 20, 2);
  const Graph g = b.build();
  const Mapping map{{{0, 0}, {1, 0}, {2, 0}}};
  const PhaseTimes t = phase_of(g, m, a, map);
  EXPECT_EQ(t.phases, 2);
  EXPECT_DOUBLE_EQ(t.slowest_ns, 950);
  EXPECT_DOUBLE_EQ(t.mean_ns, 950);  // rank 2 is the only receiver
}
