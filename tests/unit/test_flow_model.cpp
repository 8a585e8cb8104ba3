// The flow model of gain.hpp against hand-worked values. Machines are
// test::make_machine's: T(h) = 800 + 100 h ns, local_ns() = 800 ns; with
// link_gbps = 8 a link carries one byte a nanosecond.
#include <gtest/gtest.h>

#include "helpers.hpp"
#include "rankmap/allocation.hpp"
#include "rankmap/baseline.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/generate.hpp"
#include "rankmap/profile.hpp"
#include "score/flow_model.hpp"
#include "score/phase_simulator.hpp"

using namespace rankmap;

namespace {

Graph edges(std::uint32_t ranks,
            std::initializer_list<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t, std::uint64_t>> list) {
  return test::graph_of(ranks, list);
}

Machine with_bandwidth(Machine m) {
  m.network.link_gbps = 8;
  return m;
}

}  // namespace

// Every message the diameter away, then one hop, no bandwidth: K phases
// of T(5) against T(1) on a 4x2x2x2, the seed formula exactly. With a
// bandwidth and zero-byte messages, the same.
TEST(FlowModel, SeedIsTheSpecialCase) {
  for (const bool bandwidth : {false, true}) {
    Machine m = test::make_machine("[4, 2, 2, 2]", "", "n[0-31]");
    if (bandwidth) m = with_bandwidth(m);
    const Allocation a = make_allocation(m, {});
    const Graph g = edges(2, {{0, 1, bandwidth ? 0 : 8, 10}, {1, 0, bandwidth ? 0 : 8, 10}});
    const FlowTimes far = flow_times(g, Graph{}, m, a, Mapping{{{0, 0}, {30, 0}}});
    const FlowTimes near = flow_times(g, Graph{}, m, a, Mapping{{{0, 0}, {1, 0}}});
    ASSERT_TRUE(far.computed && near.computed);
    EXPECT_EQ(far.phases, 10);
    EXPECT_DOUBLE_EQ(far.slowest_ns, 10 * (800 + 100 * 5.0));
    EXPECT_DOUBLE_EQ(near.slowest_ns, 10 * (800 + 100 * 1.0));
    EXPECT_NEAR(relative_gain(0.3, far.slowest_ns, near.slowest_ns), seed_gain(m.network, 0.3), 1e-15);
  }
}

// Two nodes on a line, 4 cores each. Four messages of 1,000 B from node 0
// to node 1 share its injection link, the link and node 1's ejection link:
// a quarter each, 900 + 4000 ns. Messages of 1,000 and 3,000 B share
// halves until the first ends at 900 + 2000; the second's last 2,000 B
// then go at the full rate: 4900 ns.
TEST(FlowModel, FairSharesByHand) {
  const Machine m = with_bandwidth(test::make_machine("[2]", "", "n[0-1]", "core:4"));
  const Allocation a = make_allocation(m, {});
  const Mapping map{{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 1}, {1, 2}, {1, 3}}};
  const FlowTimes four =
      flow_times(edges(8, {{0, 4, 1000, 1}, {1, 5, 1000, 1}, {2, 6, 1000, 1}, {3, 7, 1000, 1}}), Graph{}, m, a, map);
  EXPECT_DOUBLE_EQ(four.slowest_ns, 900 + 4000);
  const FlowTimes two = flow_times(edges(8, {{0, 4, 1000, 1}, {1, 5, 3000, 1}}), Graph{}, m, a, map);
  EXPECT_NEAR(two.slowest_ns, 900 + 2000 + 2000, 1e-6);
  // Inside a node a message streams alone: 800 + 1000 ns.
  const FlowTimes local = flow_times(edges(8, {{0, 1, 1000, 1}}), Graph{}, m, a, map);
  EXPECT_DOUBLE_EQ(local.slowest_ns, 800 + 1000);
}

// flow_times_below, the engine's: it stops once a rank's phases pass the
// limit given, and only then. On the two nodes above, rank 0 sends rank 4
// 2,000 B in 2 messages and rank 1 rank 5 1,000 B in 1 (K = 2). Phase 1
// holds both, sharing the route: 900 + 2000 ns; phase 2 holds 0 -> 4
// alone: 900 + 1000. Rank 4 ends at 4,800 ns: a limit of 4,799 stops it
// in phase 2, one of 2,000 in phase 1.
TEST(FlowModel, StopsOnlyPastTheLimit) {
  const Machine m = with_bandwidth(test::make_machine("[2]", "", "n[0-1]", "core:4"));
  const Allocation a = make_allocation(m, {});
  const Mapping map{{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 1}, {1, 2}, {1, 3}}};
  const Graph g = edges(8, {{0, 4, 2000, 2}, {1, 5, 1000, 1}});
  EXPECT_DOUBLE_EQ(flow_times(g, Graph{}, m, a, map).slowest_ns, 4800);
  const FlowTimes at = detail::flow_times_below(g, Graph{}, m, a, map, nullptr, 4800);
  EXPECT_TRUE(at.computed);
  EXPECT_DOUBLE_EQ(at.slowest_ns, 4800);
  for (const double limit : {4799.0, 2000.0}) {
    const FlowTimes past = detail::flow_times_below(g, Graph{}, m, a, map, nullptr, limit);
    EXPECT_FALSE(past.computed) << limit;
    EXPECT_STREQ(past.why, detail::kSlowerThanLimit) << limit;
  }
}

// Max-min fairness with two bottlenecks, on a 4-ring of 2-core nodes (all
// routes one hop, 900 ns). f1, f2: node 0 to node 1 (1,200 B each); f3:
// node 2 to node 1 (1,200 B); f4: node 2 to node 3 (4,000 B). Node 1's
// ejection link holds f1-f3 to a third each; f4 takes what is left of node
// 2's injection link, two thirds. At 900 + 3600 ns f1-f3 end, f4 has
// 1,600 B left at the full rate: it ends at 6100 ns. An even split of node
// 2's injection link would end f4 at 6700 ns.
TEST(FlowModel, MaxMinSharesByHand) {
  const Machine m = with_bandwidth(test::make_machine("[4]", "", "n[0-3]", "core:2"));
  const Allocation a = make_allocation(m, {});
  const Mapping map{{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}, {3, 0}, {3, 1}}};
  const Graph g = edges(8, {{0, 2, 1200, 1}, {1, 2, 1200, 1}, {4, 3, 1200, 1}, {5, 6, 4000, 1}});
  const FlowTimes t = flow_times(g, Graph{}, m, a, map);
  EXPECT_NEAR(t.slowest_ns, 6100, 1e-6);
}

// Phases by message count: on a 4-ring without bandwidth, rank 2 receives
// one message from rank 0 (2 hops, 1000 ns) and two each from ranks 1 and 3
// (1 hop, 900 ns). K is the median count, 2: phase 1 holds all three
// (1000 ns), phase 2 only the two pairs (900 ns).
TEST(FlowModel, PairsTakePartInAsManyPhasesAsTheyHaveMessages) {
  const Machine m = test::make_machine("[4]", "", "n[0-3]");
  const Allocation a = make_allocation(m, {});
  const FlowTimes t = flow_times(edges(4, {{0, 2, 10, 1}, {1, 2, 20, 2}, {3, 2, 20, 2}}), Graph{}, m, a,
                                 Mapping{{{0, 0}, {1, 0}, {2, 0}, {3, 0}}});
  EXPECT_EQ(t.phases, 2);
  EXPECT_DOUBLE_EQ(t.slowest_ns, 1000 + 900);
}

// A pair with more messages than the median spreads them over the K
// phases: rank 0 sends rank 1 (2 hops) 4 messages, ranks 2 and 3 (one node)
// exchange 2 each way. K = 2, so rank 1 waits 2 x 1000 ns, not 4 x 1000.
TEST(FlowModel, PairsAboveTheMedianSpreadOverThePhases) {
  const Machine m = with_bandwidth(test::make_machine("[4]", "", "n[0-3]", "core:2"));
  const Allocation a = make_allocation(m, {});
  const FlowTimes t = flow_times(edges(4, {{0, 1, 0, 4}, {2, 3, 0, 2}, {3, 2, 0, 2}}), Graph{}, m, a,
                                 Mapping{{{0, 0}, {2, 0}, {1, 0}, {1, 1}}});
  EXPECT_EQ(t.phases, 2);
  EXPECT_DOUBLE_EQ(t.slowest_ns, 2 * 1000);
}

// Collectives are chains: rank 0 receives 3 messages of 1,000 B from rank
// 1, one hop away: 3 x (900 + 1000) ns. A message above the eager limit
// makes its sender wait too: rank 0 sends 100,000 B to rank 1 (900 +
// 100,000 ns) and also receives one empty collective message (900 ns), so
// rank 0 is the slowest, at 100,900 + 900 ns.
TEST(FlowModel, CollectiveChainsAndTheEagerLimit) {
  const Machine m = with_bandwidth(test::make_machine("[4]", "", "n[0-3]"));
  const Allocation a = make_allocation(m, {});
  const Mapping map{{{0, 0}, {1, 0}}};
  const FlowTimes chain = flow_times(Graph{edges(2, {})}, edges(2, {{1, 0, 3000, 3}}), m, a, map);
  EXPECT_DOUBLE_EQ(chain.slowest_ns, 3 * (900 + 1000));
  EXPECT_DOUBLE_EQ(chain.chain_ns, chain.slowest_ns);
  const FlowTimes big = flow_times(edges(2, {{0, 1, 100000, 1}}), edges(2, {{1, 0, 0, 1}}), m, a, map);
  EXPECT_DOUBLE_EQ(big.slowest_ns, 100900 + 900);
  EXPECT_DOUBLE_EQ(big.p2p_ns, 100900);
  EXPECT_DOUBLE_EQ(big.chain_ns, 900);
  // At exactly the limit the sender waits (900 + 65,536 ns); one byte less
  // and only the receiver does: rank 0's time is then its 900 ns chain.
  const FlowTimes at = flow_times(edges(2, {{0, 1, 65536, 1}}), edges(2, {{1, 0, 0, 1}}), m, a, map);
  EXPECT_DOUBLE_EQ(at.slowest_ns, 65536 + 900 + 900);
  const FlowTimes below = flow_times(edges(2, {{0, 1, 65535, 1}}), edges(2, {{1, 0, 0, 1}}), m, a, map);
  EXPECT_DOUBLE_EQ(below.slowest_ns, 65535 + 900);
}

// The collective floor: ranks 0 and 1 on node 0 each send 1,000 B of
// collective traffic to ranks 2 and 3 on node 1, one hop away, at 1 B/ns.
// Each chain alone is 900 + 1000 ns, but node 0's injection link carries
// 2,000 B: no receiver's chain is shorter than 2,000 ns. Senders receive
// nothing and keep a chain of 0.
TEST(FlowModel, CollectiveFloorByHand) {
  const Machine m = with_bandwidth(test::make_machine("[4]", "", "n[0-3]", "core:2"));
  const Allocation a = make_allocation(m, {});
  const Mapping map{{{0, 0}, {0, 1}, {1, 0}, {1, 1}}};
  const FlowTimes t = flow_times(Graph{edges(4, {})}, edges(4, {{0, 2, 1000, 1}, {1, 3, 1000, 1}}), m, a, map);
  EXPECT_DOUBLE_EQ(t.collective_floor_ns, 2000);
  EXPECT_DOUBLE_EQ(t.slowest_ns, 2000);
  EXPECT_DOUBLE_EQ(t.chain_ns, 2000);
  // One sender alone: its 1,000 B set the floor below its chain's 1,900 ns.
  const FlowTimes one = flow_times(Graph{edges(4, {})}, edges(4, {{0, 2, 1000, 1}}), m, a, map);
  EXPECT_DOUBLE_EQ(one.collective_floor_ns, 1000);
  EXPECT_DOUBLE_EQ(one.slowest_ns, 1900);
}

// Past kMaxFlowsPerPhase messages a phase the model is not run: 512 ranks
// all to all are 261,632 pairs.
TEST(FlowModel, TooManyFlowsIsNotComputed) {
  const Machine m = test::make_machine("[8, 8, 8]", "", "n[0-511]");
  const Allocation a = make_allocation(m, {});
  GraphBuilder b(512);
  Mapping map;
  for (std::uint32_t r = 0; r < 512; ++r) {
    map.ranks.push_back({static_cast<int>(r), 0});
    for (std::uint32_t s = 0; s < 512; ++s)
      if (s != r) b.add(r, s, 8, 1);
  }
  EXPECT_FALSE(flow_times(b.build(), Graph{}, m, a, map).computed);
}

// The pipeline term by hand: 0 -> 1 -> 2, two messages a pair (K = 2), on
// a 4-ring without bandwidth (T(h) = 800 + 100 h). With ranks on nodes
// 0, 1, 2 every message takes 900 ns. Stage by stage a rank waits for its
// upstream message, computes c, and sends; a message leaves once its
// receiver is ready (from its stage's start).
// - 64 KiB messages (rendezvous): a send ends when the receiver has the
//   message, so rank 2 ends at 4c + 3600. An MPI share of 2/3 then means
//   1 - 2c / (4c + 3600) = 2/3: c = 1800, a run of 10,800 ns. With rank 2
//   on node 3 (1 -> 2 takes 1000 ns) the same c gives 11,000 ns.
// - 8-byte messages (eager, as SMPI's detached sends): the sender goes on
//   at once. Stage 0: rank 1 has its message at c + 900 and sends at
//   2c + 900; rank 2 ends at 3c + 1800. Stage 1: rank 0 sends at
//   max(2c, 2c + 900), rank 1 ends computing at 3c + 1800 and sends then
//   (rank 2's stage starts at 3c + 1800), rank 2 ends at 4c + 2700: c =
//   1350, 8,100 ns. With rank 2 on node 3: stage 0 ends at 3c + 1900,
//   stage 1 sends to rank 2 at 3c + 1900, which ends at 4c + 2900: 8,300 ns.
TEST(PipelineModel, ChainOfThreeByHand) {
  const Machine m = test::make_machine("[4]", "", "n[0-3]");
  const Allocation a = make_allocation(m, {});
  const Mapping apart{{{0, 0}, {1, 0}, {3, 0}}}, line{{{0, 0}, {1, 0}, {2, 0}}};
  const Graph rendezvous = edges(3, {{0, 1, 2 * 65536, 2}, {1, 2, 2 * 65536, 2}});
  ASSERT_TRUE(is_pipeline(rendezvous));
  PipelineTimes t = pipeline_times(rendezvous, m, a, apart, line, 2.0 / 3);
  ASSERT_TRUE(t.computed);
  EXPECT_EQ(t.stages, 2);
  EXPECT_NEAR(t.compute_ns, 1800, 1e-6);
  EXPECT_NEAR(t.baseline_ns, 10800, 1e-6);
  EXPECT_NEAR(t.mapping_ns, 11000, 1e-6);

  t = pipeline_times(edges(3, {{0, 1, 16, 2}, {1, 2, 16, 2}}), m, a, apart, line, 2.0 / 3);
  ASSERT_TRUE(t.computed);
  EXPECT_NEAR(t.compute_ns, 1350, 1e-6);
  EXPECT_NEAR(t.baseline_ns, 8100, 1e-6);
  EXPECT_NEAR(t.mapping_ns, 8300, 1e-6);
}

// The MPI share of a pipeline never falls below its filling's. With the
// eager chain above, rank 2 ends at 4c + 2700, so the share 1 - 2c /
// (4c + 2700) tends to 1/2 from above: p_mpi = 0.55 gives c = 6075 (0.2c =
// 0.45 x 2700) and a run of 27,000 ns; p_mpi = 0.4 has no c, and the model
// says so rather than searching to 10^15 ns.
TEST(PipelineModel, NoComputeTimeBelowThePipesFilling) {
  const Machine m = test::make_machine("[4]", "", "n[0-3]");
  const Allocation a = make_allocation(m, {});
  const Mapping line{{{0, 0}, {1, 0}, {2, 0}}};
  const Graph eager = edges(3, {{0, 1, 16, 2}, {1, 2, 16, 2}});
  PipelineTimes t = pipeline_times(eager, m, a, line, line, 0.55);
  ASSERT_TRUE(t.computed);
  EXPECT_NEAR(t.compute_ns, 6075, 1e-3);
  EXPECT_NEAR(t.baseline_ns, 27000, 1e-2);
  t = pipeline_times(eager, m, a, line, line, 0.4);
  EXPECT_FALSE(t.computed);
  EXPECT_STREQ(t.why, "the pipeline's filling alone is a larger MPI share than p_mpi");
}

// Messages that stream at once share the NICs and links of their routes,
// max-min fair, as in SMPI. A 16-ring at 1 byte/ns, T(h) = 800 + 100 h,
// one stage of 1,000-byte (eager) messages. Rank 0 (node 0) sends to
// ranks 1 (node 1, 1 hop), 2 (node 15, 1 hop) and 3 (node 14, 2 hops);
// rank 4 (node 4) to rank 5, the second rank of node 1 (3 hops), which
// passes on to rank 6 (node 5, 4 hops) and it to rank 7 (node 6, 1 hop).
// At 900 ns 0->1 and 0->2 stream at 1/2 (node 0's NIC); at 1000 0->3
// joins: 1/3 each. At 1100 4->5 streams: node 0's NIC fixes 0->1 at 1/3,
// so node 1's NIC leaves 4->5 the other 2/3, and it ends at 1100 + 1500 =
// 2600. Rank 5 sends at once; 5->6 streams from 3800, alone (its route
// shares no link with rank 0's), and ends at 4800; 6->7 ends at 4800 +
// 900 + 1000 = 6700. (Each message alone, the model's old reading: 6200;
// node 1's NIC split in halves: 7200.)
TEST(PipelineModel, MessagesShareTheirNicsMaxMinFair) {
  Machine m = test::make_machine("[16]", "", "n[00-15]", "core:2");
  m.network.link_gbps = 8;
  const Allocation a = make_allocation(m, {});
  const Mapping map{{{0, 0}, {1, 0}, {15, 0}, {14, 0}, {4, 0}, {1, 1}, {5, 0}, {6, 0}}};
  const Graph g =
      edges(8, {{0, 1, 1000, 1}, {0, 2, 1000, 1}, {0, 3, 1000, 1}, {4, 5, 1000, 1}, {5, 6, 1000, 1}, {6, 7, 1000, 1}});
  const PipelineTimes t = pipeline_times(g, m, a, map, map, 1.0);
  ASSERT_TRUE(t.computed);
  EXPECT_EQ(t.stages, 1);
  EXPECT_NEAR(t.mapping_ns, 6700, 1e-6);
}

// c is solved within the model's work budget on a 16x16 wavefront (256
// ranks, 20 stages, 9,600 messages, thousands streaming at once): block's
// run with it spends p_mpi in MPI, to the solver's thousandth of c. (A
// bisection from block's whole run took over 110 runs here, past the
// budget.) Below the filling's share, (D - 1) / (K + D - 1) = 30 / 50 for
// a path of D = 31 ranks, the model says so without a run.
TEST(PipelineModel, SolvesAWavefrontOf256RanksWithinItsBudget) {
  Machine m = test::make_machine("[4, 4, 4]", "", "n[00-63]", "core:4");
  m.network.link_gbps = 75;
  const Allocation a = make_allocation(m, {});
  const Graph g = test::wavefront(16, 16, 20, 16384);
  const Mapping block = baseline_mapping(Baseline::block, a, 256);
  const PipelineTimes below = pipeline_times(g, m, a, block, block, 0.6);
  EXPECT_FALSE(below.computed);
  EXPECT_STREQ(below.why, "the pipeline's filling alone is a larger MPI share than p_mpi");
  if (test::kSanitized) return;  // the same steps, 10 s under ASan: the small pipelines above cover the code
  const PipelineTimes t = pipeline_times(g, m, a, block, block, 0.8);
  ASSERT_TRUE(t.computed) << t.why;
  EXPECT_NEAR(1 - 20 * t.compute_ns / t.baseline_ns, 0.8, 0.002);
}

// Exchanges are not pipelines: a pair both ways, or one-way pairs in a cycle.
TEST(PipelineModel, ExchangesAndCyclesAreNotPipelines) {
  EXPECT_FALSE(is_pipeline(edges(2, {{0, 1, 8, 1}, {1, 0, 8, 1}})));
  EXPECT_FALSE(is_pipeline(edges(3, {{0, 1, 8, 1}, {1, 2, 8, 1}, {2, 0, 8, 1}})));
  EXPECT_FALSE(is_pipeline(edges(2, {})));
  EXPECT_TRUE(is_pipeline(edges(4, {{0, 1, 8, 1}, {0, 2, 8, 1}, {1, 3, 8, 1}, {2, 3, 8, 1}})));
}

namespace {

// One rank's record of one collective algorithm: sends as (round, peer, bytes).
CollectiveCalls record(std::uint32_t rank, const std::string& algorithm, std::uint64_t calls,
                       std::initializer_list<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>> sends) {
  CollectiveCalls c;
  c.rank = rank, c.algorithm = algorithm, c.calls = calls;
  for (const auto& [round, peer, bytes] : sends) c.sends.push_back({round, peer, bytes * calls, calls});
  return c;
}

// A recursive-doubling allreduce of 8 B on 4 ranks: round 1 pairs 0-1 and
// 2-3, round 2 pairs 0-2 and 1-3.
std::vector<CollectiveCalls> butterfly() {
  return {record(0, "allreduce_rdb", 1, {{1, 1, 8}, {2, 2, 8}}), record(1, "allreduce_rdb", 1, {{1, 0, 8}, {2, 3, 8}}),
          record(2, "allreduce_rdb", 1, {{1, 3, 8}, {2, 0, 8}}), record(3, "allreduce_rdb", 1, {{1, 2, 8}, {2, 1, 8}})};
}

// Its collective traffic as a graph, for the chain reading.
Graph butterfly_graph() {
  GraphBuilder b(4);
  for (const CollectiveCalls& c : butterfly())
    for (const CollectiveCalls::Send& s : c.sends) b.add(c.rank, s.peer, s.bytes, s.msgs);
  return b.build();
}

}  // namespace

// Rounds wait for partners: ranks 0-3 on nodes 0, 1, 2 and 5 of an 8-ring,
// no bandwidth. Rank 1 sends rank 0 an empty message first (1 hop), so
// rank 0 starts the allreduce at 900 ns, the others at 0. A message moves
// once both its ends have reached the round. Round 1: 0<->1 at max(900, 0)
// + 900 = 1800, 2<->3 (3 hops) at 1100. Round 2: 1<->3 (4 hops) at
// max(1800, 1100) + 1200 = 3000, 0<->2 at 1800 + 1000 = 2800. The run ends
// at 3000 ns, on the butterfly's path. The chain reading (each rank's own
// messages in a row) misses the path: rank 0's 900 + 900 + 1000 = 2800 ns
// is its longest.
TEST(FlowModel, CollectiveRoundsFollowTheButterfly) {
  const Machine m = test::make_machine("[8]", "", "n[0-7]");
  const Allocation a = make_allocation(m, {});
  const Mapping map{{{0, 0}, {1, 0}, {2, 0}, {5, 0}}};
  const Graph p2p = edges(4, {{1, 0, 0, 1}});
  const std::vector<CollectiveCalls> calls = butterfly();
  const FlowTimes rounds = flow_times(p2p, butterfly_graph(), m, a, map, &calls);
  ASSERT_TRUE(rounds.computed && rounds.rounds);
  EXPECT_DOUBLE_EQ(rounds.slowest_ns, 3000);
  EXPECT_DOUBLE_EQ(rounds.p2p_ns, 0);  // rank 3 ends last; its own p2p time is 0
  EXPECT_DOUBLE_EQ(rounds.chain_ns, 3000);
  const FlowTimes chains = flow_times(p2p, butterfly_graph(), m, a, map);
  ASSERT_TRUE(chains.computed && !chains.rounds);
  EXPECT_DOUBLE_EQ(chains.slowest_ns, 900 + 900 + 1000);
}

// Past kMaxCollectiveSends recorded sends the rounds are not replayed:
// the butterfly's records plus a million empty ones read as chains again.
TEST(FlowModel, CollectiveRoundsFallBackToChainsPastTheLimit) {
  const Machine m = test::make_machine("[8]", "", "n[0-7]");
  const Allocation a = make_allocation(m, {});
  const Mapping map{{{0, 0}, {1, 0}, {2, 0}, {5, 0}}};
  std::vector<CollectiveCalls> calls = butterfly();
  CollectiveCalls many;
  many.algorithm = "neighbour", many.calls = 1;
  many.sends.assign(kMaxCollectiveSends, {0, 1, 0, 1});
  calls.push_back(std::move(many));
  const FlowTimes t = flow_times(edges(4, {{1, 0, 0, 1}}), butterfly_graph(), m, a, map, &calls);
  ASSERT_TRUE(t.computed);
  EXPECT_FALSE(t.rounds);
  EXPECT_DOUBLE_EQ(t.slowest_ns, 900 + 900 + 1000);
}

// One round shares the links: an all-to-all of 1,000 B blocks among ranks
// on nodes 0, 1 and 2 of a 4-ring, 1 B/ns. The 1-hop messages (0->1, 1->0,
// 1->2, 2->1) start at 900 ns at half rate (each shares a NIC with
// another); at 1000 ns the 2-hop ones (0->2, 2->0) join, and every
// resource holds at most two messages: half rate for all. The 1-hop ones
// end at 1000 + 950 / 0.5 = 2900; the 2-hop ones, with 50 B left, then run
// alone and end at 2950. The chain reading: rank 0 receives 1,000 B from 1
// hop and 2 hops in a row, 1900 + 2000 = 3900 ns.
TEST(FlowModel, CollectiveRoundsShareLinks) {
  const Machine m = with_bandwidth(test::make_machine("[4]", "", "n[0-3]"));
  const Allocation a = make_allocation(m, {});
  const Mapping map{{{0, 0}, {1, 0}, {2, 0}}};
  const std::vector<CollectiveCalls> calls = {record(0, "alltoall_linear", 1, {{0, 1, 1000}, {0, 2, 1000}}),
                                              record(1, "alltoall_linear", 1, {{0, 0, 1000}, {0, 2, 1000}}),
                                              record(2, "alltoall_linear", 1, {{0, 0, 1000}, {0, 1, 1000}})};
  GraphBuilder b(3);
  for (std::uint32_t r = 0; r < 3; ++r)
    for (std::uint32_t s = 0; s < 3; ++s)
      if (s != r) b.add(r, s, 1000, 1);
  const Graph collective = b.build();
  const FlowTimes rounds = flow_times(Graph{edges(3, {})}, collective, m, a, map, &calls);
  EXPECT_NEAR(rounds.slowest_ns, 2950, 1e-6);
  const FlowTimes chains = flow_times(Graph{edges(3, {})}, collective, m, a, map);
  EXPECT_DOUBLE_EQ(chains.slowest_ns, 3900);
}

// Ready times carry over between calls, and the periods past the third are
// extrapolated: the same all-to-all without bandwidth (T = 900 ns to the
// next node, 1000 to ranks 0<->2), 10 calls. Call 1 ends at 1000, 900,
// 1000 (ranks 0, 1, 2); each call adds 1000 ns: 10,000 ns.
//
// Then a barrier of 5 calls after each all-to-all (first call 1): empty
// messages 0->1 and 1->2 in one round, weighing 5 / 10 a period. Period 1:
// the all-to-all leaves (1000, 900, 1000); the barrier's 0->1 moves at
// max(1000, 900) + 900 = 1900 and 1->2 at max(900, 1000) + 900 = 1900;
// half of each wait counts: (1000, 1400, 1450). Period 2: the all-to-all
// ends at (1450 + 1000, 1450 + 900, 1450 + 1000) = (2450, 2350, 2450); the
// barrier's messages at 3350: (2450, 2850, 2900). Period 3: the all-to-all
// ends at (2900 + 1000, 2900 + 900, 2900 + 1000) = (3900, 3800, 3900); the
// barrier's at 4800: (3900, 4300, 4350). The last period grew by 4350 -
// 2900 = 1450 ns; seven more of those: 4350 + 7 x 1450 = 14,500 ns.
//
// A barrier of 2 calls is rarer than half the periods: it runs apart, each
// call from ranks that start together (900 ns: both messages move at once):
// 10,000 + 2 x 900 ns.
TEST(FlowModel, CollectiveRoundsCarryOverCalls) {
  const Machine m = test::make_machine("[4]", "", "n[0-3]");
  const Allocation a = make_allocation(m, {});
  const Mapping map{{{0, 0}, {1, 0}, {2, 0}}};
  std::vector<CollectiveCalls> calls = {record(0, "alltoall_linear", 10, {{0, 1, 8}, {0, 2, 8}}),
                                        record(1, "alltoall_linear", 10, {{0, 0, 8}, {0, 2, 8}}),
                                        record(2, "alltoall_linear", 10, {{0, 0, 8}, {0, 1, 8}})};
  const FlowTimes t = flow_times(Graph{edges(3, {})}, Graph{edges(3, {})}, m, a, map, &calls);
  EXPECT_DOUBLE_EQ(t.slowest_ns, 10000);
  calls.push_back(record(0, "barrier_dissemination", 5, {{0, 1, 0}}));
  calls.push_back(record(1, "barrier_dissemination", 5, {{0, 2, 0}}));
  calls[3].first = calls[4].first = 1;
  const FlowTimes barrier = flow_times(Graph{edges(3, {})}, Graph{edges(3, {})}, m, a, map, &calls);
  EXPECT_DOUBLE_EQ(barrier.slowest_ns, 14500);
  calls[3].calls = calls[4].calls = 2;
  for (CollectiveCalls* c : {&calls[3], &calls[4]}) c->sends[0].bytes = 0, c->sends[0].msgs = 2;
  const FlowTimes rare = flow_times(Graph{edges(3, {})}, Graph{edges(3, {})}, m, a, map, &calls);
  EXPECT_DOUBLE_EQ(rare.slowest_ns, 10000 + 2 * 900);
}

// A rank's exchange waits for its partners: the collective leaves them at
// different times, and a late partner's message arrives late. Ranks 0, 1,
// 2 on nodes 0, 1, 3 of an 8-ring, no bandwidth, 3 periods. Each: rank 2
// sends rank 1 an empty message (2 hops, 1000 ns), then a collective of
// two rounds, 0->2 (3 hops, 1100) and 1->0 (1 hop, 900).
// Period 1: rank 1 gets its message at 1000; 0->2 moves at 0 + 1100, 1->0
// at 1000 + 900: ready (1900, 1000, 1100).
// Period 2: rank 2 sends at 1100, rank 1 has it at 2100; 0->2 at 1900 +
// 1100 = 3000, 1->0 at 2100 + 900 = 3000: (3000, 2100, 3000).
// Period 3: rank 1 has it at 3000 + 1000 = 4000; 0->2 at 3000 + 1100 =
// 4100, 1->0 at 4000 + 900 = 4900. The run: 4900 ns. With every exchange
// starting at its own rank's ready time (rank 1 at 1000, 2000, 3000) it
// was 4100 ns, where SMPI found 8-byte halos among 80 ranks an iteration
// 25 us slower than the model (issue 35).
TEST(FlowModel, ExchangesWaitForLatePartners) {
  const Machine m = test::make_machine("[8]", "", "n[0-7]");
  const Allocation a = make_allocation(m, {});
  const Mapping map{{{0, 0}, {1, 0}, {3, 0}}};
  const std::vector<CollectiveCalls> calls = {record(0, "two_rounds", 3, {{0, 2, 8}}),
                                              record(1, "two_rounds", 3, {{1, 0, 8}}), record(2, "two_rounds", 3, {})};
  const FlowTimes t = flow_times(edges(3, {{2, 1, 0, 3}}), Graph{edges(3, {})}, m, a, map, &calls);
  ASSERT_TRUE(t.computed && t.rounds);
  EXPECT_DOUBLE_EQ(t.slowest_ns, 4900);
}

// Issue 29, point 2: every loop of the model counts against one budget,
// whatever its bytes.
//
// One call of 300,000 rounds on 16,000 ranks (a 6.6 MB profile made map
// run 107 s): each round one empty message from rank 0 to rank 1, 1 hop
// apart. A round costs its messages, not a pass over every rank, so the
// replay is exact and quick: rank 1 ends round k at k * T(1) = 900 k ns
// (rank 0, an eager sender, never waits), and the run at 300,000 * 900.
TEST(FlowModel, RoundsWithoutBytesCostTheirMessagesOnly) {
  const Machine m = test::make_machine("[4]", "", "n[0-3]", "package:4 core:1000 pu:1");
  const Allocation a = make_allocation(m, {});
  constexpr std::uint32_t kRanks = 16'000, kRounds = 300'000;
  Mapping map;
  for (std::uint32_t r = 0; r < kRanks; ++r) map.ranks.push_back({static_cast<int>(r % 4), static_cast<int>(r / 4)});
  CollectiveCalls call;
  call.rank = 0, call.algorithm = "bcast_binomial", call.calls = 1;
  for (std::uint32_t round = 0; round < kRounds; ++round) call.sends.push_back({round, 1, 0, 1});
  const std::vector<CollectiveCalls> calls{call};
  const FlowTimes t = flow_times(GraphBuilder(kRanks).build(), Graph{}, m, a, map, &calls);
  ASSERT_TRUE(t.computed && t.rounds);
  EXPECT_DOUBLE_EQ(t.slowest_ns, 900.0 * kRounds);
}

// 362 ranks on one node, every pair talking with its own message count:
// 130,682 distinct counts. A phase for each (1.7 * 10^10 steps) once ran
// for minutes, then past the budget; grouped (phase_group_ends, in
// flow_model.cpp) they are at most some hundred, and the model computes
// it. Its slowest rank is exact whatever the groups: rank 360 gets rank
// 361's 130,682 messages, the most of any pair, capped to K = 65,342 (the
// median pair's count) and so in every phase, 8 * 130,682 / K bytes each,
// at 1 byte a ns after local_ns() = 800 ns: K * 800 + 8 * 130,682 ns.
TEST(FlowModel, ManyMessageCountsAreGroupedNotGivenUp) {
  const Machine m = with_bandwidth(test::make_machine("[1]", "", "n0", "package:1 core:400 pu:1"));
  const Allocation a = make_allocation(m, {});
  constexpr std::uint32_t kRanks = 362;
  GraphBuilder b(kRanks);
  Mapping map;
  std::uint64_t count = 0;
  for (std::uint32_t r = 0; r < kRanks; ++r) {
    map.ranks.push_back({0, static_cast<int>(r)});
    for (std::uint32_t s = 0; s < kRanks; ++s)
      if (s != r) ++count, b.add(r, s, 8 * count, count);
  }
  const FlowTimes t = flow_times(b.build(), Graph{}, m, a, map);
  ASSERT_TRUE(t.computed);
  EXPECT_EQ(t.phases, 65'342);
  EXPECT_NEAR(t.slowest_ns, 65'342.0 * 800 + 8.0 * 130'682, 1e-3);
}

// Past 16 distinct message counts, consecutive counts whose pairs fall by
// under 10 % are simulated once, as the group's middle phase. 40 pairs in
// one node, pair i (rank 2i - 2 to 2i - 1) with i messages of 8 bytes:
// K = 21 (the upper median), 41 - c pairs in phase c, so the groups are
// phases 1-5, 6-9, 10-13, 14-16, 17-19 and 20-21, simulated as phases 3,
// 7, 11, 15, 18 and 20. One pair's messages of 10^6 bytes make its
// receiver the slowest, 10^6 + 800 ns a phase it is in: pair 10, in
// phases 1 to 10, is out of phase 11, so in 9 phases, not 10; pair 12 is
// in phase 11, so in 13, not 12.
TEST(FlowModel, ManyMessageCountsAreSimulatedAsTheirGroupsMiddlePhase) {
  const Machine m = with_bandwidth(test::make_machine("[1]", "", "n0", "package:1 core:80 pu:1"));
  const Allocation a = make_allocation(m, {});
  auto slowest_with_heavy_pair = [&](std::uint32_t heavy) {
    GraphBuilder b(80);
    Mapping map;
    for (std::uint32_t r = 0; r < 80; ++r) map.ranks.push_back({0, static_cast<int>(r)});
    for (std::uint32_t i = 1; i <= 40; ++i) b.add(2 * i - 2, 2 * i - 1, (i == heavy ? 1'000'000 : 8) * i, i);
    const FlowTimes t = flow_times(b.build(), Graph{}, m, a, map);
    EXPECT_TRUE(t.computed);
    EXPECT_EQ(t.phases, 21);
    return t.slowest_ns;
  };
  EXPECT_DOUBLE_EQ(slowest_with_heavy_pair(10), 9 * (1e6 + 800));
  EXPECT_DOUBLE_EQ(slowest_with_heavy_pair(12), 13 * (1e6 + 800));
}

// The flow model sees each rank's node, not its slot: `map` gives a
// candidate on an earlier one's nodes that one's time, and the report
// times a mapping on the launcher's nodes once (same_nodes). Here block,
// and block with every node's slots reversed, on an irregular graph of 64
// ranks over a 4x4 torus of 4 cores a node: one time. Two ranks of
// different nodes swapped are other nodes.
TEST(FlowModel, TimesEachRanksNodeNotItsSlot) {
  const Machine m = with_bandwidth(test::make_machine("[4, 4]", "", "n[00-15]", "core:4"));
  const Allocation a = make_allocation(m, {});
  const Graph g = make_irregular({64, 8, 1 << 16, 3});
  const Mapping block = baseline_mapping(Baseline::block, a, g.ranks);
  Mapping reversed = block;
  for (Placement& p : reversed.ranks) p.slot = 3 - p.slot;
  ASSERT_NE(reversed, block);
  EXPECT_TRUE(same_nodes(reversed, block));
  const FlowTimes t = flow_times(g, Graph{}, m, a, block), u = flow_times(g, Graph{}, m, a, reversed);
  ASSERT_TRUE(t.computed && u.computed);
  EXPECT_EQ(t.slowest_ns, u.slowest_ns);
  Mapping swapped = block;
  std::swap(swapped.ranks[0], swapped.ranks[63]);
  EXPECT_FALSE(same_nodes(swapped, block));
  EXPECT_FALSE(same_nodes(Mapping{{block.ranks[0]}}, block));  // fewer ranks
}

// Max-min shares worked by hand, on one route list and several live sets
// (as the pipeline and program models call share()): resources 0 and 1
// carry 1 byte a ns, resource 2 half that. Flows 0 and 3 share route
// {0}, flow 1 takes {0, 1}, flow 2 {1, 2}. A resource's routes that are
// not live take no share.
TEST(PhaseSimulator, SharesOfEachLiveSetByHand) {
  std::vector<detail::Flow> flows(4);
  flows[0].resources = {0}, flows[1].resources = {0, 1}, flows[2].resources = {1, 2}, flows[3].resources = {0};
  detail::PhaseSimulator sim({1.0, 1.0, 0.5}, 1.0);
  sim.group_routes(flows);
  std::vector<double> rate(4, 0);
  // All four: resource 0 has three flows (1/3 each), then resource 2
  // leaves flow 2 its 0.5.
  sim.share({0, 1, 2, 3}, rate);
  EXPECT_DOUBLE_EQ(rate[0], 1.0 / 3);
  EXPECT_DOUBLE_EQ(rate[1], 1.0 / 3);
  EXPECT_DOUBLE_EQ(rate[2], 0.5);
  EXPECT_DOUBLE_EQ(rate[3], 1.0 / 3);
  // Flows 2 and 1: resources 1 and 2 both at 0.5.
  rate.assign(4, 0);
  sim.share({2, 1}, rate);
  EXPECT_DOUBLE_EQ(rate[1], 0.5);
  EXPECT_DOUBLE_EQ(rate[2], 0.5);
  // Flow 0 alone: resource 0 whole, though flow 1's route uses it too.
  rate.assign(4, 0);
  sim.share({0}, rate);
  EXPECT_DOUBLE_EQ(rate[0], 1.0);
  // Flow 2 alone: resource 2's 0.5.
  sim.share({2}, rate);
  EXPECT_DOUBLE_EQ(rate[2], 0.5);
}
