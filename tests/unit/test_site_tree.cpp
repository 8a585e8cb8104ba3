// Trees as sites wire them (kind = "tree", [[switches]]): a regular one
// gives what `levels` gives, route for route and mapping for mapping; an
// irregular one's ports, cables and routes as worked out by hand below;
// and each malformed description refused with its line.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "helpers.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/map.hpp"
#include "rankmap/metrics.hpp"
#include "rankmap/site_tree.hpp"

using namespace rankmap;

namespace {

const char* kHead = "name = \"t\"\n[network]\nt_hop_ns = 100\nt_inj_ns = 500\nt_ej_ns = 500\nlink_gbps = 100\n";

Machine site(const std::string& network_extra, const std::string& switches, const std::string& hosts) {
  return parse_machine(std::string(kHead) + "kind = \"tree\"\n" + network_extra + switches + "[[nodes]]\nhosts = \"" +
                           hosts + "\"\nhwloc = \"package:2 core:2\"\n",
                       "site.toml");
}

std::string sw(const std::string& name, const std::string& key, const std::string& list,
               const std::string& extra = "") {
  return "[[switches]]\nname = \"" + name + "\"\n" + key + " = \"" + list + "\"\n" + extra;
}

std::vector<std::size_t> route(const Network& net, std::size_t a, std::size_t b) {
  std::vector<std::size_t> links;
  for_each_link(net, a, b, [&](std::size_t l) { links.push_back(l); });
  return links;
}

// Slurm's own example (topology.conf(5)): three leaves of six nodes, here
// with two top switches over them, each leaf cabled twice to each.
const std::string kSlurmExample = sw("s0", "nodes", "dev[0-5]") + sw("s1", "nodes", "dev[6-11]") +
                                  sw("s2", "nodes", "dev[12-17]") + sw("s3", "switches", "s[0-2]", "links = 2\n") +
                                  sw("s4", "switches", "s[0-2]", "links = 2\n");

// The irregular tree of the issue: 3 levels; leaf l3 has half the nodes of
// the others; spine a1 has a single cable to each of its leaves where a0
// has two; the pod of b0 has one spine.
const std::string kIrregular = sw("l0", "nodes", "n[00-07]") + sw("l1", "nodes", "n[08-15]") +
                               sw("l2", "nodes", "n[16-23]") + sw("l3", "nodes", "n[24-27]") +
                               sw("a0", "switches", "l[0-1]", "links = 2\n") + sw("a1", "switches", "l[0-1]") +
                               sw("b0", "switches", "l[2-3]", "links = 2\n") + sw("c0", "switches", "a[0-1],b0") +
                               sw("c1", "switches", "a[0-1],b0");

}  // namespace

// Two top switches with the same leaves are one switch of the skeleton,
// whose uplinks are both of theirs: 2 x 2 = 4 cables a leaf. The same
// machine written with levels routes every pair over the same links, has
// the same rates, and maps a renumbered stencil to the same mapping.
TEST(SiteTree, RegularTreeIsTheLevelsTree) {
  const Machine s = site("", kSlurmExample, "dev[0-17]");
  const Machine l = parse_machine(std::string(kHead) +
                                      "kind = \"fattree\"\nlevels = [{fanout = 6, uplinks = 4}, {fanout = 3}]\n"
                                      "[[nodes]]\nhosts = \"dev[0-17]\"\nhwloc = \"package:2 core:2\"\n",
                                  "levels.toml");
  ASSERT_FALSE(s.network.irregular());
  EXPECT_EQ(s.network.kind_name(), "tree");
  EXPECT_EQ(s.network.dims, l.network.dims);
  ASSERT_EQ(s.network.num_links(), l.network.num_links());
  ASSERT_EQ(s.nodes.size(), l.nodes.size());
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    EXPECT_EQ(s.nodes[i].host, l.nodes[i].host);
    EXPECT_EQ(s.nodes[i].coord_index, l.nodes[i].coord_index);
  }
  for (std::size_t a = 0; a < 18; ++a)
    for (std::size_t b = 0; b < 18; ++b) EXPECT_EQ(route(s.network, a, b), route(l.network, a, b)) << a << " " << b;
  for (std::size_t link = 0; link < s.network.num_links(); ++link) {
    EXPECT_EQ(s.network.link_gbps_of(link), l.network.link_gbps_of(link));
    EXPECT_TRUE(s.network.has_link(link));
  }
  EXPECT_DOUBLE_EQ(s.network.mean_distance(), l.network.mean_distance());
  // The site's names: leaf s1's second cable (link 1) goes to s3.
  EXPECT_EQ(s.network.link_name(s.network.tree_link_id(1, 1, 1, false)), "s1 up to s3 (link 1)");
  EXPECT_EQ(s.network.link_name(s.network.tree_link_id(1, 1, 2, true)), "s1 down from s4 (link 2)");

  GraphBuilder b(72);
  std::mt19937 rng(7);
  std::vector<std::uint32_t> rank(72);
  for (std::uint32_t r = 0; r < 72; ++r) rank[r] = r;
  std::shuffle(rank.begin(), rank.end(), rng);
  for (std::uint32_t r = 0; r < 72; ++r) {  // a 9 x 8 halo, renumbered
    if (r % 9 != 8) b.add(rank[r], rank[r + 1], 1000, 1), b.add(rank[r + 1], rank[r], 1000, 1);
    if (r + 9 < 72) b.add(rank[r], rank[r + 9], 3000, 1), b.add(rank[r + 9], rank[r], 3000, 1);
  }
  const Graph g = b.build();
  const Allocation as = make_allocation(s, {}), al = make_allocation(l, {});
  const Mapping ms = map(g, s, as, create_context("default")), ml = map(g, l, al, create_context("default"));
  ASSERT_EQ(ms.ranks.size(), ml.ranks.size());
  for (std::size_t r = 0; r < ms.ranks.size(); ++r) {
    EXPECT_EQ(ms.ranks[r].node, ml.ranks[r].node);
    EXPECT_EQ(ms.ranks[r].slot, ml.ranks[r].slot);
  }
  EXPECT_EQ(evaluate(g, s, as, ms).link_bytes, evaluate(g, l, al, ml).link_bytes);
}

// The irregular tree by hand. Skeleton: 8 ports a leaf, 2 a pod, 2 pods:
// 32 positions, n00-n27 at 0-27, 28-31 empty. Cables up: l0 and l1 have 3
// (a0, a0, a1), l2 and l3 2 (b0, b0); pod A {a0, a1} 4 (a0-c0, a1-c0,
// a0-c1, a1-c1), pod B 2 (b0-c0, b0-c1). Link ids: tier 0, position v:
// 2v up, 2v + 1 down (0-63); tier 1, leaf s, cable j: 64 + 2 (3s + j)
// (64-87); tier 2, pod v, cable j: 88 + 2 (4v + j) (88-103).
TEST(SiteTree, IrregularTreeByHand) {
  const Machine m = site("", kIrregular, "n[00-27]");
  const Network& net = m.network;
  ASSERT_TRUE(net.irregular());
  EXPECT_EQ(net.dims, (std::vector<int>{8, 2, 2}));
  EXPECT_EQ(net.levels[0].uplinks, 3);
  EXPECT_EQ(net.levels[1].uplinks, 4);
  EXPECT_EQ(net.num_links(), 104u);
  int present = 0;
  for (std::size_t l = 0; l < net.num_links(); ++l) present += net.has_link(l);
  EXPECT_EQ(present, 2 * (28 + 3 + 3 + 2 + 2 + 4 + 2));
  EXPECT_FALSE(net.has_link(2 * 28));                // position 28 is empty
  EXPECT_FALSE(net.has_link(64 + 2 * (3 * 2 + 2)));  // l2 has no third cable
  EXPECT_EQ(m.nodes[27].coord_index, 27u);
  EXPECT_EQ(net.hops(m.nodes[0].coord, m.nodes[27].coord), 6);
  EXPECT_EQ(net.hops(m.nodes[0].coord, m.nodes[8].coord), 4);
  EXPECT_EQ(net.hops(m.nodes[8].coord, m.nodes[15].coord), 2);

  // n00 -> n27: picks b / 1 = 27 at tiers 0 and 1, 27 / 3 = 9 at tier 2.
  // Up: 0; leaf 0's cable 27 mod 3 = 0 (64); pod A's 9 mod 4 = 1 (90,
  // a1 up to c0). Down: pod B's 9 mod 2 = 1 (99); leaf 3's 27 mod 2 = 1
  // (64 + 2 (9 + 1) + 1 = 85); position 27 (55).
  EXPECT_EQ(route(net, 0, 27), (std::vector<std::size_t>{0, 64, 90, 99, 85, 55}));
  EXPECT_EQ(net.link_name(90), "a1 up to c0 (link 1)");
  EXPECT_EQ(net.link_name(99), "b0 down from c1 (link 1)");
  // Back: every pick 0.
  EXPECT_EQ(route(net, 27, 0), (std::vector<std::size_t>{54, 82, 96, 89, 65, 1}));
  // n00 -> n08 (one pod): 8 mod 3 = 2 on both leaves, the cable to a1.
  EXPECT_EQ(route(net, 0, 8), (std::vector<std::size_t>{0, 68, 75, 17}));
  EXPECT_EQ(net.link_name(68), "l0 up to a1 (link 2)");
  EXPECT_EQ(net.link_name(55), "node 27 down from l3");
  EXPECT_EQ(m.link_name(55), "n27 down from l3");  // the machine names its hosts
  EXPECT_EQ(route(net, 8, 15), (std::vector<std::size_t>{16, 31}));

  // Ordered pairs meeting at level 1: 3 x 8 x 7 + 4 x 3 = 180; level 2:
  // 16^2 - 2 x 64 + 12^2 - 64 - 16 = 192; level 3: 28^2 - 16^2 - 12^2 = 384.
  EXPECT_NEAR(net.mean_distance(), (2.0 * 180 + 4.0 * 192 + 6.0 * 384) / (28 * 27), 1e-12);
}

// A cable of its own rate: two cables from l0 to a0, one of them 200
// Gbit/s; levels give the rest.
TEST(SiteTree, CablesOfOneSwitchPairMayDifferInRate) {
  const Machine m = site("levels = [{gbps = 50}, {gbps = 400}]\n",
                         sw("l0", "nodes", "n[0-1]") + sw("l1", "nodes", "n[2-3]") + sw("a0", "switches", "l[0-1]") +
                             "[[cables]]\nupper = \"a0\"\nlower = \"l0\"\nlinks = 1\ngbps = 200\n"
                             "[[cables]]\nupper = \"a0\"\nlower = \"l0\"\n",
                         "n[0-3]");
  const Network& net = m.network;
  ASSERT_TRUE(net.irregular());  // l0 has two cables, l1 one
  EXPECT_EQ(net.link_gbps_of(net.tree_link_id(0, 0, 0, false)), 50);
  EXPECT_EQ(net.link_gbps_of(net.tree_link_id(1, 0, 0, false)), 200);
  EXPECT_EQ(net.link_gbps_of(net.tree_link_id(1, 0, 1, true)), 400);
  EXPECT_EQ(net.link_gbps_of(net.tree_link_id(1, 1, 0, false)), 400);
  EXPECT_FALSE(net.has_link(net.tree_link_id(1, 1, 1, false)));
}

// A spine added later over some leaves only: s0 over l0, l1, l2, s1 over
// l0 and l1. They overlap, so they are one switch of the skeleton, whose
// children are l0, l1, l2 (every two meet under s0: 4 hops apart). Cables
// up: l0 and l1 two each (s0, s1), l2 one.
TEST(SiteTree, SpineAddedOverSomeLeaves) {
  const Machine m = site("",
                         sw("l0", "nodes", "n[0-1]") + sw("l1", "nodes", "n[2-3]") + sw("l2", "nodes", "n[4-5]") +
                             sw("s0", "switches", "l[0-2]") + sw("s1", "switches", "l[0-1]"),
                         "n[0-5]");
  const Network& net = m.network;
  ASSERT_TRUE(net.irregular());
  EXPECT_EQ(net.dims, (std::vector<int>{2, 3}));
  EXPECT_EQ(net.uplinks_of(1, 0), 2);
  EXPECT_EQ(net.uplinks_of(1, 2), 1);
  EXPECT_EQ(net.hops(m.nodes[0].coord, m.nodes[5].coord), 4);
  // n0 -> n4: picks 4 at tier 1: l0's cable 4 mod 2 = 0 (to s0), l2's only.
  EXPECT_EQ(route(net, 0, 4), (std::vector<std::size_t>{0, 12, 21, 9}));
  EXPECT_EQ(net.link_name(12), "l0 up to s0 (link 0)");
  EXPECT_EQ(net.link_name(21), "l2 down from s0");
}

// A chain of 100,000 switches, the top listed first: refused at the
// seventh level of switches, before the recursion that finds the levels
// goes deeper (it would overflow the stack). Listed from the bottom, the
// first switch above level 6 is refused by its level.
TEST(SiteTree, DeepChainIsRefusedWithoutRecursingDown) {
  SiteTree top_down;
  top_down.source = "chain";
  const int n = 100'000;
  for (int i = 0; i < n; ++i)
    top_down.switches.push_back(
        {"s" + std::to_string(i), {}, {"s" + std::to_string(i + 1)}, 1, 0, static_cast<std::size_t>(i + 1)});
  top_down.switches.push_back({"s" + std::to_string(n), {"n0"}, {}, 1, 0, static_cast<std::size_t>(n + 1)});
  test::expect_error([&] { build_site_tree(top_down, {}); }, 7, "more than 6 levels of switches");
  SiteTree bottom_up = top_down;
  std::reverse(bottom_up.switches.begin(), bottom_up.switches.end());
  for (std::size_t i = 0; i < bottom_up.switches.size(); ++i) bottom_up.switches[i].line = i + 1;
  test::expect_error([&] { build_site_tree(bottom_up, {}); }, 7, "is on level 7");
}

TEST(SiteTree, MalformedDescriptionsNameTheirLine) {
  auto load = [](const std::string& switches, const std::string& hosts = "n[0-3]") {
    return [=] { site("", switches, hosts); };
  };
  // Lines: kHead is 6, kind 7; each sw() entry 3 lines from line 8.
  test::expect_error(load(sw("a", "nodes", "n[0-1]") + sw("a", "nodes", "n[2-3]")), 11, "described twice");
  test::expect_error(load(sw("a", "nodes", "n[0-2]") + sw("b", "nodes", "n[2-3]")), 11, "under two switches");
  test::expect_error(load(sw("a", "nodes", "n[0-1]") + sw("b", "nodes", "n[2-3]") + sw("t", "switches", "a,b,c")), 14,
                     "names switch 'c'");
  test::expect_error(load(sw("a", "nodes", "n[0-1]") + sw("b", "switches", "a,c") + sw("c", "switches", "b")), 11,
                     "loop: b -> c -> b");
  test::expect_error(load(sw("a", "nodes", "n[0-1]") + sw("b", "nodes", "n[2-3]")), 11, "share no switch");
  test::expect_error(load(sw("a", "nodes", "n[0-1]") + sw("b", "nodes", "n[2-3]") + sw("c", "switches", "a") +
                          sw("t", "switches", "c,b")),
                     17, "one level below");
  test::expect_error(load(sw("a", "nodes", "n[0-1]") + sw("b", "nodes", "n[2-3]") + sw("c", "nodes", "n[4-5]") +
                              sw("x", "switches", "a,b") + sw("y", "switches", "b,c") + sw("t", "switches", "x,y"),
                          "n[0-5]"),
                     20, "share part");
  test::expect_error(load(sw("a", "nodes", "n[0-1]") + sw("t", "switches", "a")), 15, "'n2' is under no switch");
  test::expect_error(load(sw("a", "nodes", "n[0-4]"), "n[0-3]"), 8, "'n4' is in no [[nodes]] group");
}
