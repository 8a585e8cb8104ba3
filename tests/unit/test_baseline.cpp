#include <gtest/gtest.h>

#include "helpers.hpp"
#include "rankmap/baseline.hpp"

using namespace rankmap;

namespace {
// Two nodes of three single-PU cores.
struct TwoNodes {
  Machine m = test::make_machine("[2]", "", "n[0-1]", "core:3");
  Allocation a = make_allocation(m, {});
};
}  // namespace

TEST(Baseline, BlockFillsANodeThenTheNext) {
  TwoNodes t;
  EXPECT_EQ(baseline_mapping(Baseline::block, t.a, 5), (Mapping{{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}}}));
}

TEST(Baseline, RoundRobinAlternatesNodes) {
  TwoNodes t;
  EXPECT_EQ(baseline_mapping(Baseline::rr, t.a, 5), (Mapping{{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}}}));
}

TEST(Baseline, RoundRobinSkipsFullNodesOfUnequalSize) {
  const Machine m = parse_machine(R"(
[network]
dims = [2]
t_hop_ns = 1
t_inj_ns = 1
t_ej_ns = 1
[[nodes]]
hosts = "big"
hwloc = "core:3"
[[nodes]]
hosts = "small"
hwloc = "core:1"
)",
                                  "m.toml");
  const Allocation a = make_allocation(m, {});
  EXPECT_EQ(baseline_mapping(Baseline::rr, a, 4), (Mapping{{{0, 0}, {1, 0}, {0, 1}, {0, 2}}}));
}

TEST(Baseline, RandomIsSeededAndValid) {
  TwoNodes t;
  const Mapping r1 = baseline_mapping(Baseline::random, t.a, 6, 11);
  EXPECT_EQ(r1, baseline_mapping(Baseline::random, t.a, 6, 11));
  EXPECT_NO_THROW(verify_mapping(r1, t.a, 6, "random"));
  bool differs = false;
  for (std::uint64_t seed = 12; seed < 20; ++seed) differs |= !(baseline_mapping(Baseline::random, t.a, 6, seed) == r1);
  EXPECT_TRUE(differs);
  EXPECT_NO_THROW(verify_mapping(baseline_mapping(Baseline::random, t.a, 4, 3), t.a, 4, "random"));
}

TEST(Baseline, TooManyRanks) {
  TwoNodes t;
  test::expect_error([&] { baseline_mapping(Baseline::block, t.a, 7); }, 0,
                     "7 ranks do not fit the 6 slots of 2 nodes");
  test::expect_error([] { parse_baseline("blocky"); }, 0, "unknown baseline 'blocky'");
}
