#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "helpers.hpp"
#include "machine/node_geometry.hpp"
#include "map/engine.hpp"
#include "rankmap/baseline.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/generate.hpp"
#include "rankmap/map.hpp"
#include "rankmap/metrics.hpp"
#include "rankmap/profile.hpp"
#include "rankmap/random.hpp"

using namespace rankmap;

namespace {

// A profile's point-to-point traffic alone, p_mpi unknown.
TrafficKinds p2p_only(const Graph& g) {
  TrafficKinds kinds;
  kinds.p2p = &g;
  return kinds;
}

Metrics map_and_score(const Graph& g, const Machine& m, const Allocation& a, const Context& c) {
  const Mapping mapping = map(g, m, a, c);
  verify_mapping(mapping, a, g.ranks, "map()");
  return evaluate(g, m, a, mapping);
}

}  // namespace

// 16x8x8 7-point stencil, 64 nodes of 2 x 8 cores on a 4x4x4 torus.
// A 16-cell region has at least the 40 faces of a 4x2x2 box, so 64 parts cut
// at least (64*40 - 640 outer faces) / 2 = 960 edges; 4x2x2 blocks reach it
// with every neighbouring block one hop away: hop-bytes = inter-node bytes
// = 2 * 960 * B. Each node's best 8+8 socket split cuts 4 edges: 64*4*2*B.
TEST(MapKnownOptimum, StencilOnFourCubedTorus) {
  const std::uint64_t B = 1000;
  const Graph g = make_stencil({{16, 8, 8}, false, false, B});
  const Machine m = test::make_machine("[4, 4, 4]", "", "n[00-63]", "package:2 core:8 pu:1");
  const Allocation a = make_allocation(m, {});
  const Metrics s = map_and_score(g, m, a, create_context("default"));
  EXPECT_EQ(s.inter_node_bytes, 2 * 960 * B);
  EXPECT_EQ(s.hop_bytes, 2 * 960 * B);
  EXPECT_EQ(s.max_dilation, 1);
  EXPECT_EQ(s.cross_socket_bytes, 64 * 4 * 2 * B);
}

// The same stencil with its ranks renumbered at random: the same graph, so
// the same optimum (the grid is found in the edges, not the numbering).
TEST(MapKnownOptimum, RenumberedStencilOnFourCubedTorus) {
  const std::uint64_t B = 1000;
  const Machine m = test::make_machine("[4, 4, 4]", "", "n[00-63]", "package:2 core:8 pu:1");
  const Allocation a = make_allocation(m, {});
  for (std::uint64_t seed : {1, 2, 3}) {
    const Graph g = renumber_ranks(make_stencil({{16, 8, 8}, false, false, B}), seed);
    const Metrics s = map_and_score(g, m, a, create_context("default"));
    EXPECT_EQ(s.hop_bytes, 2 * 960 * B) << seed;
    EXPECT_EQ(s.max_dilation, 1) << seed;
    EXPECT_EQ(s.cross_socket_bytes, 64 * 4 * 2 * B) << seed;
  }
}

// 8x4x6 stencil on Desmos (32 nodes x 6 cores, 4x2x2x2). A 6-cell region has
// at least the 22 faces of a 1x2x3 box: the cut is at least
// (32*22 - 208 outer faces) / 2 = 248 edges. 2x1x3 blocks form a 4x4x2 block
// grid that embeds with dilation 1 (the 4-long axis goes round the Z-W square).
TEST(MapKnownOptimum, StencilOnDesmos) {
  const std::uint64_t B = 1000;
  const Graph g = make_stencil({{8, 4, 6}, false, false, B});
  const Machine m = load_machine(test::source_dir() / "data/machines/desmos.toml");
  const Allocation a = make_allocation(m, {});
  const Metrics s = map_and_score(g, m, a, create_context("default"));
  EXPECT_EQ(s.inter_node_bytes, 2 * 248 * B);
  EXPECT_EQ(s.hop_bytes, 2 * 248 * B);
  EXPECT_EQ(s.max_dilation, 1);
}

// Fewer ranks than slots: a 4x2x2 stencil at one rank a node on Desmos
// (32 nodes, 4x2x2x2). The 4x2x2x1 half of the torus holds it with every
// neighbour pair one hop apart (X a ring of 4, Y and Z single cables), so
// max dilation 1 and hop-bytes = the 28 edges x 2 directions x B, in rank
// order and renumbered.
TEST(MapKnownOptimum, SmallStencilOnPartOfDesmos) {
  const std::uint64_t B = 1000;
  const Machine m = load_machine(test::source_dir() / "data/machines/desmos.toml");
  const Allocation a = make_allocation(m, {{}, 1, false});
  const Graph natural = make_stencil({{4, 2, 2}, false, false, B});
  for (const Graph& g : {natural, renumber_ranks(natural, 4)})
    for (const auto& preset : preset_names()) {
      const Metrics s = map_and_score(g, m, a, create_context(preset));
      EXPECT_EQ(s.max_dilation, 1) << preset;
      EXPECT_EQ(s.hop_bytes, 28 * 2 * B) << preset;
    }
}

TEST(Map, SameSeedSameMapping) {
  const Graph g = make_stencil({{5, 4, 4}, true, true, 7});  // 80 ranks
  const Machine m = load_machine(test::source_dir() / "data/machines/angara-k1.toml");
  const Allocation alloc = make_allocation(m, {{"a01", "a02", "a03", "b01", "b02", "b03", "a10", "b12"}, 0, false});
  for (const char* preset : {"fast", "default", "quality"}) {
    Context c = create_context(preset);
    c.seed = 5;
    const Mapping first = map(g, m, alloc, c);
    EXPECT_EQ(first, map(g, m, alloc, c)) << preset;
    verify_mapping(first, alloc, g.ranks, preset);
  }
}

TEST(Map, NeverWorseThanBlockOnTheseCases) {
  const Machine m = load_machine(test::source_dir() / "data/machines/angara-k1.toml");
  const Allocation a = make_allocation(m, {});
  for (const auto& spec : {StencilSpec{{12, 8, 4}, false, false, 100}, StencilSpec{{24, 16}, true, true, 100},
                           StencilSpec{{384}, false, true, 100}}) {
    const Graph g = make_stencil(spec);
    const Metrics ours = map_and_score(g, m, a, create_context("default"));
    const Metrics block = evaluate(g, m, a, baseline_mapping(Baseline::block, a, g.ranks));
    EXPECT_LE(ours.hop_bytes, block.hop_bytes) << g.ranks;
  }
}

// Fewer ranks than slots: the used nodes are the ones nearest the centre of
// the allocation, and no node is used that a tighter set could avoid.
TEST(Map, FewerRanksFillTheNearestNodes) {
  const Machine m = test::make_machine("[8]", "[false]", "n[0-7]", "core:4");
  const Allocation a = make_allocation(m, {});
  const Graph g = make_stencil({{12}, false, false, 10});  // 12 ranks: three full nodes
  const Mapping mapping = map(g, m, a, create_context("default"));
  std::set<int> nodes;
  for (const Placement& p : mapping.ranks) nodes.insert(p.node);
  EXPECT_EQ(nodes.size(), 3u);
  EXPECT_EQ(*nodes.rbegin() - *nodes.begin(), 2);                // three neighbouring nodes of the line
  EXPECT_EQ(evaluate(g, m, a, mapping).hop_bytes, 2u * 2 * 10);  // two node boundaries, one hop each
}

// Fewer ranks than slots: the shares are the graph's. 64 ranks in 4 groups
// of 16 (every pair inside a group 100 bytes each way), group leaders in a
// ring (1 byte each way), ranks renumbered, on 4 VMs of 20 cores, two VMs
// to a host. Block's 20/20/20/4 must split groups; a group a VM keeps them
// whole. A ring of 4 groups on 2 hosts has at best 2 edges inside a host
// (2 hops) and 2 across (4 hops): 2*2*2 + 2*2*4 = 24 hop-bytes.
TEST(Map, FewerRanksThanSlotsTakeTheGraphsShares) {
  const Machine m = parse_machine(
      "name = \"kvm\"\n[network]\nkind = \"switch\"\nt_hop_ns = 100\nt_inj_ns = 400\nt_ej_ns = 400\n"
      "[hosts]\nvms_per_host = 2\n[[nodes]]\nhosts = \"vm[1-4]\"\nhwloc = \"package:1 core:20\"\n",
      "kvm.toml");
  const Allocation a = make_allocation(m, {});
  auto rank = [](std::uint32_t group, std::uint32_t member) { return (37 * (16 * group + member) + 5) % 64; };
  GraphBuilder b(64);
  for (std::uint32_t grp = 0; grp < 4; ++grp) {
    for (std::uint32_t i = 0; i < 16; ++i)
      for (std::uint32_t j = 0; j < 16; ++j)
        if (i != j) b.add(rank(grp, i), rank(grp, j), 100, 1);
    b.add(rank(grp, 0), rank((grp + 1) % 4, 0), 1, 1);
    b.add(rank((grp + 1) % 4, 0), rank(grp, 0), 1, 1);
  }
  const Graph g = b.build();
  for (const char* preset : {"default", "quality"}) {
    const Mapping mapping = map(g, m, a, create_context(preset));
    std::map<int, int> per_node;
    for (const Placement& p : mapping.ranks) ++per_node[p.node];
    EXPECT_EQ(per_node, (std::map<int, int>{{0, 16}, {1, 16}, {2, 16}, {3, 16}})) << preset;
    EXPECT_EQ(evaluate(g, m, a, mapping).hop_bytes, 24u) << preset;
  }
}

TEST(Map, OversubscribeOnlyWhenAsked) {
  const Machine m = test::make_machine("[2]", "", "n[0-1]", "core:2");
  const Allocation a = make_allocation(m, {});
  const Graph g = make_stencil({{6}, false, false, 1});
  test::expect_error([&] { map(g, m, a, create_context("default")); }, 0, "6 ranks do not fit the 4 slots");
  Context c = create_context("default");
  c.oversubscribe = true;
  const Mapping mapping = map(g, m, a, c);
  EXPECT_NO_THROW(verify_mapping(mapping, a, 6, "oversubscribed"));
}

TEST(Context, PresetsDumpAndReadBack) {
  test::TempDir dir;
  for (const auto& name : preset_names()) {
    Context c = create_context(name);
    c.seed = 99;
    const auto path = dir.write(name + ".toml", dump_context(c));
    const Context back = load_context(path);
    EXPECT_EQ(dump_context(back), dump_context(c));
  }
  EXPECT_NE(dump_context(create_context("fast")), dump_context(create_context("quality")));
  test::expect_error([] { create_context("turbo"); }, 0, "unknown preset 'turbo'");
  test::expect_error([&] { load_context(dir.write("bad.toml", "seed = 1\n[placement]\nswap_passes = -2\n")); }, 3,
                     "'swap_passes' must be a whole number");
  test::expect_error([&] { load_context(dir.write("bad2.toml", "[partition]\nmetis = true\n")); }, 2,
                     "unknown key 'metis' in [partition]");
}

// Never more hop-bytes than block, whatever the graph, allocation and
// preset, and `quality` never more than `default` with the same seed:
// random sparse graphs of random weights on random allocations (some
// nodes, some ppn, sometimes fewer ranks than slots) of small tori and
// meshes. Hop-bytes are scored here by evaluate(), not by the engine.
TEST(Map, NeverMoreHopBytesThanBlockOnRandomCases) {
  Rng rng(2026);
  int cases = 0;
  while (cases < 240) {
    const int x = 2 + static_cast<int>(rng.below(3)), y = 1 + static_cast<int>(rng.below(3)),
              z = 1 + static_cast<int>(rng.below(2));
    const bool wrap = rng.below(2) == 0;
    const int nodes = x * y * z;
    const std::string w = wrap ? "true" : "false";
    const Machine m =
        test::make_machine("[" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + "]",
                           "[" + w + ", " + w + ", " + w + "]",
                           "n[00-" + (nodes <= 10 ? "0" : std::string()) + std::to_string(nodes - 1) + "]",
                           rng.below(2) ? "package:2 core:2 pu:1" : "package:1 core:3 pu:2");
    AllocationOptions options;
    for (int k = 0; k < nodes; ++k)
      if (rng.below(4) != 0) options.hosts.push_back(m.nodes[k].host);
    if (options.hosts.empty()) options.hosts.push_back(m.nodes[0].host);
    options.ppn = static_cast<int>(rng.below(3));  // 0: every core
    const Allocation a = make_allocation(m, options);
    const std::size_t slots = a.total_slots();
    if (slots < 2) continue;
    const std::uint32_t ranks = 2 + static_cast<std::uint32_t>(rng.below(slots - 1));
    GraphBuilder b(ranks);
    const std::uint32_t edges = ranks * (1 + static_cast<std::uint32_t>(rng.below(4)));
    for (std::uint32_t e = 0; e < edges; ++e)
      b.add(static_cast<std::uint32_t>(rng.below(ranks)), static_cast<std::uint32_t>(rng.below(ranks)),
            1 + rng.below(1000), 1);
    const Graph g = b.build();
    const std::uint64_t block = evaluate(g, m, a, baseline_mapping(Baseline::block, a, ranks)).hop_bytes;
    const std::uint64_t seed = rng.next();
    std::map<std::string, std::uint64_t> hop_bytes;
    for (const auto& preset : preset_names()) {
      Context c = create_context(preset);
      c.seed = seed;
      const Mapping mapping = map(g, m, a, c);
      verify_mapping(mapping, a, ranks, preset);
      hop_bytes[preset] = evaluate(g, m, a, mapping).hop_bytes;
      EXPECT_LE(hop_bytes[preset], block) << preset << " case " << cases;
    }
    EXPECT_LE(hop_bytes["quality"], hop_bytes["default"]) << "case " << cases;
    ++cases;
  }
}

// The choice: the least hop-bytes of every candidate the engine reports
// (its "candidate NAME: hop-bytes H" stages) and block's, scored here by
// evaluate(); a less loaded link only breaks ties. (A 1 % window that let
// the least loaded link win kept a candidate 0.1-0.7 % above the least.)
TEST(Map, TheLeastHopBytesOfTheCandidatesWin) {
  const Machine torus = test::make_machine("[4, 4]", "", "n[00-15]", "core:8");
  const Machine tree = test::fat_tree(4, 4, 2, 8);
  int differ = 0;
  for (const Machine* m : {&torus, &tree}) {
    const Allocation a = make_allocation(*m, {});
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      const Graph g = seed % 2 ? make_irregular({128, 16, 100, seed}) : make_geometric({128, 8, 1 << 20, seed});
      std::uint64_t least = evaluate(g, *m, a, baseline_mapping(Baseline::block, a, g.ranks)).hop_bytes;
      std::set<std::uint64_t> seen;
      const StageCallback collect = [&](std::string_view stage) {
        if (!stage.starts_with("candidate ")) return;
        const std::uint64_t h = std::stoull(std::string(stage.substr(stage.rfind(' ') + 1)));
        least = std::min(least, h);
        seen.insert(h);
      };
      const Mapping mapping = map(g, *m, a, create_context("default"), collect);
      EXPECT_EQ(evaluate(g, *m, a, mapping).hop_bytes, least) << m->network.kind_name() << " seed " << seed;
      differ += seen.size() > 1;
    }
  }
  EXPECT_GT(differ, 6);  // the candidates differ: there is a choice to make
}

namespace {

// A dragonfly wired as SimGrid's: 3 groups (4 global links each) of 2
// chassis of 3 routers, 2 nodes of 4 cores a router: 48 slots a group.
Machine three_group_dragonfly() {
  return parse_machine(
      "name = \"d\"\n[network]\nkind = \"dragonfly\"\ngroups = 3\nglobal_links = 4\nchassis = 2\n"
      "routers = 3\nnodes_per_router = 2\nwiring = \"simgrid\"\nt_hop_ns = 129\nt_inj_ns = 425\nt_ej_ns = 425\n"
      "[[nodes]]\nhosts = \"d[00-35]\"\nhwloc = \"package:1 core:4 pu:1\"\n",
      "d.toml");
}

}  // namespace

// On a dragonfly the candidates within 1 % of the least hop-bytes tie
// (their "scored NAME: hop-bytes H, max link L" stages), and the least
// loaded link among them wins: the kept mapping's scores, from evaluate(),
// are the tied candidates' least max link and at most 1.01x the least
// hop-bytes. Of these geometric graphs' seeds, 57 and 61 keep a candidate
// above the least hop-bytes; at 0.1 % none did. At the least link, the
// fewest bytes between groups win (their "between groups B"): without
// that rule the kept mapping has more on some of the seeds.
TEST(Map, OnADragonflyTheLeastLoadedLinkWithinOnePercent) {
  const Machine m = three_group_dragonfly();
  const Allocation a = make_allocation(m, {});
  int not_least = 0, between_decided = 0;
  for (std::uint64_t seed = 41; seed <= 61; seed += 2) {
    const Graph g = make_geometric({144, 8, 1 << 20, seed});
    std::uint64_t least = UINT64_MAX;
    std::vector<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>> scored;  // hop-bytes, max link, between
    const StageCallback collect = [&](std::string_view stage) {
      if (stage.starts_with("candidate "))
        least = std::min<std::uint64_t>(least, std::stoull(std::string(stage.substr(stage.rfind(' ') + 1))));
      if (!stage.starts_with("scored ")) return;
      const std::size_t h = stage.find("hop-bytes ") + 10, l = stage.find("max link ") + 9,
                        b = stage.find("between groups ") + 15;
      scored.emplace_back(std::stoull(std::string(stage.substr(h))), std::stoull(std::string(stage.substr(l))),
                          std::stoull(std::string(stage.substr(b))));
    };
    const Mapping mapping = map(g, m, a, create_context("default"), collect);
    const Metrics kept = evaluate(g, m, a, mapping);
    const std::string where = "seed " + std::to_string(seed);
    EXPECT_GE(kept.hop_bytes, least) << where;
    EXPECT_LE(kept.hop_bytes, least + least / 100) << where;
    if (scored.empty()) continue;  // one candidate within 1 %: nothing to break
    std::uint64_t least_link = UINT64_MAX, least_between = UINT64_MAX;
    for (const auto& [h, l, between] : scored) {
      EXPECT_LE(h, least + least / 100) << where;  // only the tied are scored
      least_link = std::min(least_link, l);
    }
    std::set<std::uint64_t> betweens;  // of the candidates at the least link
    for (const auto& [h, l, between] : scored)
      if (l == least_link) least_between = std::min(least_between, between), betweens.insert(between);
    EXPECT_EQ(kept.max_link_bytes, least_link) << where;
    EXPECT_EQ(kept.inter_group_bytes, least_between) << where;
    not_least += kept.hop_bytes > least;
    between_decided += betweens.size() > 1;
  }
  EXPECT_GT(not_least, 0);        // the window decided somewhere
  EXPECT_GT(between_decided, 0);  // and bytes between groups at the same link
}

// On a dragonfly of 3 groups of 48 slots: three clusters of 48 ranks (a
// 6x8 grid of 1,000-byte edges each), joined in a ring by 4 edges of 10
// bytes a cluster pair, ranks renumbered (r -> 37 r + 11 mod 144). The
// least traffic between groups puts each cluster in a group of its own:
// the ring's 12 edges, 10 bytes each way, 240 bytes; every preset finds it.
TEST(Map, OnADragonflyEachClusterInAGroup) {
  const Machine m = three_group_dragonfly();
  const Allocation a = make_allocation(m, {});
  GraphBuilder b(144);
  auto both = [&](std::uint32_t x, std::uint32_t y, std::uint64_t bytes) {
    x = (37 * x + 11) % 144, y = (37 * y + 11) % 144;
    b.add(x, y, bytes, 1);
    b.add(y, x, bytes, 1);
  };
  for (std::uint32_t c = 0; c < 3; ++c)
    for (std::uint32_t i = 0; i < 6; ++i)
      for (std::uint32_t j = 0; j < 8; ++j) {
        const std::uint32_t v = 48 * c + 8 * i + j;
        if (j + 1 < 8) both(v, v + 1, 1000);
        if (i + 1 < 6) both(v, v + 8, 1000);
      }
  for (std::uint32_t c = 0; c < 3; ++c)
    for (std::uint32_t t = 0; t < 4; ++t) both(48 * c + 5 * t, 48 * ((c + 1) % 3) + 7 * t + 3, 10);
  const Graph g = b.build();
  for (const char* preset : {"default", "quality"}) {
    const Metrics kept = evaluate(g, m, a, map(g, m, a, create_context(preset)));
    EXPECT_EQ(kept.inter_group_bytes, 240u) << preset;
    EXPECT_EQ(kept.groups, 3u) << preset;
  }
}

// When block is kept, the result says so and why.
TEST(Map, BlockKeptIsExplained) {
  // Two ranks that talk, on a line of two one-core nodes: block puts them on
  // the two nodes (one hop), and so must every mapping: a tie, kept by an
  // engine candidate; the explanation is empty unless block is kept.
  const Machine m = test::make_machine("[2]", "[false]", "n[0-1]", "core:1");
  const Allocation a = make_allocation(m, {});
  GraphBuilder b(2);
  b.add(0, 1, 10, 1);
  const MapResult r = map_explained(b.build(), m, a, create_context("fast"));
  EXPECT_FALSE(r.kept.empty());
  EXPECT_EQ(r.why.empty(), r.kept != "block");
}

// The blind spot of hop-bytes (issue 13): 8 ranks in an all-to-all of
// 1 MiB messages on a ring of 4 nodes of 4 cores, 1 byte/ns links. Packed
// on 2 adjacent nodes (block, and the least hop-bytes), each node's NIC
// carries 16 of the messages: every one ends at T(1) + 16 MiB / (1 B/ns) =
// 900 + 16 * 2^20 ns. Spread 2 a node, each NIC carries 12 (and the busiest
// ring link 12: to k+1, to k+2, and k-1's to k+1), so the phase ends near
// T(2) + 12 * 2^20 = 1000 + 12 * 2^20 ns (the 1-hop messages start 100 ns
// earlier, at 1/8 of a link each). With the profile's traffic the engine
// spreads; without, it packs.
TEST(MapWeighsPredictedTime, SpreadsABandwidthBoundAllToAll) {
  Machine m = test::make_machine("[4]", "", "n[0-3]", "core:4");
  m.network.link_gbps = 8;
  const Allocation a = make_allocation(m, {});
  const std::uint64_t B = std::uint64_t{1} << 20;
  GraphBuilder b(8);
  for (std::uint32_t i = 0; i < 8; ++i)
    for (std::uint32_t j = 0; j < 8; ++j)
      if (i != j) b.add(i, j, B, 1);
  const Graph g = b.build();
  const Graph none;
  auto nodes_used = [](const Mapping& mapping) {
    std::map<int, int> per_node;
    for (const auto& r : mapping.ranks) ++per_node[r.node];
    return per_node;
  };

  const FlowTimes block = flow_times(g, none, m, a, baseline_mapping(Baseline::block, a, 8));
  ASSERT_TRUE(block.computed);
  EXPECT_DOUBLE_EQ(block.slowest_ns, 900.0 + 16.0 * B);

  const MapResult timed = map_explained(g, m, a, create_context("fast"), {}, p2p_only(g));
  verify_mapping(timed.mapping, a, 8, "timed");
  EXPECT_EQ(nodes_used(timed.mapping), (std::map<int, int>{{0, 2}, {1, 2}, {2, 2}, {3, 2}}));
  const FlowTimes spread = flow_times(g, none, m, a, timed.mapping);
  EXPECT_NEAR(spread.slowest_ns, 1000.0 + 12.0 * B, 200.0);

  const Mapping packed = map(g, m, a, create_context("fast"));
  EXPECT_EQ(nodes_used(packed).size(), 2u);
}

// A 2D FFT's transposes (apps/fft2d.c): 128 ranks in 16 rows of 8, each
// exchanging with every rank of its row and of its column, on an 8x8x2
// torus of 4 slots a node (an 8x8x2 slab of the 8x8x8 below holds the same
// 128 nodes). Spread one rank a node, the ranks in their own order
// (round-robin's layout) put each row on a line of nodes. The rank-order
// start gives the placement that layout, so the spread candidate has at
// most round-robin's hop-bytes; without it the cut's placements have more
// (on the app's profile on the 8x8x8, 3.6 % more, and 1.07x round-robin's
// time in SMPI: bench/RESULTS.md, issue 55, sixth session).
TEST(MapPlacementStarts, SpreadOneANodeNeverBehindRoundRobin) {
  const Machine m = test::make_machine("[8, 8, 2]", "", "n[000-127]", "core:4");
  const Allocation a = make_allocation(m, {});
  const std::uint32_t rows = 16, cols = 8;
  GraphBuilder b(rows * cols);
  for (std::uint32_t r = 0; r < rows * cols; ++r)
    for (std::uint32_t s = 0; s < rows * cols; ++s)
      if (r != s && (r / cols == s / cols || r % cols == s % cols)) b.add(r, s, 1000, 1);
  const Graph g = b.build();
  const std::uint64_t rr = evaluate(g, m, a, baseline_mapping(Baseline::rr, a, g.ranks)).hop_bytes;
  for (bool rank_order : {true, false}) {
    Context c = create_context("default");
    c.placement.rank_order = rank_order;
    c.partition.trials = 1;  // the spread set runs one trial anyway
    c.partition.metis_kway = false;
    std::optional<std::uint64_t> spread;
    const StageCallback collect = [&](std::string_view stage) {
      const std::string_view key = "candidate recursive bisection spread over every node: hop-bytes ";
      if (stage.starts_with(key)) spread = std::stoull(std::string(stage.substr(key.size())));
    };
    (void)map_explained(g, m, a, c, collect);
    ASSERT_TRUE(spread) << "no spread candidate";
    if (rank_order)
      EXPECT_LE(*spread, rr);
    else
      EXPECT_GT(*spread, rr);  // the case is one where the start matters
  }
}

// Block stays unless a candidate is predicted faster: ranks 0-1 and 2-3
// exchange 1 MiB each way, 1 and 2 eight bytes, on two nodes of two cores.
// Block already keeps both heavy pairs inside a node, so no mapping can be
// faster (a tie is not faster), and block is kept with the model's reason.
TEST(MapWeighsPredictedTime, BlockStaysUnlessACandidateIsFaster) {
  Machine m = test::make_machine("[2]", "[false]", "n[0-1]", "core:2");
  m.network.link_gbps = 8;
  const Allocation a = make_allocation(m, {});
  GraphBuilder b(4);
  for (const auto& [x, y, bytes] :
       {std::tuple{0u, 1u, 1u << 20}, std::tuple{2u, 3u, 1u << 20}, std::tuple{1u, 2u, 8u}}) {
    b.add(x, y, bytes, 1);
    b.add(y, x, bytes, 1);
  }
  const Graph g = b.build();
  const MapResult r = map_explained(g, m, a, create_context("default"), {}, p2p_only(g));
  EXPECT_EQ(r.kept, "block");
  EXPECT_EQ(r.why, "the flow model predicts no other candidate faster than block");
}

// With the flow model on, the mapping written is one it predicts fastest
// of every candidate it timed (its "timed NAME: T ns predicted" stages):
// its time, computed here again by flow_times, is the least of them. On
// these graphs the least hop-bytes are not always the fastest, and a
// window of 1 % in which hop-bytes decided kept a slower candidate.
TEST(MapWeighsPredictedTime, NeverASlowerCandidateThanOneItTimed) {
  Machine torus = test::make_machine("[4, 4]", "", "n[00-15]", "core:4");
  Machine tree = test::fat_tree(4, 4, 2, 4);
  int overruled = 0;  // the candidate of least hop-bytes was not the fastest
  for (Machine* m : {&torus, &tree}) {
    m->network.link_gbps = 8;
    const Allocation a = make_allocation(*m, {});
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      const Graph g = seed % 2 ? make_irregular({64, 8, 1 << 16, seed}) : make_geometric({64, 6, 1 << 20, seed});
      for (const char* preset : {"fast", "default"}) {
        std::map<std::string, double> timed;
        std::set<std::string> stopped;  // timed until slower than one timed before
        std::map<std::string, std::uint64_t> hop_bytes;
        const StageCallback collect = [&](std::string_view stage) {
          auto number_after = [&](std::string_view key) {
            const std::size_t at = stage.find(key);
            return std::stod(std::string(stage.substr(at + key.size())));
          };
          if (stage.starts_with("timed "))
            timed[std::string(stage.substr(6, stage.find(": ") - 6))] = number_after(": ");
          else if (stage.starts_with("stopped timing "))
            stopped.insert(std::string(stage.substr(15, stage.find(": ") - 15)));
          else if (stage.starts_with("candidate "))
            hop_bytes[std::string(stage.substr(10, stage.rfind(": hop-bytes") - 10))] =
                static_cast<std::uint64_t>(number_after(": hop-bytes "));
        };
        const MapResult r = map_explained(g, *m, a, create_context(preset), collect, p2p_only(g));
        const std::string where = std::string(m->network.kind_name()) + " seed " + std::to_string(seed) + " " + preset;
        ASSERT_GE(timed.size() + stopped.size(), 2u) << where;  // the model timed a choice
        double fastest = timed.begin()->second;
        for (const auto& [name, ns] : timed) fastest = std::min(fastest, ns);
        const FlowTimes kept = flow_times(g, Graph{}, *m, a, r.mapping);
        ASSERT_TRUE(kept.computed) << where;
        EXPECT_LE(kept.slowest_ns, fastest + 1) << where << ": kept " << r.kept;  // the stages round to 1 ns
        const auto least = std::min_element(hop_bytes.begin(), hop_bytes.end(),
                                            [](const auto& x, const auto& y) { return x.second < y.second; });
        overruled += least != hop_bytes.end() &&
                     (stopped.count(least->first) || (timed.count(least->first) && timed[least->first] > fastest + 1));
      }
    }
  }
  EXPECT_GT(overruled, 0);  // the rule is tested where it matters
}

// The engine hands back the flow model's times of the mapping it kept and
// of block, for the report not to run the model again: the very times
// flow_times() gives them (the limit a candidate was timed under only
// stops it). A 24-rank irregular profile on 16 nodes of 2 cores, where a
// candidate on other nodes than block's is kept; a graph without a profile
// is not timed, and hands back nothing.
TEST(MapWeighsPredictedTime, HandsBackTheTimesItComputed) {
  Machine m = test::make_machine("[4, 4]", "", "n[00-15]", "core:2");
  m.network.link_gbps = 8;
  const Allocation a = make_allocation(m, {});
  const Graph g = make_irregular({24, 16, 1 << 16, 3});
  const MapResult r = map_explained(g, m, a, create_context("default"), {}, p2p_only(g));
  ASSERT_NE(r.kept, "block");
  const Mapping block = baseline_mapping(Baseline::block, a, g.ranks);
  ASSERT_FALSE(same_nodes(r.mapping, block));
  for (const auto& [given, mapping] : {std::pair{r.mapping_flow, r.mapping}, std::pair{r.block_flow, block}}) {
    const FlowTimes again = flow_times(g, Graph{}, m, a, mapping);
    ASSERT_TRUE(given.computed);
    ASSERT_TRUE(again.computed);
    EXPECT_EQ(given.slowest_ns, again.slowest_ns);
    EXPECT_EQ(given.p2p_ns, again.p2p_ns);
    EXPECT_EQ(given.chain_ns, again.chain_ns);
    EXPECT_EQ(given.phases, again.phases);
    EXPECT_EQ(given.collective_floor_ns, again.collective_floor_ns);
  }
  EXPECT_LT(r.mapping_flow.slowest_ns, r.block_flow.slowest_ns);
  const MapResult plain = map_explained(g, m, a, create_context("default"));
  EXPECT_FALSE(plain.mapping_flow.computed);
  EXPECT_FALSE(plain.block_flow.computed);
}

// With fewer ranks than slots the launcher's round-robin by node spreads
// them over every node, and can be faster than every candidate the
// engine's pipelines find (the model put a 128-rank halo on the bench's
// dragonfly 1 % faster that way). With the flow model on, the mapping
// written is never predicted slower than round-robin's: both timed here
// by flow_times, round-robin as baseline_mapping lays it out.
TEST(MapWeighsPredictedTime, NeverSlowerThanRoundRobinWithSlotsToSpare) {
  Machine torus = test::make_machine("[4, 4]", "", "n[00-15]", "core:4");
  Machine tree = test::fat_tree(4, 4, 2, 4);
  int behind_without = 0;  // the engine's own candidates were all slower than round-robin
  for (Machine* m : {&torus, &tree}) {
    m->network.link_gbps = 8;
    const Allocation a = make_allocation(*m, {});
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      const Graph g = seed % 2 ? make_irregular({32, 16, 1 << 16, seed}) : make_geometric({32, 5, 1 << 20, seed});
      const FlowTimes rr = flow_times(g, Graph{}, *m, a, baseline_mapping(Baseline::rr, a, g.ranks));
      ASSERT_TRUE(rr.computed);
      double engine_fastest = -1;  // of the candidates but round-robin
      const StageCallback collect = [&](std::string_view stage) {
        if (!stage.starts_with("timed ") || stage.starts_with("timed round-robin:")) return;
        const double ns = std::stod(std::string(stage.substr(stage.find(": ") + 2)));
        engine_fastest = engine_fastest < 0 ? ns : std::min(engine_fastest, ns);
      };
      const MapResult r = map_explained(g, *m, a, create_context("default"), collect, p2p_only(g));
      const std::string where = std::string(m->network.kind_name()) + " seed " + std::to_string(seed);
      const FlowTimes kept = flow_times(g, Graph{}, *m, a, r.mapping);
      ASSERT_TRUE(kept.computed) << where;
      EXPECT_LE(kept.slowest_ns, rr.slowest_ns * (1 + 1e-9)) << where << ": kept " << r.kept;
      behind_without += engine_fastest > rr.slowest_ns + 1;
    }
  }
  EXPECT_GT(behind_without, 0);  // the case is one where round-robin's candidate matters
}

namespace {

// A context whose only candidate of its own is block's (the engine adds
// the ones it times: round-robin, the ranks dealt over routers).
Context only_block() {
  Context c = create_context("default");
  c.partition.metis_kway = c.partition.recursive_bisection = false;
  c.partition.scotch = c.partition.cartesian = false;
  return c;
}

}  // namespace

// Dealing by hand, on nodes 0-7 (group 0: routers of nodes 0-1, 2-3, 4-5,
// 6-7) and 8-15: group 0's used nodes 0, 1, 2 in dealing order are 0 and 2
// (the first of routers 0 and 1), then 1; its ranks in the base's order
// (node, then rank) 0, 1 | 2, 3 | 4, 6 go round them twice; rank 5 keeps
// node 9, alone in group 1. Each node keeps its count.
TEST(DealtOverRouters, EachGroupsRanksInTurnByHand) {
  const Machine m = test::two_group_dragonfly();
  const Allocation a = make_allocation(m, {});
  const detail::NodeGeometry geometry(m, a);
  EXPECT_EQ(detail::dealt_over_routers({0, 0, 1, 1, 2, 9, 2}, geometry), (std::vector<int>{0, 2, 1, 0, 2, 9, 1}));
  // Block's 32 ranks: group 0's 16 in rank order over nodes 0, 2, 4, 6,
  // 1, 3, 5, 7, twice; group 1's over 8, 10, ..., 15.
  std::vector<int> block(32), expected(32);
  const int order[8] = {0, 2, 4, 6, 1, 3, 5, 7};
  for (int r = 0; r < 32; ++r) block[r] = r / 2, expected[r] = r / 16 * 8 + order[r % 8];
  EXPECT_EQ(detail::dealt_over_routers(block, geometry), expected);
}

// Rows of 16 ranks, each an all-to-all of 64 MiB a pair, on
// two_group_dragonfly(4) at 4 a node. Block packs a row on 4 nodes of 2
// routers: the cable between them carries 8 x 8 flows, so each gets 1/64
// of it, and a pair's bytes take 64 B ns (a node's cable carries 4 x 12).
// Dealt over routers (a group's 32 ranks in turn over the first node of
// each router, then the second), a row has 2 ranks on every node of its
// group: a node's cable carries its 4 ranks' 14 partners' flows, 56, and
// a router cable 2 rows x 4 x 4 = 32: 56 B ns. Round-robin puts each row
// on all 16 nodes, every row's bytes between the groups. The engine, with
// only block to deal from, keeps the dealt ranks, 56/64 of block's time
// (the latencies aside: 0.2 % here).
TEST(MapWeighsPredictedTime, RowAllToAllsDealtOverRouters) {
  const Machine m = test::two_group_dragonfly(4);
  const Allocation a = make_allocation(m, {});
  const std::uint64_t bytes = std::uint64_t{64} << 20;
  const Graph g = make_row_alltoall({4, 16, bytes});  // rows of consecutive ranks, an FFT's row transposes
  std::vector<std::string> stages;
  const StageCallback collect = [&](std::string_view stage) { stages.emplace_back(stage); };
  const MapResult r = map_explained(g, m, a, only_block(), collect, p2p_only(g));
  EXPECT_EQ(r.kept, "dealt over routers");
  EXPECT_NE(std::find_if(stages.begin(), stages.end(),
                         [](const std::string& s) {
                           return s.starts_with("candidate dealt over routers: hop-bytes ") &&
                                  s.ends_with(", from block");
                         }),
            stages.end());
  const int order[8] = {0, 2, 4, 6, 1, 3, 5, 7};
  for (std::uint32_t k = 0; k < 64; ++k)
    EXPECT_EQ(r.mapping.ranks[k].node, static_cast<int>(k / 32 * 8 + order[k % 8])) << k;
  const FlowTimes kept = flow_times(g, Graph{}, m, a, r.mapping);
  const FlowTimes block = flow_times(g, Graph{}, m, a, baseline_mapping(Baseline::block, a, 64));
  ASSERT_TRUE(kept.computed && block.computed);
  EXPECT_NEAR(block.slowest_ns, 64.0 * static_cast<double>(bytes), 0.005 * 64 * static_cast<double>(bytes));
  EXPECT_NEAR(kept.slowest_ns / block.slowest_ns, 56.0 / 64, 0.005);
  // Without the model (no profile) hop-bytes decide, and block, with
  // fewer, stays: the dealt ranks are not a candidate then.
  const MapResult plain = map_explained(g, m, a, only_block());
  EXPECT_EQ(plain.kept, "block");
}

// Without a profile, row all-to-alls on a dragonfly tie with block because
// block's packing is the hop-bytes optimum (bench/RESULTS.md, issue 54,
// twenty-fourth session); renumbered, the engine must still find it. Rows
// of 16 at 4 a node on two_group_dragonfly(4) (2 nodes a router): of a
// rank's 15 partners at most 3 share its node (0 hops) and at most 4 more
// its router (its other node, 2 hops: up, down); the other 8 or more are
// at least 3 hops away: 4 x 2 + 8 x 3 = 32 hops of B bytes for each of the
// 64 ranks, whatever the mapping. Meeting it puts each row on 2 whole
// routers of one group, so the cable between them carries 8 x 8 pairs' B
// and no byte leaves a group.
TEST(MapKnownOptimum, RenumberedRowAllToAllsOnADragonfly) {
  const Machine m = test::two_group_dragonfly(4);
  const Allocation a = make_allocation(m, {});
  const std::uint64_t B = 1000;
  for (std::uint64_t seed : {1, 2}) {
    const Graph g = renumber_ranks(make_row_alltoall({4, 16, B}), seed);
    const Metrics s = map_and_score(g, m, a, create_context("default"));
    EXPECT_EQ(s.hop_bytes, 64 * 32 * B) << seed;
    EXPECT_EQ(s.max_link_bytes, 8 * 8 * B) << seed;
    EXPECT_EQ(s.inter_group_bytes, 0u) << seed;
  }
}

// Round-robin is timed at full allocation on a dragonfly. Rows of 8 at 2
// a node on two_group_dragonfly(): block packs a row on 4 nodes of 2
// routers, 4 x 4 flows on the cable between them, 16 B ns a pair.
// Round-robin (rank k on node k mod 16) puts each row on the 8 nodes of
// one group, one rank a node: a node's cable carries its 2 ranks' 7
// partners' flows, 14, a router cable 2 rows x 2 x 2 = 8: 14 B ns. The
// ranks dealt over routers come to the same, so the engine keeps one of
// the two, at 14/16 of block's time.
TEST(MapWeighsPredictedTime, RoundRobinTimedAtFullAllocationOnADragonfly) {
  const Machine m = test::two_group_dragonfly();
  const Allocation a = make_allocation(m, {});
  const std::uint64_t bytes = std::uint64_t{64} << 20;
  const Graph g = make_row_alltoall({4, 8, bytes});
  std::map<std::string, double> timed;
  const StageCallback collect = [&](std::string_view stage) {
    if (stage.starts_with("timed "))
      timed[std::string(stage.substr(6, stage.find(": ") - 6))] =
          std::stod(std::string(stage.substr(stage.find(": ") + 2)));
  };
  const MapResult r = map_explained(g, m, a, only_block(), collect, p2p_only(g));
  ASSERT_TRUE(timed.contains("round-robin") && timed.contains("block"));
  EXPECT_NEAR(timed["block"], 16.0 * static_cast<double>(bytes), 0.005 * 16 * static_cast<double>(bytes));
  EXPECT_NEAR(timed["round-robin"] / timed["block"], 14.0 / 16, 0.005);
  EXPECT_TRUE(r.kept == "round-robin" || r.kept == "dealt over routers") << r.kept;
  const FlowTimes kept = flow_times(g, Graph{}, m, a, r.mapping);
  ASSERT_TRUE(kept.computed);
  EXPECT_NEAR(kept.slowest_ns / timed["block"], 14.0 / 16, 0.005);
}

// One-way traffic is timed as a pipeline (gain.hpp's pipeline term, with
// the compute time p_mpi gives, else none): the mapping written is one the
// pipeline model predicts fastest of every candidate timed, computed here
// again by pipeline_times. An 8x8 wavefront of 20 sweeps (16 KiB to the
// south and east neighbours, row-major) on a Desmos-like 4x2x2x2 torus,
// two ranks a node: pairing each rank with its south neighbour gives the fewest
// hop-bytes, yet the two then pass on at once through one NIC, and a
// pairing of east neighbours is faster (SMPI agrees: bench/RESULTS.md,
// issue 55, fifth session).
TEST(MapWeighsPredictedTime, APipelineByItsStages) {
  Machine m = test::make_machine("[4, 2, 2, 2]", "", "n[00-31]", "core:2", "+X+Y+Z+W-X-Y-Z-W");
  m.network.t_hop_ns = 129, m.network.t_inj_ns = m.network.t_ej_ns = 425, m.network.link_gbps = 75;  // Desmos's
  const Allocation a = make_allocation(m, {});
  const Graph g = test::wavefront(8, 8, 20, 16384);
  ASSERT_TRUE(is_pipeline(g));
  const Mapping block = baseline_mapping(Baseline::block, a, 64);
  for (const std::optional<double> p_mpi : {std::optional<double>{}, std::optional<double>{0.7}}) {
    std::map<std::string, double> timed;
    std::map<std::string, std::uint64_t> hop_bytes;
    const StageCallback collect = [&](std::string_view stage) {
      if (stage.starts_with("timed "))
        timed[std::string(stage.substr(6, stage.find(": ") - 6))] =
            std::stod(std::string(stage.substr(stage.find(": ") + 2)));
      else if (stage.starts_with("candidate "))
        hop_bytes[std::string(stage.substr(10, stage.rfind(": hop-bytes") - 10))] =
            std::stoull(std::string(stage.substr(stage.rfind(": hop-bytes") + 12)));
    };
    TrafficKinds kinds = p2p_only(g);
    kinds.p_mpi = p_mpi;
    const MapResult r = map_explained(g, m, a, create_context("default"), collect, kinds);
    const std::string where = p_mpi ? "p_mpi 0.7" : "no p_mpi";
    ASSERT_GE(timed.size(), 2u) << where;
    double fastest = timed.begin()->second;
    for (const auto& [name, ns] : timed) fastest = std::min(fastest, ns);
    // Without p_mpi no compute; with it, the c that gives block that share.
    const PipelineTimes kept = pipeline_times(g, m, a, r.mapping, block, p_mpi.value_or(1.0));
    ASSERT_TRUE(kept.computed) << where;
    EXPECT_EQ(kept.compute_ns > 0, p_mpi.has_value()) << where;
    EXPECT_LE(kept.mapping_ns, fastest + 1) << where << ": kept " << r.kept;  // the stages round to 1 ns
    EXPECT_LT(kept.mapping_ns, kept.baseline_ns) << where;
    EXPECT_NEAR(kept.baseline_ns, timed.at("block"), 1) << where;
    // The candidate of least hop-bytes was not the fastest: time chose.
    const auto least = std::min_element(hop_bytes.begin(), hop_bytes.end(),
                                        [](const auto& x, const auto& y) { return x.second < y.second; });
    ASSERT_NE(least, hop_bytes.end());
    EXPECT_GT(timed.at(least->first), fastest + 1) << where << ": " << least->first;
  }
}

namespace {

// `default` at seed 1 on a profile bench/smpi/peers_time.py kept, `ppn` a
// node, at the run's p_mpi, with the stages' times: each "timed the calls
// of NAME: N ns" in `calls_ns`, each "timed NAME: N ns predicted" in
// `timed_ns`, and each "scored NAME: ..." line in `scored`.
struct KeptProfileRun {
  Machine machine;
  Allocation allocation;
  Profile profile;
  Graph total, p2p;
  MapResult result;
  std::map<std::string, double> calls_ns, timed_ns;
  std::vector<std::string> scored;
};

KeptProfileRun map_kept_profile(const std::string& machine, std::uint32_t ppn, const std::string& profile,
                                double p_mpi) {
  KeptProfileRun run;
  run.machine = load_machine(test::source_dir() / machine);
  AllocationOptions options;
  options.ppn = ppn;
  run.allocation = make_allocation(run.machine, options);
  run.profile = read_profile(test::source_dir() / profile);
  run.total = run.profile.total();
  run.p2p = run.profile.exchanges();
  const StageCallback collect = [&](std::string_view stage) {
    const std::size_t colon = stage.find(": ");
    const auto ns = [&] { return std::stod(std::string(stage.substr(colon + 2))); };
    if (stage.starts_with("timed the calls of "))
      run.calls_ns[std::string(stage.substr(19, colon - 19))] = ns();
    else if (stage.starts_with("timed ") && stage.find(" ns predicted") != std::string_view::npos)
      run.timed_ns[std::string(stage.substr(6, colon - 6))] = ns();
    else if (stage.starts_with("scored ") && colon != std::string_view::npos)
      run.scored.emplace_back(stage);
  };
  Context c = create_context("default");
  c.seed = 1;
  run.result = map_explained(run.total, run.machine, run.allocation, c, collect,
                             TrafficKinds{&run.p2p, &run.profile.collective, &run.profile.calls, p_mpi});
  return run;
}

// The calls told the candidates apart, and the kept mapping's calls,
// computed again here by flow_times on the collectives alone, are the
// least of those timed.
void expect_the_least_calls_kept(const KeptProfileRun& run) {
  ASSERT_GE(run.calls_ns.size(), 2u);
  double least = run.calls_ns.begin()->second, most = least;
  for (const auto& [name, ns] : run.calls_ns) least = std::min(least, ns), most = std::max(most, ns);
  EXPECT_GT(most, least + 1);
  const FlowTimes kept = flow_times(GraphBuilder(run.total.ranks).build(), run.profile.collective, run.machine,
                                    run.allocation, run.result.mapping, &run.profile.calls);
  ASSERT_TRUE(kept.computed);
  EXPECT_NEAR(kept.slowest_ns, least, 1) << "kept " << run.result.kept;  // the stages round to 1 ns
  EXPECT_GT(run.calls_ns.at(run.result.kept), 0);
}

}  // namespace

// Among pipeline embeddings the model ties, the collective calls around
// the pipeline decide. SMPI's 8x8 wavefront on Desmos at two a node, its
// profile with the barrier's and reduction's rounds
// (tests/data/wavefront-desmos-64.rmp, as bench/smpi/peers_time.py took
// it): with seed 1 several embeddings tie on the pipeline and their calls
// differ, and the least are kept. (In SMPI the two kinds of embedding
// were 1.029 us apart, all of it in the calls: bench/RESULTS.md, issue
// 55, twenty-fifth session.)
TEST(MapWeighsPredictedTime, TiedPipelinesByTheirCalls) {
  const KeptProfileRun run =
      map_kept_profile("data/machines/desmos.toml", 2, "tests/data/wavefront-desmos-64.rmp", 0.560047);
  ASSERT_TRUE(run.profile.calls_complete);
  ASSERT_TRUE(is_pipeline(run.p2p));
  expect_the_least_calls_kept(run);
}

// The same among exchange programs: SMPI's irregular app, 24 ranks at one a
// node on Angara-K1 (tests/data/irregular-angara-24.rmp, the scenario's
// profile). Each node's NIC carries its one rank's bytes whatever the
// mapping, so as programs most candidates tie to the nanosecond, and their
// calls differ: the least are kept, and as a program the kept mapping is
// as fast as any candidate timed. (In SMPI the tied candidates span
// 474.6-476.1 us, and the calls rank them with it: bench/RESULTS.md,
// issue 55, twenty-sixth session.)
TEST(MapWeighsPredictedTime, TiedProgramsByTheirCalls) {
  const double p_mpi = 0.164082;
  const KeptProfileRun run =
      map_kept_profile("data/machines/angara-k1.toml", 1, "tests/data/irregular-angara-24.rmp", p_mpi);
  ASSERT_TRUE(run.profile.calls_complete);
  ASSERT_TRUE(exchanges_as_programs(run.p2p, run.profile.collective, &run.profile.calls));
  expect_the_least_calls_kept(run);
  ASSERT_FALSE(run.timed_ns.empty());
  double fastest = run.timed_ns.begin()->second;
  for (const auto& [name, ns] : run.timed_ns) fastest = std::min(fastest, ns);
  const Mapping block = baseline_mapping(Baseline::block, run.allocation, run.total.ranks);
  const ExchangeProgramTimes t =
      exchange_program_times(run.p2p, run.machine, run.allocation, run.result.mapping, block, p_mpi);
  ASSERT_TRUE(t.computed);
  EXPECT_NEAR(t.mapping_ns, fastest, 1) << "kept " << run.result.kept;
}

// Among candidates tied on every score before it (the flow model's time,
// hop-bytes, the busiest link, cross-socket bytes), the shortest longest
// route wins. SMPI's halo3d on Desmos at two a node
// (tests/data/halo3d-desmos-64.rmp, the scenario's profile): a Cartesian
// layout and a bisection tie on all of those, and the Cartesian one puts
// 4 of the barrier's empty messages 4 hops apart. The kept mapping's
// longest route, from evaluate(), is the least in the "scored" stages of
// the candidates tied on the others, and those differed. (In SMPI the
// Cartesian layout ran 318 ns longer: bench/RESULTS.md, issue 55,
// twenty-sixth session.)
TEST(MapWeighsPredictedTime, FullTiesByTheShortestLongestRoute) {
  const KeptProfileRun run =
      map_kept_profile("data/machines/desmos.toml", 2, "tests/data/halo3d-desmos-64.rmp", 0.886338);
  ASSERT_GE(run.scored.size(), 2u);
  const auto number_after = [](const std::string& line, const std::string& word) {
    return std::stoull(line.substr(line.find(word) + word.size()));
  };
  std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>, std::set<std::uint64_t>> routes;
  for (const std::string& line : run.scored)
    routes[{number_after(line, "max link "), number_after(line, "hop-bytes "), number_after(line, "cross-socket ")}]
        .insert(number_after(line, "longest route "));
  const auto& [least_scores, longest] = *routes.begin();  // the least link, then hop-bytes, then cross-socket
  ASSERT_GE(longest.size(), 2u) << "the tied candidates' longest routes differed";
  const Metrics kept = evaluate(run.total, run.machine, run.allocation, run.result.mapping);
  EXPECT_EQ(kept.max_link_bytes, std::get<0>(least_scores));
  EXPECT_EQ(kept.hop_bytes, std::get<1>(least_scores));
  EXPECT_EQ(static_cast<std::uint64_t>(kept.max_dilation), *longest.begin()) << "kept " << run.result.kept;
}

// Scotch's torus targets take at most 5 dimensions, and SCOTCH_archLoad
// crashed on a sixth: on a 6D torus (as Fugaku's) Scotch is skipped, the
// other cutters still run, and a Scotch-only context says why it kept block.
TEST(Map, ScotchIsSkippedOnSixDimensions) {
  const Machine m = test::make_machine("[3, 2, 2, 2, 3, 2]", "", "n[000-143]", "package:1 core:2 pu:1");
  const Allocation a = make_allocation(m, {});
  const Graph g = make_irregular({288, 16, 1024, 3});
  if (!test::kSanitized) {  // the quality preset's candidates: 100 s under ASan
    const MapResult quality = map_explained(g, m, a, create_context("quality"));
    verify_mapping(quality.mapping, a, g.ranks, "quality");
    EXPECT_NE(quality.kept, "block");
  }
  Context scotch_only = create_context("default");
  scotch_only.partition.metis_kway = scotch_only.partition.recursive_bisection = false;
  scotch_only.partition.cartesian = false;
  scotch_only.partition.scotch = true;
  const MapResult r = map_explained(g, m, a, scotch_only);
  EXPECT_EQ(r.kept, "block");
  EXPECT_EQ(r.why,
            "no other candidate (Scotch skipped: its torus targets take at most 5 dimensions, this machine has 6)");
}

// Exchanges with no collectives and a known p_mpi are timed as each
// rank's program (gain.hpp, exchange_program_times), and the program
// search adds a candidate from the fastest. The mapping written is the
// fastest by that reading of every candidate timed (the stages), with the
// compute that gives block p_mpi, or block when none is 0.5 % faster;
// never slower than block; its times handed back (MapResult::program) as
// exchange_program_times() gives them; and the same on 1 and 2 threads. A
// 64-rank irregular exchange of 10 iterations on a 4x4 torus of 4-core
// nodes.
TEST(MapWeighsPredictedTime, ExchangesAsProgramsAndTheProgramSearch) {
  Machine m = test::make_machine("[4, 4]", "", "n[00-15]", "core:4");
  m.network.link_gbps = 8;
  const Allocation a = make_allocation(m, {});
  Graph g = make_irregular({64, 8, 1 << 16, 5});
  for (std::uint64_t& msgs : g.msgs) msgs = 10;
  ASSERT_TRUE(exchanges_as_programs(g, Graph{}, nullptr));
  const Mapping block = baseline_mapping(Baseline::block, a, 64);
  TrafficKinds kinds = p2p_only(g);
  kinds.p_mpi = 0.5;
  std::map<std::string, double> timed;
  bool searched = false;
  const StageCallback collect = [&](std::string_view stage) {
    if (stage.starts_with("timed "))
      timed[std::string(stage.substr(6, stage.find(": ") - 6))] =
          std::stod(std::string(stage.substr(stage.find(": ") + 2)));
    searched = searched || stage.starts_with("program search from ");
  };
  Context context = create_context("default");
  context.threads = 2;
  context.refinement.program_swaps = 16;  // the mechanism, not its reach (bench/smpi: peers_time.py)
  const MapResult r = map_explained(g, m, a, context, collect, kinds);
  ASSERT_TRUE(searched);
  ASSERT_GE(timed.size(), 2u);
  double fastest = timed.begin()->second;
  for (const auto& [name, ns] : timed) fastest = std::min(fastest, ns);
  const ExchangeProgramTimes kept = exchange_program_times(g, m, a, r.mapping, block, 0.5);
  ASSERT_TRUE(kept.computed);
  EXPECT_GT(kept.compute_ns, 0);
  EXPECT_NEAR(kept.baseline_ns, timed.at("block"), 1);
  // Block stays unless a candidate is 0.5 % faster (the program model's margin).
  if (r.kept == "block")
    EXPECT_GT(fastest, 0.995 * kept.baseline_ns - 1);
  else
    EXPECT_LE(kept.mapping_ns, fastest + 1) << "kept " << r.kept;  // the stages round to 1 ns
  EXPECT_LE(kept.mapping_ns, kept.baseline_ns);
  // The times handed back are exchange_program_times()'s, field for field.
  ASSERT_TRUE(r.program.computed);
  EXPECT_EQ(r.program.iterations, kept.iterations);
  EXPECT_EQ(r.program.compute_ns, kept.compute_ns);
  EXPECT_EQ(r.program.baseline_ns, kept.baseline_ns);
  EXPECT_EQ(r.program.mapping_ns, kept.mapping_ns);
  context.threads = 1;
  EXPECT_EQ(map_explained(g, m, a, context, {}, kinds).mapping, r.mapping);
}
