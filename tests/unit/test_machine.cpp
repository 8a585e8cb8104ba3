#include <gtest/gtest.h>

#include "helpers.hpp"
#include "rankmap/allocation.hpp"
#include "rankmap/machine.hpp"

using namespace rankmap;
using rankmap::test::expect_error;

TEST(Machine, DesmosAsShipped) {
  const Machine m = load_machine(test::source_dir() / "data/machines/desmos.toml");
  EXPECT_EQ(m.name, "Desmos");
  EXPECT_EQ(m.network.dims, (std::vector<int>{4, 2, 2, 2}));
  EXPECT_EQ(m.nodes.size(), 32u);
  EXPECT_EQ(m.network.diameter(), 2 + 1 + 1 + 1);
  EXPECT_EQ(m.network.routing_string(), "+X+Y+Z+W-X-Y-Z-W");
  EXPECT_DOUBLE_EQ(m.network.t_inj_ns + m.network.t_ej_ns, 850);
  // Hosts fill coordinates in order, X fastest: node05 = 1 + 4*1 -> (1,1,0,0).
  const Node& n5 = m.nodes[m.find_host("node05")];
  EXPECT_EQ(n5.coord, (std::vector<int>{1, 1, 0, 0}));
  const Node& n31 = m.nodes[m.find_host("node31")];
  EXPECT_EQ(n31.coord, (std::vector<int>{3, 1, 1, 1}));
  const NodeType& t = m.node_types[0];
  EXPECT_EQ(t.packages, 1);
  EXPECT_EQ(t.cores, 6);
  EXPECT_EQ(t.pus.size(), 12u);
}

TEST(Machine, AngaraK1IsHeterogeneous) {
  const Machine m = load_machine(test::source_dir() / "data/machines/angara-k1.toml");
  EXPECT_EQ(m.nodes.size(), 36u);
  ASSERT_EQ(m.node_types.size(), 2u);
  EXPECT_EQ(m.network.diameter(), 2 + 1 + 1);
  // The second group continues where the first stopped: b01 is the 25th
  // coordinate, index 24 = 0 + 4*(0 + 3*2) -> (0,0,2).
  const Node& b01 = m.nodes[m.find_host("b01")];
  EXPECT_EQ(b01.coord, (std::vector<int>{0, 0, 2}));
  EXPECT_EQ(m.node_types[b01.type].cores, 8);
  EXPECT_EQ(m.node_types[m.nodes[m.find_host("a24")].type].pus.size(), 24u);
}

TEST(Machine, HwlocTreeGivesLogicalIndices) {
  const NodeType t = load_node_type("package:2 core:6 pu:2", "t", 1);
  ASSERT_EQ(t.pus.size(), 24u);
  // PU 13 is the second thread of core 6, the first core of package 1.
  EXPECT_EQ(t.pus[13].package, 1);
  EXPECT_EQ(t.pus[13].core, 6);
  EXPECT_EQ(t.pus[13].core_in_package, 0);
  EXPECT_EQ(t.pus[13].pu_in_package, 1);
  EXPECT_EQ(t.core_pus[6], (std::vector<int>{12, 13}));
  expect_error([] { load_node_type("package:2 kore:6", "m.toml", 9); }, 9, "bad hwloc synthetic");
  // Widths are checked before hwloc builds the tree (8,192 packages took it
  // over a minute): at most 1,024 objects a level and 4,096 PUs a node.
  expect_error([] { load_node_type("package:8192 core:1", "m.toml", 4); }, 4,
               "has a level of 8192 objects; rankmap takes up to 1024 a level");
  expect_error([] { load_node_type("package:8 core:512 pu:2", "m.toml", 4); }, 4,
               "has more than 4096 PUs; rankmap takes up to 4096 a node");
  EXPECT_EQ(load_node_type("package:2 core:1024 pu:2", "m.toml", 4).pus.size(), 4096u);
}

TEST(Machine, ExplicitCoordinatesAndMesh) {
  const Machine m = parse_machine(R"(
[network]
dims = [2, 2]
wrap = [false, true]
t_hop_ns = 1
t_inj_ns = 1
t_ej_ns = 1
routing = "-Y -X +Y +X"
[[nodes]]
hosts = "n[0-3]"
hwloc = "core:2"
coords = [[1,1], [0,1], [1,0], [0,0]]
)",
                                  "m.toml");
  EXPECT_EQ(m.nodes[m.find_host("n0")].coord_index, 3u);
  EXPECT_EQ(m.node_at(0), m.find_host("n3"));
  EXPECT_EQ(m.network.routing_string(), "-Y-X+Y+X");
  EXPECT_EQ(m.network.diameter(), 1 + 1);
}

TEST(Machine, ErrorsNameFileAndLine) {
  const std::string head = "[network]\ndims = [2, 2]\nt_hop_ns = 1\nt_inj_ns = 1\nt_ej_ns = 1\n";
  // Lines:                 1            2             3              4              5
  expect_error([&] { parse_machine(head + "[[nodes]]\nhosts = \"n[0-2]\"\nhwloc = \"core:1\"\n", "m.toml"); }, 6,
               "3 hosts but the network has 4 coordinates");
  expect_error([&] { parse_machine(head + "[[nodes]]\nhosts = \"n[0-3\"\nhwloc = \"core:1\"\n", "m.toml"); }, 7,
               "missing ']'");
  expect_error(
      [&] {
        parse_machine(
            head + "[[nodes]]\nhosts = \"n[0-3]\"\nhwloc = \"core:1\"\ncoords = [[0,0],[1,0],\n[0,0],[1,1]]\n",
            "m.toml");
      },
      10, "used twice");
  expect_error(
      [&] {
        parse_machine(head + "[[nodes]]\nhosts = \"n[0-3]\"\nhwloc = \"core:1\"\ncoords = [[0,0],[1,0],[0,1],[2,1]]\n",
                      "m.toml");
      },
      9, "must be from 0 to 1");
  expect_error([&] { parse_machine(head + "[[nodes]]\nhosts = \"n[0-1],n[0-1]\"\nhwloc = \"core:1\"\n", "m.toml"); }, 0,
               "listed twice");
  expect_error([&] { parse_machine(head + "colour = 3\n", "m.toml"); }, 6, "unknown key 'colour'");
  expect_error([&] { parse_machine("[network\n", "m.toml"); }, 1, "TOML syntax");
  expect_error([&] { parse_machine("[network]\ndims = [2, 0]\n", "m.toml"); }, 2, "from 1 to 1000000");
  expect_error([&] { parse_machine("[network]\ndims = [2]\nwrap = [true, false]\n", "m.toml"); }, 3,
               "list of 1 booleans");
  expect_error([&] { parse_machine("[network]\ndims = [2]\nt_hop_ns = -1\n", "m.toml"); }, 3, "non-negative");
  expect_error([&] { parse_machine(head + "t_local_ns = -5\n", "m.toml"); }, 6, "'t_local_ns' must be a non-negative");
  expect_error(
      [&] {
        parse_machine("[network]\ndims = [2]\nt_hop_ns = 1\nt_inj_ns = 1\nt_ej_ns = 1\nrouting = \"+X+Y-X\"\n",
                      "m.toml");
      },
      6, "no dimension 'Y'");
  expect_error(
      [&] {
        parse_machine("[network]\ndims = [2, 2]\nt_hop_ns = 1\nt_inj_ns = 1\nt_ej_ns = 1\nrouting = \"+X+Y-X\"\n",
                      "m.toml");
      },
      6, "names 3 moves, not 4");
}

TEST(Allocation, SlotsFromCoresPpnAndHwthreads) {
  const Machine m = test::make_machine("[2]", "", "n[0-1]", "package:2 core:3 pu:2");
  const Allocation cores = make_allocation(m, {});
  ASSERT_EQ(cores.slots(0).size(), 6u);
  EXPECT_EQ(cores.slots(0)[3].pus, (std::vector<int>{6, 7}));  // core 3 = first core of package 1
  EXPECT_EQ(cores.slots(0)[3].package, 1);
  EXPECT_EQ(cores.total_slots(), 12u);

  const Allocation threads = make_allocation(m, {{}, 0, true});
  EXPECT_EQ(threads.slots(1).size(), 12u);
  EXPECT_EQ(threads.slots(1)[7].pus, (std::vector<int>{7}));

  // Two ranks per node: one per package, three cores each.
  const Allocation two = make_allocation(m, {{"n1"}, 2, false});
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two.nodes[0], m.find_host("n1"));
  EXPECT_EQ(two.slots(0)[1].pus, (std::vector<int>{6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(two.slots(0)[1].package, 1);
  EXPECT_EQ(two.position_of(m.find_host("n0")), -1);

  expect_error([&] { make_allocation(m, {{}, 7, false}); }, 0, "7 ranks per node do not fit");
  expect_error([&] { make_allocation(m, {{"n0", "n9"}, 0, false}); }, 0, "unknown host 'n9'");
  expect_error([&] { make_allocation(m, {{"n0", "n0"}, 0, false}); }, 0, "given twice");
}

// A batch job that holds part of a node (held CPUs, OS numbers) or gives
// its nodes uneven task counts: each node's slots are made of what it
// holds there, by hand from the synthetic node (PU p has OS number p, core
// c PUs 2c and 2c + 1, cores 0-2 in package 0).
TEST(Allocation, HeldCpusAndUnevenRanksPerHost) {
  const Machine m = test::make_machine("[2]", "", "n[0-1]", "package:2 core:3 pu:2");
  AllocationOptions o;
  o.hosts = {"n0", "n1"};
  o.held_cpus = {{9, 6, 8, 7}, {}};
  o.ranks_per_host = {0, 3};
  const Allocation a = make_allocation(m, o);
  ASSERT_EQ(a.slots(0).size(), 2u);  // cores 3 and 4, one rank a core
  EXPECT_EQ(a.slots(0)[0].pus, (std::vector<int>{6, 7}));
  EXPECT_EQ(a.slots(0)[1].pus, (std::vector<int>{8, 9}));
  EXPECT_EQ(a.slots(0)[1].package, 1);
  ASSERT_EQ(a.slots(1).size(), 3u);  // all 6 cores, 3 ranks: 2 cores each
  EXPECT_EQ(a.slots(1)[1].pus, (std::vector<int>{4, 5, 6, 7}));
  // Half cores held: the held PUs one by one.
  o.hosts = {"n0"}, o.held_cpus = {{1, 2}}, o.ranks_per_host = {};
  const Allocation halves = make_allocation(m, o);
  ASSERT_EQ(halves.slots(0).size(), 2u);
  EXPECT_EQ(halves.slots(0)[0].pus, (std::vector<int>{1}));
  EXPECT_EQ(halves.slots(0)[1].pus, (std::vector<int>{2}));
  // Blocks of 2 cores inside what is held: cores 0-2 give one.
  o.held_cpus = {{0, 1, 2, 3, 4, 5}}, o.cpus_per_rank = 2;
  const Allocation blocks = make_allocation(m, o);
  ASSERT_EQ(blocks.slots(0).size(), 1u);
  EXPECT_EQ(blocks.slots(0)[0].pus, (std::vector<int>{0, 1, 2, 3}));
  o.cpus_per_rank = 0, o.held_cpus = {{6, 7}}, o.ranks_per_host = {2};
  expect_error([&] { make_allocation(m, o); }, 0, "2 ranks do not fit the 1 CPU the job holds on host 'n0'");
  // A PBS node file's 7 lines for a 6-core host: its file is blamed, not
  // --ppn (the user gave none), and the host's cores are counted.
  o.held_cpus = {}, o.ranks_per_host = {7}, o.counts_source = "PBS_NODEFILE nodes";
  try {
    make_allocation(m, o);
    ADD_FAILURE() << "7 ranks fit 6 cores";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "PBS_NODEFILE nodes: 7 ranks do not fit host 'n0', which has 6 cores");
    EXPECT_TRUE(e.parameter().empty());
    EXPECT_EQ(e.kind(), ErrorKind::fit);
  }
  // The same count for every host goes by ranks per node, blamed alike.
  o.ranks_per_host = {}, o.ppn = 7;
  expect_error([&] { make_allocation(m, o); }, 0,
               "PBS_NODEFILE nodes: 7 ranks per node do not fit host 'n0', which has 6 cores");
}

// --cpus-per-rank: N units a slot, inside one package where N fits. The
// count of slots inside one package is checked against the most that can
// be, min(slots, sum over packages of floor(units / N)), worked out here
// apart from the library's turn-taking.
TEST(Allocation, CpusPerRankBlocksStayInOnePackage) {
  const Machine m = test::make_machine("[2]", "", "n[0-1]", "package:2 core:3 pu:2");
  auto slots = [&](int ppn, int cpus, bool hwthreads) {
    AllocationOptions o;
    o.ppn = ppn, o.hwthreads = hwthreads, o.cpus_per_rank = cpus;
    return make_allocation(m, o).slots(0);
  };
  // Two ranks of 3 cores: one a package.
  const auto two = slots(0, 3, false);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].pus, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(two[1].pus, (std::vector<int>{6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(two[1].package, 1);
  // Three ranks of 2 cores on packages of 3: two in a package, the third
  // on the cores left over (core 2 and core 5).
  const auto three = slots(3, 2, false);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[0].pus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(three[1].pus, (std::vector<int>{4, 5, 10, 11}));
  EXPECT_EQ(three[2].pus, (std::vector<int>{6, 7, 8, 9}));
  // Angara-K1's hybrid runs: 4 ranks x 3 hardware threads here, two a package.
  const auto four = slots(4, 3, true);
  ASSERT_EQ(four.size(), 4u);
  EXPECT_EQ(four[1].pus, (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(four[2].pus, (std::vector<int>{6, 7, 8}));
  // A lone rank on one package, the other left free.
  EXPECT_EQ(slots(1, 2, false)[0].pus, (std::vector<int>{0, 1, 2, 3}));

  for (const char* shape : {"package:2 core:6 pu:2", "package:4 core:5", "package:3 core:4 pu:2", "core:8"}) {
    const Machine node = test::make_machine("[1]", "", "x0", shape);
    const NodeType& type = node.node_types[0];
    for (const bool hwthreads : {false, true})
      for (int n = 1; n <= 7; ++n)
        for (int ppn = 0; ppn <= 9; ++ppn) {
          const int units = hwthreads ? static_cast<int>(type.pus.size()) : type.cores;
          const int count = ppn > 0 ? ppn : units / n;
          AllocationOptions o;
          o.ppn = ppn, o.hwthreads = hwthreads, o.cpus_per_rank = n;
          SCOPED_TRACE(std::string(shape) + " ppn " + std::to_string(ppn) + " cpus " + std::to_string(n) +
                       (hwthreads ? " hwthreads" : ""));
          if (count == 0 || count * n > units) {
            expect_error([&] { make_allocation(node, o); }, 0, "not fit host 'x0'");
            continue;
          }
          const auto layout = make_allocation(node, o).slots(0);
          ASSERT_EQ(static_cast<int>(layout.size()), count);
          std::vector<int> seen(type.pus.size(), 0);
          int in_one = 0, most_in_one = 0;
          for (const Slot& slot : layout) {
            const int per_unit = hwthreads ? 1 : static_cast<int>(type.core_pus[0].size());
            EXPECT_EQ(static_cast<int>(slot.pus.size()), n * per_unit);
            bool one = true;
            for (int pu : slot.pus) ++seen[pu], one = one && type.pus[pu].package == slot.package;
            in_one += one;
          }
          for (int p = 0; p < type.packages; ++p) most_in_one += units / type.packages / n;
          EXPECT_EQ(in_one, std::min(count, most_in_one));
          EXPECT_EQ(*std::max_element(seen.begin(), seen.end()), 1);  // no PU in two slots
        }
  }
  expect_error([&] { slots(4, 2, false); }, 0, "4 ranks of 2 cores do not fit host 'n0', which has 6 cores");
  expect_error([&] { slots(0, 7, false); }, 0, "1 rank of 7 cores does not fit host 'n0'");
  // 2 x 2^30 cores would wrap round in an int.
  expect_error([&] { slots(2, 1 << 30, false); }, 0, "2 ranks of 1073741824 cores do not fit host 'n0'");
}

TEST(Allocation, NodesFromFile) {
  test::TempDir dir;
  const auto f = dir.write("nodes", "# from the scheduler\nnode[00-01]\n\nnode07  # spare\n");
  EXPECT_EQ(read_nodes_argument("@" + f.string()), (std::vector<std::string>{"node00", "node01", "node07"}));
  const auto bad = dir.write("bad", "node00\nnode[1-\n");
  expect_error([&] { read_nodes_argument("@" + bad.string()); }, 2, "missing ']'");
}
