// Dragonflies and Dragonfly+: link ids and routes of chosen pairs worked
// out by hand from the layout in detail/dragonfly_route.hpp, every route
// checked to be a path by the links' names, the mean distance against the
// mean over every pair, and the machine file's errors.
#include <gtest/gtest.h>

#include <regex>

#include "helpers.hpp"
#include "rankmap/error.hpp"
#include "rankmap/metrics.hpp"

using namespace rankmap;

namespace {

Machine dragonfly(const std::string& network, const std::string& hosts) {
  return parse_machine("name = \"d\"\n[network]\n" + network +
                           "\nt_hop_ns = 100\nt_inj_ns = 500\nt_ej_ns = 500\nlink_gbps = 100\n[[nodes]]\nhosts = \"" +
                           hosts + "\"\nhwloc = \"package:1 core:2 pu:1\"\n",
                       "d.toml");
}

// 3 groups of 2 chassis of 3 routers, 2 nodes a router, 2 cables a group pair.
const char* kSmall =
    "kind = \"dragonfly\"\ngroups = 3\nchassis = 2\nrouters = 3\nnodes_per_router = 2\nglobal_links = 2\n";

std::vector<std::size_t> route(const Network& net, std::size_t a, std::size_t b) {
  std::vector<std::size_t> links;
  for_each_link(net, a, b, [&](std::size_t l) { links.push_back(l); });
  return links;
}

// A route is a path: each link's far end, as its name says, is the next
// link's near end; it leaves a's router and reaches b's.
void expect_path(const Machine& m, std::size_t a, std::size_t b) {
  static const std::regex ends(
      R"(^(?:global g\d+ to g\d+(?: \(cable \d+\))?: )?(\S+(?: \d+)?) (?:up to|down from|down to|to) (\S+(?: \d+)?)(?: \(\w+\))?$)");
  std::string at = "node " + std::to_string(a);
  const auto links = route(m.network, a, b);
  for (std::size_t i = 0; i < links.size(); ++i) {
    const std::string name = m.network.link_name(links[i]);
    std::smatch match;
    ASSERT_TRUE(std::regex_match(name, match, ends)) << name;
    std::string from = match[1], to = match[2];
    if (name.find(" down from ") != std::string::npos) std::swap(from, to);
    ASSERT_EQ(from, at) << "link " << i << " of " << a << " -> " << b << ": " << name;
    ASSERT_TRUE(m.network.has_link(links[i])) << name;
    at = to;
  }
  EXPECT_EQ(at, "node " + std::to_string(b));
}

}  // namespace

TEST(Dragonfly, LinksAndRoutesByHand) {
  const Machine m = dragonfly(kSmall, "n[00-35]");
  const Network& net = m.network;
  EXPECT_EQ(net.kind_name(), "dragonfly");
  // 72 node cables, 18 routers x 3 green ids, 3 groups x 3 blades x 2 x 2
  // black ids, 3 x 3 group pairs x 2 cables.
  ASSERT_EQ(net.num_links(), 72u + 54 + 36 + 18);
  std::size_t existing = 0;
  for (std::size_t l = 0; l < net.num_links(); ++l) existing += net.has_link(l);
  // Less the green ids of a router to itself (18 x 1... 18 routers x 3 ids, 1 each self: 18), the black
  // ids of a chassis to itself (18) and a group's to itself (3 x 2).
  EXPECT_EQ(existing, 180u - 18 - 18 - 6);
  // Node 0 (g0c0r0) to node 35 (g2c1r2): cable 35 mod 2 = 1; g0's
  // port for it is 1 x 2 + (2 - 0 - 1) = 3, router 3 = c1r0; g2's is
  // 2 + 0, router 2 = c0r2. Black g0 blade 0 c0->c1, global, black g2
  // blade 2 c0->c1.
  EXPECT_EQ(route(net, 0, 35), (std::vector<std::size_t>{0, 127, 167, 159, 71}));
  EXPECT_EQ(net.link_name(167), "global g0 to g2 (cable 1): g0c1r0 to g2c0r2");
  EXPECT_EQ(net.hops(m.nodes[0].coord, m.nodes[35].coord), 5);
  // Node 2 (g0c0r1) to node 10 (g0c1r2): green c0 1->2, black blade 2 c0->c1.
  EXPECT_EQ(route(net, 2, 10), (std::vector<std::size_t>{4, 77, 135, 21}));
  // Same router: the two nodes' cables.
  EXPECT_EQ(route(net, 0, 1), (std::vector<std::size_t>{0, 3}));
  EXPECT_EQ(net.diameter(), 7);
  for (std::size_t a = 0; a < 36; ++a)
    for (std::size_t b = 0; b < 36; ++b)
      if (a != b) expect_path(m, a, b);
}

// A face whose partners are a constant even offset apart: node a of g0 to
// node a + 12 of g1. Its 12 pairs split 6 and 6 over the pair's two cables
// (global ids 162 + (0 x 3 + 1) x 2 + j); a hash of both ends, (a + b) mod
// 2, put all 12 on cable 0.
TEST(Dragonfly, FaceSplitsOverCables) {
  const Machine m = dragonfly(kSmall, "n[00-35]");
  std::size_t on[2] = {0, 0};
  for (std::size_t a = 0; a < 12; ++a)
    for (std::size_t l : route(m.network, a, a + 12))
      if (l == 164 || l == 165) ++on[l - 164];
  EXPECT_EQ(on[0], 6u);
  EXPECT_EQ(on[1], 6u);
}

TEST(Dragonfly, SimGridWiringAndItsRoute) {
  const Machine m = dragonfly(std::string(kSmall) + "wiring = \"simgrid\"\n", "n[00-35]");
  const Network& net = m.network;
  EXPECT_EQ(net.num_links(), 72u + 54 + 36 + 9);  // one link of two cables' rate a group pair
  EXPECT_EQ(net.link_gbps_of(162 + 2), 200);
  // g1 to g2 leaves router 2 of chassis 0 (g1c0r2) and lands on g2c0r1.
  EXPECT_EQ(net.link_name(162 + 1 * 3 + 2), "global g1 to g2: g1c0r2 to g2c0r1");
  // Node 10 (g0c1r2) to node 2 (g0c0r1): green in chassis 1, then SimGrid
  // goes on from chassis 0, which is node 2's: no black link.
  EXPECT_EQ(route(net, 10, 2), (std::vector<std::size_t>{20, 72 + (1 * 3 + 2) * 3 + 1, 5}));
  const Machine ours = dragonfly(kSmall, "n[00-35]");
  EXPECT_EQ(route(ours.network, 10, 2), (std::vector<std::size_t>{20, 88, 132, 5}));
}

TEST(Dragonfly, DragonflyPlusByHand) {
  const Machine m = dragonfly(
      "kind = \"dragonfly+\"\ngroups = 2\nleaves = 2\nspines = 2\nnodes_per_leaf = 2\nglobal_links = 2\n", "n[0-7]");
  const Network& net = m.network;
  EXPECT_EQ(net.kind_name(), "dragonfly+");
  ASSERT_EQ(net.num_links(), 16u + 16 + 8);
  // Node 0 (g0l0) to node 7 (g1l1): cable 1, on spine 1 of each group.
  EXPECT_EQ(route(net, 0, 7), (std::vector<std::size_t>{0, 18, 35, 31, 15}));
  EXPECT_EQ(net.link_name(31), "g1s1 down to g1l1");
  // Within a group: up to spine 3 mod 2 = 1 and down.
  EXPECT_EQ(route(net, 0, 3), (std::vector<std::size_t>{0, 18, 16 + (1 * 2 + 1) * 2 + 1, 7}));
  EXPECT_EQ(net.diameter(), 5);
  for (std::size_t a = 0; a < 8; ++a)
    for (std::size_t b = 0; b < 8; ++b)
      if (a != b) expect_path(m, a, b);
}

// The closed form of dragonfly_mean_distance against the mean of every
// ordered pair's route.
TEST(Dragonfly, MeanDistanceIsTheMeanOfEveryRoute) {
  for (const std::string& shape :
       {std::string(kSmall), std::string(kSmall) + "wiring = \"simgrid\"\n",
        std::string("kind = \"dragonfly+\"\ngroups = 3\nleaves = 2\nspines = 3\nnodes_per_leaf = 6\n")}) {
    const Machine m = dragonfly(shape, "n[00-35]");
    double sum = 0;
    for (std::size_t a = 0; a < 36; ++a)
      for (std::size_t b = 0; b < 36; ++b)
        if (a != b) sum += m.network.dragonfly_hops(a, b);
    EXPECT_NEAR(m.network.mean_distance(), sum / (36.0 * 35), 1e-9) << shape;
  }
}

TEST(Dragonfly, MachineFileErrors) {
  auto error_of = [](const std::string& network) {
    try {
      dragonfly(network, "n[00-35]");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("kind = \"dragonfly\"\ngroups = 3\nrouters = 3\n"),
            "d.toml:2: a dragonfly needs 'nodes_per_router'");
  EXPECT_EQ(error_of(std::string(kSmall) + "spines = 2\n"),
            "d.toml:9: unknown key 'spines' in [network] of a dragonfly");
  EXPECT_EQ(
      error_of(
          "kind = \"dragonfly\"\ngroups = 4\nchassis = 3\nrouters = 3\nnodes_per_router = 1\nwiring = \"simgrid\"\n"),
      "d.toml:8: wiring = \"simgrid\" puts the link to group h on router h of chassis 0: 4 groups need at least as "
      "many routers a chassis, not 3");
  EXPECT_EQ(error_of("kind = \"dragonfly\"\ngroups = 2\nrouters = 3\nnodes_per_router = 2\n"),
            "d.toml:13: bad hostlist 'n[00-35]': range '00-35' is too large (more than 12 hosts)");
}

// The adaptive reading by hand: 3 groups of 2 routers (one node each), one
// cable a group pair. Group g's cable to h is on router (h - g - 1) mod 3
// of g. Minimal bytes: g0 to g1 1000, g2 to g1 600. Half stays: 500 on
// 0->1 and 300 on 2->1; the other halves go through the third group:
// 0->2 and 2->1 take 500 more (2->1: 800), 2->0 and 0->1 300 more (0->1:
// 800). Across g2 from its cable from g0 (router (0 - 2 - 1) mod 3 = 0)
// to its cable to g1 (router 1): the row link r0 -> r1, 500; across g0
// from g2's cable (router 1) to g1's (router 0): r1 -> r0, 300.
TEST(Dragonfly, AdaptiveReadingByHand) {
  const Machine m = dragonfly("kind = \"dragonfly\"\ngroups = 3\nrouters = 2\nnodes_per_router = 1\n", "n[0-5]");
  const Network& net = m.network;
  const detail::DragonflyLinks l(net);
  std::vector<std::uint64_t> minimal(net.num_links(), 0);
  minimal[l.global_link(0, 1, 0)] = 1000;
  minimal[l.global_link(2, 1, 0)] = 600;
  minimal[l.green_link(0, 0, 1)] = 77;  // a local link keeps its bytes
  const std::vector<double> a = adaptive_link_bytes(net, minimal);
  EXPECT_DOUBLE_EQ(a[l.global_link(0, 1, 0)], 800);
  EXPECT_DOUBLE_EQ(a[l.global_link(2, 1, 0)], 800);
  EXPECT_DOUBLE_EQ(a[l.global_link(0, 2, 0)], 500);
  EXPECT_DOUBLE_EQ(a[l.global_link(2, 0, 0)], 300);
  EXPECT_DOUBLE_EQ(a[l.global_link(1, 0, 0)], 0);
  EXPECT_DOUBLE_EQ(a[l.green_link(2, 0, 1)], 500);
  EXPECT_DOUBLE_EQ(a[l.green_link(0, 1, 0)], 300);
  EXPECT_DOUBLE_EQ(a[l.green_link(0, 0, 1)], 77);
  double total = 0, before = 0;
  for (std::size_t i = 0; i < a.size(); ++i) total += a[i], before += static_cast<double>(minimal[i]);
  EXPECT_DOUBLE_EQ(total, before + 500 + 300 + 500 + 300);  // each detour: one more global link and one local
}
