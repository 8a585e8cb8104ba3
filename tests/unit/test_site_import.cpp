// Slurm's descriptions of a tree read into a SiteTree: topology.conf(5)'s
// own example, `scontrol show topology` as Slurm 22.05 prints it (its
// format string, slurm_print_topo_record), SLURM_TOPOLOGY_ADDR lines as
// `srun -l` writes them; each worked by hand; and bad lines refused with
// their line.
#include <gtest/gtest.h>

#include <array>

#include "helpers.hpp"
#include "rankmap/hostlist.hpp"
#include "rankmap/io.hpp"
#include "rankmap/site_import.hpp"

using namespace rankmap;

namespace {

// The bundled examples (data/site/README.md): Slurm's man pages' and a
// hand-written ibnetdiscover dump.
std::string site_file(const std::string& name) { return read_text_file(test::source_dir() / "data" / "site" / name); }

std::vector<std::string> hosts(const std::string& list) { return expand_hostlist(list); }

}  // namespace

// Three leaves of six nodes under s3: 18 nodes, 2 levels, dev5 and dev6
// 4 hops apart, dev0 and dev5 2.
TEST(SiteImport, SlurmManPageExample) {
  const SiteTree t = read_slurm_topology_conf(site_file("topology.conf"), "topology.conf");
  ASSERT_EQ(t.switches.size(), 4u);
  EXPECT_EQ(t.switches[0].name, "s0");
  EXPECT_EQ(t.switches[0].nodes, hosts("dev[0-5]"));
  EXPECT_EQ(t.switches[0].line, 5u);
  EXPECT_EQ(t.switches[3].switches, hosts("s[0-2]"));
  EXPECT_TRUE(t.switches[3].nodes.empty());
  const SiteNetwork n = build_site_tree(t, {});
  EXPECT_EQ(n.network.dims, (std::vector<int>{6, 3}));
  EXPECT_EQ(n.hosts, hosts("dev[0-17]"));
  EXPECT_EQ(n.network.hops(std::array<int, 2>{5, 0}, std::array<int, 2>{0, 1}), 4);
  EXPECT_EQ(n.network.hops(std::array<int, 2>{0, 0}, std::array<int, 2>{5, 0}), 2);
}

// The man page's hostlist example, keys in any case, a continued line and
// LinkSpeed as Gbit/s at 25 a unit.
TEST(SiteImport, SlurmHostlistsCaseAndLinkSpeed) {
  const SiteTree t = read_slurm_topology_conf(
      "switchname=leaf1 NODES=tux[0-3,12,18-20] linkspeed=4\nSwitchName=top \\\n  Switches=leaf1\n", "t.conf", 25);
  ASSERT_EQ(t.switches.size(), 2u);
  EXPECT_EQ(t.switches[0].nodes, hosts("tux[0-3,12,18-20]"));
  EXPECT_EQ(t.switches[0].gbps, 100);
  EXPECT_EQ(t.switches[1].line, 2u);
  EXPECT_EQ(t.switches[1].switches, (std::vector<std::string>{"leaf1"}));
  EXPECT_EQ(read_slurm_topology_conf("SwitchName=a Nodes=n1 LinkSpeed=4\n", "t.conf").switches[0].gbps, 0);
}

// What scontrol printed for this test's cluster (tests/launch/run_slurm_test.sh):
// a switch of switches lists every node below it, which says nothing new.
TEST(SiteImport, ScontrolShowTopology) {
  const SiteTree t = read_scontrol_topology(
      "SwitchName=leaf0 Level=0 LinkSpeed=1 Nodes=fake0 \n"
      "SwitchName=leaf1 Level=0 LinkSpeed=4 Nodes=fake1 \n"
      "SwitchName=top Level=1 LinkSpeed=1 Nodes=fake[0-1] Switches=leaf[0-1] \n",
      "topo.txt");
  ASSERT_EQ(t.switches.size(), 3u);
  EXPECT_TRUE(t.switches[2].nodes.empty());
  EXPECT_EQ(t.switches[2].switches, hosts("leaf[0-1]"));
  const SiteNetwork n = build_site_tree(t, {});
  EXPECT_EQ(n.network.dims, (std::vector<int>{1, 2}));
  EXPECT_EQ(n.hosts, hosts("fake[0-1]"));
}

// srun -l's lines, a node twice (two tasks), in any order: the switches in
// order of first mention, each child once.
TEST(SiteImport, SlurmTopologyAddr) {
  const SiteTree t = read_slurm_topology_addr("0: top.leaf1.n3\n1: top.leaf0.n0\n2: top.leaf1.n3\n3: top.leaf0.n1\n",
                                              "addrs.txt", "switch.switch.node");
  ASSERT_EQ(t.switches.size(), 3u);
  EXPECT_EQ(t.switches[0].name, "top");
  EXPECT_EQ(t.switches[0].switches, (std::vector<std::string>{"leaf1", "leaf0"}));
  EXPECT_EQ(t.switches[1].nodes, (std::vector<std::string>{"n3"}));
  EXPECT_EQ(t.switches[2].nodes, (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(build_site_tree(t, {}).hosts, (std::vector<std::string>{"n3", "n0", "n1"}));
}

TEST(SiteImport, BadLinesNameTheirLine) {
  auto conf = [](const std::string& text) { return [=] { read_slurm_topology_conf(text, "t.conf"); }; };
  test::expect_error(conf("SwitchName=a Nodes=n1\nSwitchName=b Nodes=n[2-\n"), 2, "n[2-");
  test::expect_error(conf("# c\nSwitchName=a Wires=n1\n"), 2, "unknown key 'wires'");
  test::expect_error(conf("SwitchName=a\n"), 1, "neither Switches= nor Nodes=");
  test::expect_error(conf("Nodes=n1 SwitchName=a\n"), 1, "expected a line starting SwitchName=");
  test::expect_error(conf("SwitchName=a Nodes=n1\nSwitchName=b Nodes\n"), 2, "expected Key=Value");
  test::expect_error(conf("SwitchName=a Nodes=n1 \\\n"), 1, "nothing continues it");
  test::expect_error([] { read_slurm_topology_conf("SwitchName=a Nodes=n1 LinkSpeed=fast\n", "t.conf", 10); }, 1,
                     "LinkSpeed must be a positive number");
  test::expect_error([] { read_slurm_topology_conf("# nothing\n", "t.conf"); }, 0, "no SwitchName line");
  auto addr = [](const std::string& text) { return [=] { read_slurm_topology_addr(text, "a.txt", ""); }; };
  test::expect_error(addr("s0.n1\ns1.n1\n"), 2, "'n1' is under 's1' here and under 's0' on line 1");
  test::expect_error(addr("s0.n1\nn2\n"), 2, "names no switch");
  test::expect_error(addr("x: s0.n1\n"), 1, "expected 'N: ADDR'");
  test::expect_error(addr("s0..n1\n"), 1, "an empty part");
  test::expect_error([] { read_slurm_topology_addr("a.b.c\n", "a.txt", "switch.node"); }, 1, "has 3 parts");
  test::expect_error([] { read_slurm_topology_addr("a.b\n", "a.txt", "node.switch"); }, 0, "one node");
}

// topology.conf(5)'s block example: 4 blocks of 32, BlockSizes=30,120: the
// base block 30 nodes, then runs of 120 / 30 = 4 blocks, which take all:
// the blocks under one switch "block1-block4", 2 levels.
TEST(SiteImport, SlurmBlockManPageExample) {
  const SiteTree t = read_slurm_topology_conf(
      "BlockName=block1 Nodes=node[1-32]\nBlockName=block2 Nodes=node[33-64]\nBlockName=block3 Nodes=node[65-96]\n"
      "BlockName=block4 Nodes=node[97-128]\nBlockSizes=30,120\n",
      "topology.conf");
  ASSERT_EQ(t.switches.size(), 5u);
  EXPECT_EQ(t.switches[4].name, "block1-block4");
  EXPECT_EQ(t.switches[4].switches, hosts("block[1-4]"));
  EXPECT_EQ(t.switches[4].line, 5u);
  EXPECT_EQ(build_site_tree(t, {}).network.dims, (std::vector<int>{32, 4}));
  // Without BlockSizes, Slurm's default levels of 2, 4, 8 and 16 blocks:
  // 5 blocks of 2 make pairs (1-2, 3-4, 5), fours (1-4, 5), eights (all).
  const SiteTree d = read_slurm_topology_conf(
      "BlockName=b1 Nodes=n[01-02]\nBlockName=b2 Nodes=n[03-04]\nBlockName=b3 Nodes=n[05-06]\n"
      "BlockName=b4 Nodes=n[07-08]\nBlockName=b5 Nodes=n[09-10]\n",
      "topology.conf");
  std::vector<std::string> names;
  for (const SiteSwitch& s : d.switches) names.push_back(s.name);
  // A run of the last block alone is named with its level.
  EXPECT_EQ(names, (std::vector<std::string>{"b1", "b2", "b3", "b4", "b5", "b1-b2", "b3-b4", "b5/2", "b1-b4", "b5/3",
                                             "b1-b5"}));
  const SiteNetwork n = build_site_tree(d, {});
  EXPECT_EQ(n.network.dims, (std::vector<int>{2, 2, 2, 2}));
  EXPECT_TRUE(n.network.irregular());  // b5's runs hold one child of two
  EXPECT_EQ(n.network.hops(std::vector<int>{1, 1, 1, 0}, std::vector<int>{0, 0, 0, 1}), 8);  // b1 to b5
}

TEST(SiteImport, SlurmBlockErrors) {
  auto conf = [](const std::string& text) { return [=] { read_slurm_topology_conf(text, "t.conf"); }; };
  test::expect_error(conf("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-6]\nBlockSizes=4,8\n"), 2,
                     "block 'b2' has 2 nodes, fewer than the base block size 4");
  test::expect_error(conf("BlockName=b1 Nodes=n[1-4]\nBlockSizes=4,12\n"), 2, "a larger power of two");
  test::expect_error(conf("BlockName=b1 Nodes=n[1-4]\nBlockSizes=4\nBlockSizes=4\n"), 3, "BlockSizes appears twice");
  test::expect_error(conf("BlockName=b1 Nodes=n[1-4]\nSwitchName=s Nodes=n5\n"), 2, "topology/tree line among");
  test::expect_error(conf("BlockName=b1 Ports=n[1-4]\n"), 1, "unknown key 'ports'");
}

// topology.yaml(5)'s example (data/site/topology.yaml, one comment line
// first): topo1 (the cluster default) a tree of one switch; topo2 blocks
// of 4 with block_sizes 4, 16; topo3 flat.

TEST(SiteImport, SlurmTopologyYamlManPageExample) {
  const std::string yaml = site_file("topology.yaml");
  const SiteTree t1 = read_slurm_topology_yaml(yaml, "topology.yaml");
  ASSERT_EQ(t1.switches.size(), 1u);
  EXPECT_EQ(t1.switches[0].name, "sw_root");
  EXPECT_EQ(t1.switches[0].nodes, hosts("node[01-04]"));
  EXPECT_EQ(t1.switches[0].line, 6u);  // after the file's comment line
  // topo2: 16 / 4 = runs of 4 blocks, which take all four.
  const SiteTree t2 = read_slurm_topology_yaml(yaml, "topology.yaml", "topo2");
  ASSERT_EQ(t2.switches.size(), 5u);
  EXPECT_EQ(t2.switches[4].name, "b1-b4");
  EXPECT_EQ(t2.switches[0].line, 15u);
  EXPECT_EQ(build_site_tree(t2, {}).network.dims, (std::vector<int>{4, 4}));
  test::expect_error([&] { read_slurm_topology_yaml(yaml, "topology.yaml", "topo3"); }, 23, "is flat");
  test::expect_error([&] { read_slurm_topology_yaml(yaml, "topology.yaml", "topo9"); }, 0,
                     "no topology 'topo9'; name one of: topo1, topo2, topo3");
  test::expect_error([] { read_slurm_topology_yaml("- topology: a\n  tree:\n    switches:\n    - swich: s\n", "y"); },
                     4, "unknown key 'swich'");
  test::expect_error([] { read_slurm_topology_yaml("- topology: a\n  tree: [\n", "y"); }, 3, "YAML syntax");
}

// data/site/ibnetdiscover.txt, a two-level tree in ibnetdiscover's
// documented format: leaf01 with n01 and n02, leaf02 with n03 and n04
// (4xHDR: 200 Gbit/s), spine01 over both; leaf01 has two 4xEDR cables up
// (100 each), leaf02 one 4xEDR and one 2xEDR (50). Every cable is printed
// from both ends; leaf02's record starts on line 28.
TEST(SiteImport, IbnetdiscoverTwoLevelTree) {
  const SiteTree t = read_ibnetdiscover(site_file("ibnetdiscover.txt"), "fabric.txt");
  ASSERT_EQ(t.switches.size(), 3u);
  EXPECT_EQ(t.switches[0].name, "spine01");
  EXPECT_EQ(t.switches[0].switches, (std::vector<std::string>{"leaf01", "leaf02"}));
  EXPECT_EQ(t.switches[1].nodes, (std::vector<std::string>{"n01", "n02"}));
  EXPECT_EQ(t.switches[2].line, 28u);
  const SiteNetwork n = build_site_tree(t, {});
  const Network& net = n.network;
  EXPECT_EQ(n.hosts, hosts("n[01-04]"));
  EXPECT_EQ(net.dims, (std::vector<int>{2, 2}));
  ASSERT_EQ(net.levels[0].uplinks, 2);
  ASSERT_TRUE(net.irregular());  // the cables' rates differ
  EXPECT_EQ(net.link_gbps_of(net.tree_link_id(0, 0, 0, false)), 100);
  EXPECT_EQ(net.link_gbps_of(net.tree_link_id(0, 3, 0, true)), 200);  // n04, 4xHDR
  EXPECT_EQ(net.link_gbps_of(net.tree_link_id(1, 0, 1, false)), 100);
  EXPECT_EQ(net.link_gbps_of(net.tree_link_id(1, 1, 0, false)), 100);
  EXPECT_EQ(net.link_gbps_of(net.tree_link_id(1, 1, 1, false)), 50);  // 2xEDR
  EXPECT_EQ(net.link_name(net.tree_link_id(1, 1, 1, true)), "leaf02 down from spine01 (link 1)");
}

TEST(SiteImport, IbnetdiscoverErrors) {
  auto read = [](const std::string& text) { return [=] { read_ibnetdiscover(text, "f.txt"); }; };
  // infiniband-diags' own example joins two switches that both have
  // hosts: not a tree of levels.
  test::expect_error(read("Switch  24 \"S-005442ba00003080\"         # \"ISR9024 Voltaire\" base port 0 lid 6 lmc 0\n"
                          "[22]    \"H-0008f10403961354\"[1](8f10403961355)         # \"MT23108\" lid 4 4xSDR\n"
                          "[10]    \"S-0008f10400410015\"[1]         # \"SW-6IB4 Voltaire\" lid 3 4xSDR\n\n"
                          "Switch  8 \"S-0008f10400410015\"          # \"SW-6IB4 Voltaire\" base port 0 lid 3 lmc 0\n"
                          "[6]     \"H-0008f10403960984\"[1](8f10403960985)         # \"MT23108\" lid 16 4xSDR\n"
                          "[1]     \"S-005442ba00003080\"[10]                # \"ISR9024 Voltaire\" lid 6 1xSDR\n\n"
                          "Ca      2 \"H-0008f10403961354\"          # \"a HCA\"\n\n"
                          "Ca      2 \"H-0008f10403960984\"          # \"b HCA\"\n"),
                     3, "both on level 1");
  test::expect_error(read("Switch 8 \"S-1\" # \"s\"\n[1] \"H-2\"[1](2) # \"h\" lid 4 4xWDR\n"), 2, "got '4xWDR'");
  test::expect_error(read("Switch 8 \"S-1\" # \"s\"\n[1 \"H-2\"[1] # lid 4 4xEDR\n"), 2, "port number in brackets");
  test::expect_error(read("Switch 8 \"S-1\" # \"s\"\n[1] \"H-2\"[1] # lid 4 4xEDR\n"), 2, "'H-2' has no record");
  test::expect_error(read("[1] \"H-2\"[1] # lid 4 4xEDR\n"), 1, "outside a Switch or Ca record");
  test::expect_error(read("Rt 8 \"R-1\" # \"r\"\n"), 1, "a router");
  test::expect_error(read("hello world\n"), 1, "expected a Switch or Ca record");
  test::expect_error(read("Switch 8 \"S-1\" # \"s\"\n\nSwitch 8 \"S-1\" # \"s\"\n"), 3, "described twice");
}
