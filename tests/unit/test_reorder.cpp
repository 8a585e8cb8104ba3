// Renumbering a communicator's processes: the Cartesian topology's graph
// and the reordering, checked against facts worked by hand.
#include <gtest/gtest.h>

#include <set>

#include "helpers.hpp"
#include "rankmap/allocation.hpp"
#include "rankmap/reorder.hpp"

using namespace rankmap;

namespace {

// Undirected grid edges whose two ends are on different nodes.
int cut_edges(const Graph& g, const std::vector<int>& node_of_rank) {
  int cut = 0;
  for (std::uint32_t r = 0; r < g.ranks; ++r)
    for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e)
      cut += r < g.targets[e] && node_of_rank[r] != node_of_rank[g.targets[e]];
  return cut;
}

Machine switch_of_four() {
  return parse_machine(
      "name = \"s\"\n[network]\nkind = \"switch\"\nt_hop_ns = 100\nt_inj_ns = 400\nt_ej_ns = 400\n"
      "[[nodes]]\nhosts = \"h[0-3]\"\nhwloc = \"package:1 core:4 pu:1\"\n",
      "switch");
}

}  // namespace

TEST(Reorder, CartesianGraphByHand) {
  // 4x4 periodic: 4 neighbours each, 32 grid edges.
  Graph g = cartesian_graph({4, 4}, {1, 1});
  EXPECT_EQ(g.ranks, 16u);
  EXPECT_EQ(g.num_edges(), 64u);
  // Rank 5 is (1,1): neighbours (0,1)=1, (2,1)=9, (1,0)=4, (1,2)=6.
  EXPECT_EQ(std::vector<std::uint32_t>(g.targets.begin() + static_cast<long>(g.offsets[5]),
                                       g.targets.begin() + static_cast<long>(g.offsets[6])),
            (std::vector<std::uint32_t>{1, 4, 6, 9}));
  // Not periodic along the first: rank 0 = (0,0) has (1,0)=4, (0,1)=1, (0,3)=3.
  g = cartesian_graph({4, 4}, {0, 1});
  EXPECT_EQ(g.offsets[1] - g.offsets[0], 3u);
  EXPECT_EQ(g.num_edges(), 2u * (4 * 4 + 3 * 4));
  // A periodic ring of 2: one edge of two bytes (a halo code sends both
  // faces to the one neighbour); not periodic, one byte.
  g = cartesian_graph({2}, {1});
  EXPECT_EQ(g.num_edges(), 2u);
  EXPECT_EQ(g.bytes[0], 2u);
  EXPECT_EQ(g.msgs[0], 2u);
  g = cartesian_graph({2}, {0});
  EXPECT_EQ(g.num_edges(), 2u);
  EXPECT_EQ(g.bytes[0], 1u);
  test::expect_error([] { cartesian_graph({}, {}); }, 0, "needs a dimension");
  test::expect_error([] { cartesian_graph({4, 0}, {0, 0}); }, 0, "1 or more");
}

TEST(Reorder, ScatteredProcessesGetTheOptimumCut) {
  const Machine machine = switch_of_four();
  const Allocation allocation = make_allocation(machine, {});
  const Graph g = cartesian_graph({4, 4}, {1, 1});
  // A scattered launch (a Latin square): process p = (i, j) on node
  // (i + j) mod 4, so no two grid neighbours share a node.
  std::vector<ProcessPlace> places(16);
  std::vector<int> identity_node(16);
  for (int p = 0; p < 16; ++p) {
    const int node = (p / 4 + p % 4) % 4;
    places[static_cast<std::size_t>(p)] = {node, p / 4};
    identity_node[static_cast<std::size_t>(p)] = node;
  }
  EXPECT_EQ(cut_edges(g, identity_node), 32);  // every edge joins two nodes
  const Reordering r = reorder_processes(g, machine, allocation, places, create_context("default"));
  ASSERT_FALSE(r.identity) << r.why;
  // A permutation of the processes.
  EXPECT_EQ(std::set<std::uint32_t>(r.process_of_rank.begin(), r.process_of_rank.end()).size(), 16u);
  std::vector<int> node_of_rank(16);
  for (int rank = 0; rank < 16; ++rank)
    node_of_rank[static_cast<std::size_t>(rank)] = places[r.process_of_rank[static_cast<std::size_t>(rank)]].node;
  // 4 ranks a node share at most 4 grid edges (a 2x2 block or a periodic
  // row): 16 of the 32 edges must cross, no fewer.
  EXPECT_EQ(cut_edges(g, node_of_rank), 16);
  EXPECT_EQ(r.identity_hop_bytes, 64u * 2);  // 64 directed bytes, 2 hops each through the switch
  EXPECT_EQ(r.hop_bytes, 32u * 2);
  // Inside a node, the ranks go to its processes by CPU: each process once.
  for (int node = 0; node < 4; ++node) {
    std::set<int> cpus;
    for (int rank = 0; rank < 16; ++rank)
      if (node_of_rank[static_cast<std::size_t>(rank)] == node)
        cpus.insert(places[r.process_of_rank[static_cast<std::size_t>(rank)]].cpu);
    EXPECT_EQ(cpus, (std::set<int>{0, 1, 2, 3}));
  }
}

TEST(Reorder, TheIdentityStaysWhenItIsAlreadyBest) {
  const Machine machine = switch_of_four();
  const Allocation allocation = make_allocation(machine, {});
  const Graph g = cartesian_graph({4, 4}, {1, 1});
  // Block launch: rows of the grid on nodes, already optimal (16 cut).
  std::vector<ProcessPlace> places(16);
  for (int p = 0; p < 16; ++p) places[static_cast<std::size_t>(p)] = {p / 4, p % 4};
  const Reordering r = reorder_processes(g, machine, allocation, places, create_context("default"));
  EXPECT_TRUE(r.identity);
  EXPECT_EQ(r.hop_bytes, r.identity_hop_bytes);
  for (std::uint32_t rank = 0; rank < 16; ++rank) EXPECT_EQ(r.process_of_rank[rank], rank);
  places.pop_back();
  test::expect_error([&] { reorder_processes(g, machine, allocation, places, create_context("default")); }, 0,
                     "15 processes for a topology of 16 ranks");
}

TEST(Reorder, NodesOfDifferentCounts) {
  const Machine machine = switch_of_four();
  const Allocation allocation = make_allocation(machine, {});
  // A ring of 10 over nodes of 4, 4 and 2 processes, scattered: process p
  // on node p mod 3 but the last two moved: 4, 4, 2 processes.
  Graph ring;
  ring.ranks = 10;
  ring.offsets.push_back(0);
  for (std::uint32_t r = 0; r < 10; ++r) {
    for (std::uint32_t t : {(r + 9) % 10, (r + 1) % 10})
      ring.targets.push_back(t), ring.bytes.push_back(1), ring.msgs.push_back(1);
    std::sort(ring.targets.end() - 2, ring.targets.end());
    ring.offsets.push_back(ring.targets.size());
  }
  const std::vector<int> node_of_process{0, 1, 2, 0, 1, 2, 0, 1, 0, 1};
  std::vector<ProcessPlace> places;
  for (int p = 0; p < 10; ++p) places.push_back({node_of_process[static_cast<std::size_t>(p)], p});
  const Reordering r = reorder_processes(ring, machine, allocation, places, create_context("default"));
  ASSERT_FALSE(r.identity) << r.why;
  std::vector<int> node_of_rank(10), count(3, 0);
  for (int rank = 0; rank < 10; ++rank) {
    node_of_rank[static_cast<std::size_t>(rank)] = places[r.process_of_rank[static_cast<std::size_t>(rank)]].node;
    ++count[static_cast<std::size_t>(node_of_rank[static_cast<std::size_t>(rank)])];
  }
  EXPECT_EQ(count, (std::vector<int>{4, 4, 2}));  // each node keeps its processes
  // Three arcs of consecutive ranks cut a ring in 3 places, the fewest for 3 nodes.
  EXPECT_EQ(cut_edges(ring, node_of_rank), 3);
  EXPECT_EQ(std::set<std::uint32_t>(r.process_of_rank.begin(), r.process_of_rank.end()).size(), 10u);
}
