// Switches, fat trees and VMs on hosts: hops, routes, link loads and the
// per-level gain model, each against values worked out by hand below; the
// engine's known optima on the two seed machines (cpmd-ib-16, jinr-kvm).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "helpers.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/map.hpp"
#include "rankmap/metrics.hpp"

using namespace rankmap;

namespace {

const char* kTimes = "t_hop_ns = 50\nt_inj_ns = 450\nt_ej_ns = 450\nt_local_ns = 400\n";

Machine tree_machine(const std::string& network, const std::string& hosts, const std::string& extra = "",
                     const std::string& hwloc = "package:1 core:1 pu:1") {
  return parse_machine("name = \"t\"\n[network]\n" + network + "\n" + kTimes + extra + "[[nodes]]\nhosts = \"" + hosts +
                           "\"\nhwloc = \"" + hwloc + "\"\n",
                       "tree.toml");
}

std::vector<std::size_t> route(const Network& net, std::size_t a, std::size_t b) {
  std::vector<std::size_t> links;
  for_each_link(net, a, b, [&](std::size_t l) { links.push_back(l); });
  return links;
}

int hops(const Machine& m, int a, int b) { return m.network.hops(m.nodes[a].coord, m.nodes[b].coord); }

// Two levels: leaves of 4 nodes with 2 uplinks each, 3 leaves under the top.
// Link ids (by hand from Network::tree_link_id): tier 0, node v: 2v up,
// 2v + 1 down (ids 0-23); tier 1, leaf s, uplink j: 24 + 2 (2s + j) up, one
// more down (ids 24-35).
Machine fat_tree_4x3() {
  return tree_machine("kind = \"fattree\"\nlevels = [{fanout = 4, uplinks = 2}, {fanout = 3}]", "n[00-11]");
}

}  // namespace

TEST(TreeNetwork, SwitchHopsAndRoutes) {
  const Machine m = tree_machine("kind = \"switch\"", "n[0-3]");
  EXPECT_EQ(m.network.kind_name(), "switch");
  EXPECT_EQ(m.network.num_coords(), 4u);
  EXPECT_EQ(m.network.num_links(), 8u);  // each node's cable, both ways
  EXPECT_EQ(m.network.diameter(), 2);
  EXPECT_EQ(hops(m, 0, 0), 0);
  EXPECT_EQ(hops(m, 0, 3), 2);
  EXPECT_EQ(hops(m, 2, 1), 2);
  EXPECT_EQ(route(m.network, 0, 3), (std::vector<std::size_t>{0, 7}));  // node 0 up, node 3 down
  EXPECT_EQ(route(m.network, 2, 1), (std::vector<std::size_t>{4, 3}));
  EXPECT_TRUE(route(m.network, 2, 2).empty());
  EXPECT_EQ(m.network.link_name(7), "node 3 down from level-1 switch");
}

TEST(TreeNetwork, FatTreeHopsAndRoutes) {
  const Machine m = fat_tree_4x3();
  const Network& net = m.network;
  EXPECT_EQ(net.kind_name(), "fattree");
  EXPECT_EQ(net.num_links(), 36u);
  EXPECT_EQ(net.diameter(), 4);
  EXPECT_EQ(hops(m, 1, 3), 2);  // one leaf
  EXPECT_EQ(hops(m, 1, 6), 4);  // leaves 0 and 1
  EXPECT_EQ(hops(m, 11, 0), 4);
  // 1 -> 6: up node 1 (2), leaf 0 uplink 6 mod 2 = 0 (24); down leaf 1
  // uplink 0 (24 + 2*2 + 1 = 29), node 6 (13).
  EXPECT_EQ(route(net, 1, 6), (std::vector<std::size_t>{2, 24, 29, 13}));
  // 1 -> 7: uplink 7 mod 2 = 1 both ways: 24 + 2 = 26 up, 24 + 2*3 + 1 = 31 down.
  EXPECT_EQ(route(net, 1, 7), (std::vector<std::size_t>{2, 26, 31, 15}));
  EXPECT_EQ(route(net, 1, 3), (std::vector<std::size_t>{2, 7}));
  EXPECT_EQ(net.link_name(26), "level-1 switch 0 up to level-2 switch (link 1)");
  // Full bisection by default: a leaf of 4 nodes has 4 uplinks.
  const Machine full = tree_machine("kind = \"fattree\"\nlevels = [{fanout = 4}, {fanout = 3}]", "n[00-11]");
  EXPECT_EQ(full.network.levels[0].uplinks, 4);
  EXPECT_EQ(full.network.num_links(), 24u + 3 * 4 * 2);
}

// One rank a node, block: rank r on node r. Traffic 0->4 100 B, 1->5 10 B,
// 2->9 1000 B, 8->3 7 B; each crosses the top (4 hops). By hand, uplink
// j = destination mod 2:
//   0->4: leaf 0 up 0 (24), leaf 1 down 0 (29)
//   1->5: leaf 0 up 1 (26), leaf 1 down 1 (31)
//   2->9: leaf 0 up 1 (26), leaf 2 down 1 (35)
//   8->3: leaf 2 up 1 (34), leaf 0 down 1 (27)
TEST(TreeNetwork, LoadOfEveryUplinkForASmallMapping) {
  const Machine m = fat_tree_4x3();
  const Allocation a = make_allocation(m, {});
  GraphBuilder b(12);
  b.add(0, 4, 100, 1);
  b.add(1, 5, 10, 1);
  b.add(2, 9, 1000, 1);
  b.add(8, 3, 7, 1);
  const Graph g = b.build();
  Mapping block;
  for (int r = 0; r < 12; ++r) block.ranks.push_back({r, 0});
  const Metrics s = evaluate(g, m, a, block);
  const std::map<std::size_t, std::uint64_t> uplinks{{24, 100}, {25, 0},  {26, 1010}, {27, 7}, {28, 0}, {29, 100},
                                                     {30, 0},   {31, 10}, {32, 0},    {33, 0}, {34, 7}, {35, 1000}};
  for (auto [link, bytes] : uplinks) EXPECT_EQ(s.link_bytes[link], bytes) << m.network.link_name(link);
  EXPECT_EQ(s.link_bytes[0], 100u);    // node 0 up
  EXPECT_EQ(s.link_bytes[19], 1000u);  // node 9 down
  EXPECT_EQ(s.max_link_bytes, 1010u);
  EXPECT_EQ(s.hop_bytes, 4u * (100 + 10 + 1000 + 7));
  EXPECT_EQ(s.max_dilation, 4);
  EXPECT_EQ(s.same_host_bytes, 0u);
}

// Four VMs, two to a host. A VM pair of one host meets at the host's bridge
// (2 hops, the host's own latency and rate); across hosts at the switch (4
// hops, t_inj + t_ej + 4 t_hop = 450 + 450 + 200 = 1100 ns).
TEST(TreeNetwork, VmPairOnOneHostAgainstAcrossHosts) {
  const Machine m = tree_machine("kind = \"switch\"\nlink_gbps = 9.41", "vm[1-4]",
                                 "[hosts]\nvms_per_host = 2\nt_ns = 700\ngbps = 28\n");
  const Network& net = m.network;
  EXPECT_EQ(net.levels.size(), 2u);
  EXPECT_TRUE(net.levels[0].host);
  EXPECT_EQ(hops(m, 0, 1), 2);
  EXPECT_EQ(hops(m, 0, 2), 4);
  EXPECT_DOUBLE_EQ(message_time_ns(net, 2), 700);
  EXPECT_DOUBLE_EQ(message_time_ns(net, 4), 1100);
  // Tier 0: VM v up 2v, down 2v + 1; tier 1 (the hosts' one NIC each): host h up 8 + 2h, down 9 + 2h.
  EXPECT_EQ(route(net, 0, 1), (std::vector<std::size_t>{0, 3}));
  EXPECT_EQ(route(net, 0, 2), (std::vector<std::size_t>{0, 8, 11, 5}));
  EXPECT_DOUBLE_EQ(net.link_gbps_of(0), 28);
  EXPECT_DOUBLE_EQ(net.link_gbps_of(8), 9.41);
  GraphBuilder b(4);
  b.add(0, 1, 100, 1);
  b.add(0, 2, 50, 1);
  const Graph g = b.build();
  Mapping block;
  for (int r = 0; r < 4; ++r) block.ranks.push_back({r, 0});
  const Metrics s = evaluate(g, m, make_allocation(m, {}), block);
  EXPECT_EQ(s.same_host_bytes, 100u);
  EXPECT_EQ(s.inter_node_bytes, 150u);
  EXPECT_EQ(s.hop_bytes, 2u * 100 + 4u * 50);
  // Per level, one message each: (700 + 1100) / 2.
  EXPECT_DOUBLE_EQ(mean_message_times(g, net, s).by_messages_ns, 900);
}

// The per-level form on a switch: T_0 = t_local = 400 ns inside a node, T_1
// = 450 + 450 + 2 * 50 = 1000 ns between nodes. Ranks 0-3 on 2 nodes of 2
// cores; 0->1 sends 3 messages, 0->2 one. Block (0,1 | 2,3): (3 * 400 +
// 1000) / 4 = 550 ns. Pairs (0,2 | 1,3): (3 * 1000 + 400) / 4 = 850 ns.
// Gain at p_mpi 0.5: 0.5 * (850 - 550) / 850.
TEST(TreeNetwork, PerLevelGainOnASwitchByHand) {
  const Machine m = tree_machine("kind = \"switch\"", "n[0-1]", "", "package:1 core:2 pu:1");
  const Allocation a = make_allocation(m, {});
  GraphBuilder b(4);
  b.add(0, 1, 300, 3);
  b.add(0, 2, 100, 1);
  const Graph g = b.build();
  const Mapping block{{{0, 0}, {0, 1}, {1, 0}, {1, 1}}};
  const Mapping pairs{{{0, 0}, {1, 0}, {0, 1}, {1, 1}}};
  const double t_block = mean_message_times(g, m.network, evaluate(g, m, a, block)).by_messages_ns;
  const double t_pairs = mean_message_times(g, m.network, evaluate(g, m, a, pairs)).by_messages_ns;
  EXPECT_DOUBLE_EQ(t_block, 550);
  EXPECT_DOUBLE_EQ(t_pairs, 850);
  EXPECT_DOUBLE_EQ(relative_gain(0.5, t_pairs, t_block), 0.5 * 300 / 850);
  // The mean distance of a switch: every other node 2 hops away.
  EXPECT_DOUBLE_EQ(mean_distance(m.network), 2);
}

TEST(TreeNetwork, MachineFileErrors) {
  const std::string head = "name = \"t\"\n[network]\n";
  const std::string times = kTimes;
  const std::string nodes = "[[nodes]]\nhosts = \"n[0-3]\"\nhwloc = \"core:1\"\n";
  test::expect_error([&] { parse_machine(head + "kind = \"ring\"\n" + times + nodes, "t.toml"); }, 3,
                     "expected torus, mesh, switch, fattree, tree, dragonfly or dragonfly+");
  test::expect_error([&] { parse_machine(head + "kind = \"fattree\"\n" + times + nodes, "t.toml"); }, 2,
                     "a fattree needs 'levels'");
  test::expect_error([&] { parse_machine(head + "kind = \"switch\"\ndims = [4]\n" + times + nodes, "t.toml"); }, 4,
                     "'dims' is for tori");
  test::expect_error(
      [&] { parse_machine(head + "dims = [4]\n" + times + "[hosts]\nvms_per_host = 2\n" + nodes, "t.toml"); }, 8,
      "[hosts] needs a switch or fattree");
  test::expect_error(
      [&] {
        parse_machine(head + "kind = \"fattree\"\nlevels = [{fanout = 2}, {fanout = 3}]\n" + times + nodes, "t.toml");
      },
      9, "the levels hold 6 nodes");
  test::expect_error(
      [&] { parse_machine(head + "kind = \"switch\"\n" + times + "[hosts]\nvms_per_host = 3\n" + nodes, "t.toml"); },
      10, "not a multiple of vms_per_host");
  // 10,000 leaves of one node with 10^6 uplinks each would be 2 * 10^10
  // links: a leaf's uplinks are at most the tree's nodes (each destination
  // takes one).
  test::expect_error(
      [&] {
        parse_machine(head + "kind = \"fattree\"\nlevels = [{fanout = 1, uplinks = 1000000}, {fanout = 10000}]\n" +
                          times + "[[nodes]]\nhosts = \"n[0-9999]\"\nhwloc = \"core:1\"\n",
                      "t.toml");
      },
      4, "'uplinks' must be a whole number from 1 to 10000");
  // Within that, 2^26 directed links in all, checked before any host is
  // read. 8,192 leaves of 2,048 nodes: 2 * 2^24 node links, and with 2,048
  // uplinks a leaf 2 * 2^24 more (2^26: taken, so the host count is what
  // fails); with 4,096, 2^25 + 2^26 = 100,663,296. A 256^3 torus has 6
  // directed links a node: 6 * 2^24, the same; 4096^2, 4 a node: 2^26.
  auto fat = [&](int uplinks) {
    return head + "kind = \"fattree\"\nlevels = [{fanout = 2048, uplinks = " + std::to_string(uplinks) +
           "}, {fanout = 8192}]\n" + times + nodes;
  };
  test::expect_error([&] { parse_machine(fat(2048), "t.toml"); }, 9, "the levels hold 16777216 nodes");
  test::expect_error([&] { parse_machine(fat(4096), "t.toml"); }, 2,
                     "the network has 100663296 directed links; rankmap maps onto at most 67108864");
  test::expect_error([&] { parse_machine(head + "dims = [256, 256, 256]\n" + times + nodes, "t.toml"); }, 2,
                     "the network has 100663296 directed links");
  test::expect_error([&] { parse_machine(head + "dims = [4096, 4096]\n" + times + nodes, "t.toml"); }, 8,
                     "network has 16777216 coordinates");
}

// Known optimum on cpmd-ib-16: 16 groups of 8 ranks, each talking only
// inside itself (every pair, both ways), ranks numbered at random. Each
// group fits one node exactly, so the optimum puts each on one: nothing
// crosses the switch.
TEST(TreeNetwork, CpmdGroupsLandOnOneNodeEach) {
  const Machine m = load_machine(test::source_dir() / "data/machines/cpmd-ib-16.toml");
  const Allocation a = make_allocation(m, {});
  ASSERT_EQ(a.total_slots(), 128u);
  std::vector<std::uint32_t> label(128);
  std::iota(label.begin(), label.end(), 0u);
  std::shuffle(label.begin(), label.end(), std::mt19937(7));
  GraphBuilder b(128);
  for (int grp = 0; grp < 16; ++grp)
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j)
        if (i != j) b.add(label[grp * 8 + i], label[grp * 8 + j], 1000, 1);
  const Graph g = b.build();
  const Mapping mapping = map(g, m, a, create_context("default"));
  const Metrics s = evaluate(g, m, a, mapping);
  EXPECT_EQ(s.inter_node_bytes, 0u);
  EXPECT_EQ(s.hop_bytes, 0u);
  for (int grp = 0; grp < 16; ++grp) {
    std::set<int> nodes;
    for (int i = 0; i < 8; ++i) nodes.insert(mapping.ranks[label[grp * 8 + i]].node);
    EXPECT_EQ(nodes.size(), 1u) << "group " << grp;
  }
}

// Known optimum on jinr-kvm: four VM-sized groups of 20 ranks, A = ranks
// 0-19, C = 20-39, B = 40-59, D = 60-79. Inside a group every pair sends
// 1000 B; a_i and b_i send each other 100 B, c_i and d_i too, a_i and c_i
// 10 B. Each group on one VM (nothing else keeps 380,000 B a group off the
// network), and A with B, C with D on one host: 8,000 B between VMs of one
// host (2 hops), 400 B across hosts (4): hop-bytes 2 * 8000 + 4 * 400 =
// 17,600. Block puts A and C on the first host: 2 * 400 + 4 * 8000 = 32,800.
TEST(TreeNetwork, JinrHeavyVmPairsShareAHost) {
  const Machine m = load_machine(test::source_dir() / "data/machines/jinr-kvm.toml");
  const Allocation a = make_allocation(m, {});
  ASSERT_EQ(a.total_slots(), 80u);
  GraphBuilder b(80);
  for (int grp = 0; grp < 4; ++grp)
    for (int i = 0; i < 20; ++i)
      for (int j = 0; j < 20; ++j)
        if (i != j) b.add(static_cast<std::uint32_t>(grp * 20 + i), static_cast<std::uint32_t>(grp * 20 + j), 1000, 1);
  const int A = 0, C = 20, B = 40, D = 60;
  for (int i = 0; i < 20; ++i) {
    for (auto [x, y, bytes] : {std::tuple{A, B, 100}, std::tuple{C, D, 100}, std::tuple{A, C, 10}}) {
      b.add(static_cast<std::uint32_t>(x + i), static_cast<std::uint32_t>(y + i), static_cast<std::uint64_t>(bytes), 1);
      b.add(static_cast<std::uint32_t>(y + i), static_cast<std::uint32_t>(x + i), static_cast<std::uint64_t>(bytes), 1);
    }
  }
  const Graph g = b.build();
  Mapping block;
  for (int r = 0; r < 80; ++r) block.ranks.push_back({r / 20, r % 20});
  EXPECT_EQ(evaluate(g, m, a, block).hop_bytes, 32800u);
  const Metrics s = evaluate(g, m, a, map(g, m, a, create_context("default")));
  EXPECT_EQ(s.hop_bytes, 17600u);
  EXPECT_EQ(s.same_host_bytes, 8000u);
  EXPECT_EQ(s.inter_node_bytes, 8400u);
}

// The flow model on a tree: leaves of 2 nodes under one top, link_gbps 8
// (1 B/ns). Ranks 0 -> 2 and 1 -> 3 send 1,000,000 B each, one message,
// and both cross from leaf 0 to leaf 1. With one uplink a leaf they share
// it: T(4) = 450 + 450 + 4 * 50 = 1100 ns, then 2,000,000 B at 1 B/ns in
// all, so both end at 2,001,100 ns. With two uplinks, destination mod 2
// puts them on different links: 1100 + 1,000,000 = 1,001,100 ns.
TEST(TreeNetwork, FlowModelSharesAThinUplink) {
  GraphBuilder b(4);
  b.add(0, 2, 1'000'000, 1);
  b.add(1, 3, 1'000'000, 1);
  const Graph g = b.build();
  const Mapping block{{{0, 0}, {1, 0}, {2, 0}, {3, 0}}};
  for (auto [uplinks, expected] : {std::pair{1, 2'001'100.0}, std::pair{2, 1'001'100.0}}) {
    const Machine m =
        tree_machine("kind = \"fattree\"\nlink_gbps = 8\nlevels = [{fanout = 2, uplinks = " + std::to_string(uplinks) +
                         "}, {fanout = 2}]",
                     "n[0-3]");
    const FlowTimes t = flow_times(g, Graph{}, m, make_allocation(m, {}), block);
    ASSERT_TRUE(t.computed);
    EXPECT_NEAR(t.slowest_ns, expected, 1e-6 * expected) << uplinks << " uplink(s)";
  }
}
