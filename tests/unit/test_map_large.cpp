// The engine above kLargeAllocation (2048) nodes, where the pipelines take
// the paths that scale: the hierarchy partitioner instead of one METIS call
// or the joint bisection, and no placement starts that look at every node.
// Until now only bench/map_large.sh ran this path.
//
// A periodic 7-point stencil of 16x12x12 ranks, renumbered at random, on a
// 16x12x12 torus of one-core nodes (2304 nodes, one rank each). Every edge
// joins two nodes, so hop-bytes are at least the bytes sent, 2304 * 6 * B;
// the grid laid onto the torus as it is reaches that bound.
#include <gtest/gtest.h>

#include <algorithm>

#include "helpers.hpp"
#include "map/stages.hpp"
#include "rankmap/baseline.hpp"
#include "rankmap/generate.hpp"
#include "rankmap/map.hpp"
#include "rankmap/metrics.hpp"

using namespace rankmap;

namespace {

constexpr std::uint64_t B = 1000;

struct LargeCase {
  Machine machine = test::make_machine("[16, 12, 12]", "", "n[0000-2303]", "core:1 pu:1");
  Allocation allocation = make_allocation(machine, {});
  Graph graph = renumber_ranks(make_stencil({{16, 12, 12}, false, true, B}), 7);
  std::uint64_t bound = 2304ull * 6 * B;
};

bool tried(const std::vector<std::string>& stages, const std::string& candidate) {
  return std::any_of(stages.begin(), stages.end(),
                     [&](const std::string& s) { return s.rfind("candidate " + candidate, 0) == 0; });
}

}  // namespace

TEST(MapLargeAllocation, HierarchyRunsAndStaysNearTheBound) {
  const LargeCase k;
  ASSERT_GT(k.allocation.size(), detail::kLargeAllocation);
  ASSERT_EQ(k.graph.total_bytes(), k.bound);
  Context c = create_context("default");
  c.partition.cartesian = false;  // the partitioners, not the grid layout
  std::vector<std::string> stages;
  const MapResult r =
      map_explained(k.graph, k.machine, k.allocation, c, [&](std::string_view s) { stages.emplace_back(s); });
  verify_mapping(r.mapping, k.allocation, k.graph.ranks, "map()");
  EXPECT_TRUE(tried(stages, "hierarchy"));
  EXPECT_FALSE(tried(stages, "METIS k-way"));          // one call into 2304 parts: too slow here
  EXPECT_FALSE(tried(stages, "recursive bisection"));  // the hierarchy stands in for it
  const Metrics s = evaluate(k.graph, k.machine, k.allocation, r.mapping);
  const Metrics block =
      evaluate(k.graph, k.machine, k.allocation, baseline_mapping(Baseline::block, k.allocation, k.graph.ranks));
  // Measured (2026-11-25): 2.80x the bound, and block 6.7x. Without the
  // grid (renumbered, cartesian off) the parts are right (inter-node
  // bytes at the bound) but not their places; Scotch's static mapping
  // through the same engine does no better (2.83x). The limits catch a
  // regression of the path, not a gap it has always had.
  EXPECT_GE(s.hop_bytes, k.bound);
  EXPECT_EQ(s.inter_node_bytes, k.bound);  // one rank a node: every byte leaves its node
  EXPECT_LE(s.hop_bytes, k.bound * 3);
  EXPECT_LT(s.hop_bytes * 3, block.hop_bytes);
}

TEST(MapLargeAllocation, RecoveredGridReachesTheBound) {
  const LargeCase k;
  const Metrics s =
      evaluate(k.graph, k.machine, k.allocation, map(k.graph, k.machine, k.allocation, create_context("default")));
  EXPECT_EQ(s.hop_bytes, k.bound);
  EXPECT_EQ(s.max_dilation, 1);
}
