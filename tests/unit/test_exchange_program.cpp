// The program model of gain.hpp (score/exchange_program.hpp) against
// hand-worked values. Machines are test::make_machine's: T(h) = 800 + 100 h
// ns; with link_gbps = 8 a link carries one byte a nanosecond.
#include <gtest/gtest.h>

#include "helpers.hpp"
#include "rankmap/allocation.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/profile.hpp"
#include "score/exchange_program.hpp"
#include "score/flow_model.hpp"

using namespace rankmap;

namespace {

Graph edges(std::uint32_t ranks,
            std::initializer_list<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t, std::uint64_t>> list) {
  return test::graph_of(ranks, list);
}

Machine two_nodes() {
  Machine m = test::make_machine("[2]", "", "n[0-1]", "core:4");
  m.network.link_gbps = 8;
  return m;
}

const Mapping kFourAndFour{{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 1}, {1, 2}, {1, 3}}};

}  // namespace

// Ranks 0 and 4, one hop apart, send each other 1,000 B an iteration, each
// way on links of its own: an iteration is c + 900 + 1000 ns. With K = 3
// and c = 500: 3 x 2400. The compute that gives p_mpi 0.5 is the
// communication's own 1,900 ns (one fixed-point step finds it). Four
// iterations judged on the first two, the other two at their pace: exact.
TEST(ProgramModel, AnExchangeByHand) {
  const Machine m = two_nodes();
  const Allocation a = make_allocation(m, {});
  const Graph g = edges(8, {{0, 4, 3000, 3}, {4, 0, 3000, 3}});
  EXPECT_DOUBLE_EQ(*detail::exchange_program_ns(g, m, a, kFourAndFour, 500), 3 * 2400.0);
  EXPECT_DOUBLE_EQ(*detail::exchange_compute_ns(g, m, a, kFourAndFour, 0.5), 1900);
  const Graph four = edges(8, {{0, 4, 4000, 4}, {4, 0, 4000, 4}});
  EXPECT_DOUBLE_EQ(*detail::exchange_program_ns(four, m, a, kFourAndFour, 500, 2), 4 * 2400.0);
  EXPECT_EQ(detail::phase_count(four), 4u);
}

// Ranks drift apart. Rank 0 sends rank 4 1,000 B and rank 1 rank 5 3,000 B
// an iteration, K = 2, c = 1,000 ns; the senders receive nothing, so they
// post both iterations at once (eager sends). Both first messages stream
// from 1,900 ns at half the route; 0 -> 4 ends at 3,900 (1 -> 5 has 2,000 B
// left, now alone). Rank 4 posts again at 4,900: its second message
// streams from 5,800, when 1 -> 5 has 100 B left; halves again, 1 -> 5
// ends at 6,000 and the second 0 -> 4 at 6,900. Rank 5 posts at 7,000:
// its second message streams from 7,900, alone, and ends at 10,900.
// (Phases in lockstep would give 2 x (1,000 + 4,900) = 11,800.) Each
// rank's end of its last iteration: 6,900 for rank 4, 10,900 for rank 5,
// 2,000 for the others (two computes, nothing to wait for).
TEST(ProgramModel, RanksGoOnWhenTheirOwnReceivesEnd) {
  const Machine m = two_nodes();
  const Allocation a = make_allocation(m, {});
  const Graph g = edges(8, {{0, 4, 2000, 2}, {1, 5, 6000, 2}});
  std::vector<double> ends;
  EXPECT_NEAR(*detail::exchange_program_ns(g, m, a, kFourAndFour, 1000, 2, nullptr, &ends), 10900, 1e-6);
  const std::vector<double> by_hand{2000, 2000, 2000, 2000, 6900, 10900, 2000, 2000};
  ASSERT_EQ(ends.size(), by_hand.size());
  for (std::size_t r = 0; r < ends.size(); ++r) EXPECT_NEAR(ends[r], by_hand[r], 1e-6) << "rank " << r;
  const ExchangeProgramTimes t = exchange_program_times(g, m, a, kFourAndFour, kFourAndFour, 0.5);
  ASSERT_TRUE(t.computed);
  EXPECT_EQ(t.iterations, 2);
  EXPECT_EQ(t.mapping_ns, t.baseline_ns);
}

// Which traffic is read as programs: exchanges whose collectives come only
// around the loop (at most 4 calls a rank, fewer than K / 2), not a
// pipeline.
TEST(ProgramModel, OnlyExchangesWithCollectivesAroundTheLoop) {
  const Graph exchange = edges(2, {{0, 1, 100, 20}, {1, 0, 100, 20}});
  EXPECT_TRUE(exchanges_as_programs(exchange, Graph{}, nullptr));
  EXPECT_FALSE(exchanges_as_programs(edges(2, {{0, 1, 100, 20}}), Graph{}, nullptr));  // a pipeline
  EXPECT_TRUE(exchanges_as_programs(exchange, edges(2, {{0, 1, 0, 4}, {1, 0, 0, 4}}), nullptr));
  EXPECT_FALSE(exchanges_as_programs(exchange, edges(2, {{0, 1, 0, 5}, {1, 0, 0, 4}}), nullptr));
  const std::vector<CollectiveCalls> around{{0, "barrier_dissemination", 0, 2, 0, {}},
                                            {0, "reduce_binomial", 0, 2, 2, {}}};
  EXPECT_TRUE(exchanges_as_programs(exchange, Graph{}, &around));
  std::vector<CollectiveCalls> inside = around;
  inside[1].calls = 3;
  EXPECT_FALSE(exchanges_as_programs(exchange, Graph{}, &inside));
  // K = 4: two calls are K / 2, too many.
  EXPECT_FALSE(exchanges_as_programs(edges(2, {{0, 1, 100, 4}, {1, 0, 100, 4}}), Graph{}, &around));
}
