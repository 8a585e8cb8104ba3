// The C API (rankmap/rankmap.h): every entry point, each error path with
// its status and message, and the same results as the C++ API.
#include "rankmap/rankmap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "rankmap/allocation.hpp"
#include "rankmap/baseline.hpp"
#include "rankmap/context.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/launch.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/map.hpp"
#include "rankmap/metrics.hpp"

using namespace rankmap;

namespace {

const std::string kDesmos = (test::source_dir() / "data/machines/desmos.toml").string();
const std::string kStencil = (test::source_dir() / "data/graphs/stencil-8x4x6.mtx").string();

// Owning wrappers, so that a failed expectation leaks nothing.
struct Handles {
  rankmap_machine* machine = nullptr;
  rankmap_graph* graph = nullptr;
  rankmap_allocation* allocation = nullptr;
  rankmap_context* context = nullptr;
  ~Handles() {
    rankmap_context_free(context);
    rankmap_allocation_free(allocation);
    rankmap_graph_free(graph);
    rankmap_machine_free(machine);
  }
};

// Desmos, nodes 00-07 at 6 ranks a node, the 192-rank stencil.
void open_desmos(Handles& h, const char* hosts = "node[00-07]") {
  rankmap_error err{};
  ASSERT_EQ(rankmap_machine_load(kDesmos.c_str(), &h.machine, &err), RANKMAP_OK) << err.message;
  ASSERT_EQ(rankmap_graph_load(kStencil.c_str(), &h.graph, &err), RANKMAP_OK) << err.message;
  ASSERT_EQ(rankmap_allocation_create(h.machine, hosts, 0, 0, &h.allocation, &err), RANKMAP_OK) << err.message;
  ASSERT_EQ(rankmap_context_create("fast", 7, &h.context, &err), RANKMAP_OK) << err.message;
}

// Replaces the graph with twelve ranks whose only traffic is 0 <-> 1
// (8 bytes each way), from CSR arrays.
void use_twelve_ranks(Handles& h) {
  const uint64_t offsets[] = {0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
  const uint32_t targets[] = {1, 0};
  const uint64_t bytes[] = {8, 8};
  rankmap_graph_free(h.graph);
  rankmap_error err{};
  ASSERT_EQ(rankmap_graph_create_csr(12, offsets, targets, bytes, nullptr, &h.graph, &err), RANKMAP_OK) << err.message;
}

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(CApi, VersionAndApiVersion) {
  EXPECT_EQ(rankmap_api_version(), RANKMAP_API_VERSION);
  const std::string v = rankmap_version();
  EXPECT_EQ(std::count(v.begin(), v.end(), '.'), 2) << v;
}

// The mapping, the scores and the prediction equal what the C++ API gives
// for the same inputs and seed (the C side on 2 threads, the C++ side on
// its default).
TEST(CApi, SameResultsAsTheCppApi) {
  Handles h;
  open_desmos(h, "node[00-31]");
  rankmap_error threads_err{};
  ASSERT_EQ(rankmap_context_set_threads(h.context, 2, &threads_err), RANKMAP_OK) << threads_err.message;
  const uint32_t ranks = rankmap_graph_ranks(h.graph);
  ASSERT_EQ(ranks, 192u);
  EXPECT_EQ(rankmap_allocation_nodes(h.allocation), 32u);
  EXPECT_EQ(rankmap_allocation_slots(h.allocation), 192u);
  EXPECT_STREQ(rankmap_allocation_host(h.allocation, 7), "node07");
  EXPECT_EQ(rankmap_allocation_host(h.allocation, 32), nullptr);

  std::vector<int32_t> host(ranks), cpu(ranks);
  rankmap_error err{};
  ASSERT_EQ(rankmap_map(h.graph, h.machine, h.allocation, h.context, ranks, host.data(), cpu.data(), &err), RANKMAP_OK)
      << err.message;

  const Machine machine = load_machine(kDesmos);
  const Graph graph = read_graph(kStencil);
  AllocationOptions options;
  options.hosts = read_nodes_argument("node[00-31]");
  const Allocation allocation = make_allocation(machine, options);
  Context context = create_context("fast");
  context.seed = 7;
  const Mapping expected = map(graph, machine, allocation, context);
  for (uint32_t r = 0; r < ranks; ++r) {
    const Placement p = expected.ranks[r];
    ASSERT_EQ(host[r], p.node) << "rank " << r;
    const NodeType& type = machine.node_types[machine.nodes[allocation.nodes[p.node]].type];
    ASSERT_EQ(cpu[r], static_cast<int32_t>(type.pus[allocation.slots(p.node)[p.slot].pus.front()].os_index))
        << "rank " << r;
  }

  rankmap_scores scores{};
  ASSERT_EQ(rankmap_evaluate(h.graph, h.machine, h.allocation, ranks, host.data(), cpu.data(), &scores, &err),
            RANKMAP_OK)
      << err.message;
  const Metrics m = evaluate(graph, machine, allocation, expected);
  EXPECT_EQ(scores.hop_bytes, m.hop_bytes);
  EXPECT_EQ(scores.total_bytes, m.total_bytes);
  EXPECT_EQ(scores.max_link_bytes, m.max_link_bytes);
  EXPECT_EQ(scores.max_dilation, m.max_dilation);
  EXPECT_DOUBLE_EQ(scores.avg_dilation, m.avg_dilation);
  EXPECT_DOUBLE_EQ(scores.mean_message_ns, mean_message_times(graph, machine.network, m).by_messages_ns);

  double gain = -1;
  ASSERT_EQ(rankmap_predict_gain(h.graph, h.machine, h.allocation, ranks, host.data(), cpu.data(), 0.3, &gain, &err),
            RANKMAP_OK);
  const Metrics block = evaluate(graph, machine, allocation, baseline_mapping(Baseline::block, allocation, ranks));
  EXPECT_DOUBLE_EQ(gain, relative_gain(0.3, mean_message_times(graph, machine.network, block).by_messages_ns,
                                       mean_message_times(graph, machine.network, m).by_messages_ns));
}

// Block: rank r on node r / 6 (6 cores a Desmos node), on the first PU of
// core r % 6 (OS CPU numbers of "pu:2": core c holds PUs 2c and 2c + 1).
TEST(CApi, BlockMappingByHand) {
  Handles h;
  open_desmos(h, "node[00-01]");
  use_twelve_ranks(h);
  rankmap_error err{};
  std::vector<int32_t> host(12), cpu(12);
  ASSERT_EQ(rankmap_map_block(h.graph, h.allocation, 12, host.data(), cpu.data(), &err), RANKMAP_OK) << err.message;
  for (int r = 0; r < 12; ++r) {
    EXPECT_EQ(host[r], r / 6);
    EXPECT_EQ(cpu[r], 2 * (r % 6));
  }
}

// A graph from CSR arrays: duplicates add up and message counts are kept.
// Ranks 0, 1, 2 on nodes 0, 1, 2 of a 4-ring: 0 -> 1 twice (10 + 5 bytes,
// 1 + 2 messages), 1 -> 2 once (7 bytes, 3 messages), all one hop: 22
// bytes in 6 messages, hop-bytes 22, mean message 400 + 400 + 100 ns.
TEST(CApi, GraphFromCsr) {
  const uint64_t offsets[] = {0, 2, 3, 3};
  const uint32_t targets[] = {1, 1, 2};
  const uint64_t bytes[] = {10, 5, 7}, msgs[] = {1, 2, 3};
  Handles h;
  rankmap_error err{};
  ASSERT_EQ(rankmap_graph_create_csr(3, offsets, targets, bytes, msgs, &h.graph, &err), RANKMAP_OK);
  EXPECT_EQ(rankmap_graph_ranks(h.graph), 3u);
  const char* ring =
      "[network]\ndims = [4]\nt_hop_ns = 100\nt_inj_ns = 400\nt_ej_ns = 400\n"
      "[[nodes]]\nhosts = \"n[0-3]\"\nhwloc = \"core:1\"\n";
  ASSERT_EQ(rankmap_machine_parse(ring, &h.machine, &err), RANKMAP_OK) << err.message;
  ASSERT_EQ(rankmap_allocation_create(h.machine, nullptr, 0, 0, &h.allocation, &err), RANKMAP_OK) << err.message;
  int32_t host[3], cpu[3];
  ASSERT_EQ(rankmap_map_block(h.graph, h.allocation, 3, host, cpu, &err), RANKMAP_OK) << err.message;
  rankmap_scores s{};
  ASSERT_EQ(rankmap_evaluate(h.graph, h.machine, h.allocation, 3, host, cpu, &s, &err), RANKMAP_OK) << err.message;
  EXPECT_EQ(s.total_bytes, 22u);
  EXPECT_EQ(s.total_msgs, 6u);
  EXPECT_EQ(s.hop_bytes, 22u);
  EXPECT_DOUBLE_EQ(s.mean_message_ns, 900);

  rankmap_graph* g = nullptr;

  const uint32_t bad_targets[] = {1, 9, 2};
  EXPECT_EQ(rankmap_graph_create_csr(3, offsets, bad_targets, bytes, msgs, &g, &err), RANKMAP_ERR_INPUT);
  EXPECT_EQ(g, nullptr);
  EXPECT_STREQ(err.message, "targets[1] is 9, expected a rank below 3");
  const uint64_t backwards[] = {0, 2, 1, 3};
  EXPECT_EQ(rankmap_graph_create_csr(3, backwards, targets, bytes, msgs, &g, &err), RANKMAP_ERR_INPUT);
  EXPECT_STREQ(err.message, "offsets[2] is below offsets[1]");
  EXPECT_EQ(rankmap_graph_create_csr(3, nullptr, targets, bytes, msgs, &g, &err), RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "offsets is NULL");
  // Issue 16: offsets {0, 1000, 2} must be refused before targets are read
  // (three entries exist; offset 1000 would read far past them).
  const uint64_t wild[] = {0, 1000, 2, 3};
  EXPECT_EQ(rankmap_graph_create_csr(3, wild, targets, bytes, msgs, &g, &err), RANKMAP_ERR_INPUT);
  EXPECT_STREQ(err.message, "offsets[2] is below offsets[1]");
  EXPECT_EQ(rankmap_graph_create_csr(0, offsets, targets, bytes, msgs, &g, &err), RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "ranks is 0, expected 1 to 2147483647");
  EXPECT_EQ(g, nullptr);
  // Duplicate edges whose bytes add up past 2^64 - 1 are refused, not wrapped.
  const uint64_t dup_offsets[] = {0, 2, 2, 2};
  const uint32_t dup_targets[] = {1, 1};
  const uint64_t huge[] = {UINT64_MAX - 1, 5};
  EXPECT_EQ(rankmap_graph_create_csr(3, dup_offsets, dup_targets, huge, nullptr, &g, &err), RANKMAP_ERR_INPUT);
  EXPECT_STREQ(err.message, "the bytes from rank 0 to rank 1 add up past 2^64 - 1");
  EXPECT_EQ(g, nullptr);
  // A launch file of no rank is refused, and nothing is written.
  test::TempDir dir;
  const std::string empty = (dir.path() / "empty.rankfile").string();
  EXPECT_EQ(rankmap_write_launch_file(h.machine, h.allocation, 0, host, cpu, "openmpi", empty.c_str(), &err),
            RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "ranks is 0: a launch file places at least one rank");
  EXPECT_FALSE(std::filesystem::exists(empty));
}

TEST(CApi, MachineFromSpecEqualsTheFile) {
  const int dims[] = {4, 2, 2, 2};
  const rankmap_node_group group{"node[00-31]", "package:1 core:6 pu:2"};
  const rankmap_machine_spec spec{4, dims, nullptr, 129, 425, 425, 1, &group};
  Handles a, b;
  rankmap_error err{};
  ASSERT_EQ(rankmap_machine_create(&spec, &a.machine, &err), RANKMAP_OK) << err.message;
  ASSERT_EQ(rankmap_machine_load(kDesmos.c_str(), &b.machine, &err), RANKMAP_OK);
  ASSERT_EQ(rankmap_graph_load(kStencil.c_str(), &a.graph, &err), RANKMAP_OK);
  ASSERT_EQ(rankmap_allocation_create(a.machine, nullptr, 6, 0, &a.allocation, &err), RANKMAP_OK);
  ASSERT_EQ(rankmap_allocation_create(b.machine, nullptr, 6, 0, &b.allocation, &err), RANKMAP_OK);
  ASSERT_EQ(rankmap_context_create(nullptr, 3, &a.context, &err), RANKMAP_OK);
  std::vector<int32_t> ha(192), ca(192), hb(192), cb(192);
  ASSERT_EQ(rankmap_map(a.graph, a.machine, a.allocation, a.context, 192, ha.data(), ca.data(), &err), RANKMAP_OK)
      << err.message;
  ASSERT_EQ(rankmap_map(a.graph, b.machine, b.allocation, a.context, 192, hb.data(), cb.data(), &err), RANKMAP_OK)
      << err.message;
  EXPECT_EQ(ha, hb);
  EXPECT_EQ(ca, cb);

  const int bad_dims[] = {4, 2, 2, 3};  // 48 coordinates for 32 hosts
  const rankmap_machine_spec bad{4, bad_dims, nullptr, 129, 425, 425, 1, &group};
  rankmap_machine* m = nullptr;
  EXPECT_EQ(rankmap_machine_create(&bad, &m, &err), RANKMAP_ERR_INPUT);
  EXPECT_EQ(m, nullptr);
  EXPECT_NE(std::strstr(err.message, "machine spec"), nullptr) << err.message;
  const rankmap_machine_spec seven{7, dims, nullptr, 1, 1, 1, 1, &group};
  EXPECT_EQ(rankmap_machine_create(&seven, &m, &err), RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "ndims is 7, expected 1 to 6");
}

TEST(CApi, ErrorPaths) {
  rankmap_error err{};
  rankmap_machine* m = nullptr;
  // A file that is not there; a malformed one names its line.
  EXPECT_EQ(rankmap_machine_load("/nonexistent/m.toml", &m, &err), RANKMAP_ERR_IO);
  EXPECT_EQ(err.status, RANKMAP_ERR_IO);
  EXPECT_NE(std::strstr(err.message, "/nonexistent/m.toml: cannot open"), nullptr) << err.message;
  EXPECT_EQ(rankmap_machine_parse("[network]\ndims = [2]\nt_hop_ns = -1\n", &m, &err), RANKMAP_ERR_INPUT);
  EXPECT_NE(std::strstr(err.message, "machine text:3:"), nullptr) << err.message;
  EXPECT_EQ(m, nullptr);
  EXPECT_EQ(rankmap_machine_load(nullptr, &m, &err), RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "toml_path is NULL");
  EXPECT_EQ(rankmap_machine_load(kDesmos.c_str(), nullptr, &err), RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "out is NULL");
  // No error struct: the status alone.
  EXPECT_EQ(rankmap_machine_parse(nullptr, &m, nullptr), RANKMAP_ERR_ARGUMENT);

  test::TempDir dir;
  const std::string bad_graph =
      dir.write("bad.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 -5\n");
  rankmap_graph* g = nullptr;
  EXPECT_EQ(rankmap_graph_load(bad_graph.c_str(), &g, &err), RANKMAP_ERR_INPUT);
  EXPECT_NE(std::strstr(err.message, "bad.mtx:3:"), nullptr) << err.message;

  Handles h;
  open_desmos(h);
  rankmap_allocation* a = nullptr;
  EXPECT_EQ(rankmap_allocation_create(h.machine, "node[00-07", 0, 0, &a, &err), RANKMAP_ERR_INPUT);
  EXPECT_NE(std::strstr(err.message, "node[00-07"), nullptr) << err.message;
  EXPECT_EQ(rankmap_allocation_create(h.machine, "node99", 0, 0, &a, &err), RANKMAP_ERR_INPUT);
  EXPECT_NE(std::strstr(err.message, "node99"), nullptr) << err.message;
  EXPECT_STREQ(err.message, "hostlist: unknown host 'node99' (not in machine 'Desmos')");
  EXPECT_EQ(rankmap_allocation_create(h.machine, nullptr, 7, 0, &a, &err), RANKMAP_ERR_FIT);  // 6 cores
  EXPECT_STREQ(err.message,
               "ranks_per_node: 7 ranks per node do not fit host 'node00', which has 6 cores and 12 hardware threads");
  EXPECT_EQ(rankmap_allocation_create(h.machine, nullptr, -1, 0, &a, &err), RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "ranks_per_node: expected 0 (one rank per core) or more, got -1");
  EXPECT_EQ(rankmap_allocation_create(nullptr, nullptr, 0, 0, &a, &err), RANKMAP_ERR_ARGUMENT);
  EXPECT_EQ(a, nullptr);

  rankmap_context* c = nullptr;
  // An unknown preset is an argument out of range, named without CLI flags.
  EXPECT_EQ(rankmap_context_create("turbo", 1, &c, &err), RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "preset: unknown preset 'turbo' (expected fast, default or quality)");
  EXPECT_EQ(rankmap_context_load("/nonexistent.toml", &c, &err), RANKMAP_ERR_IO);
  EXPECT_EQ(rankmap_context_set_oversubscribe(nullptr, 1, &err), RANKMAP_ERR_ARGUMENT);
  EXPECT_EQ(rankmap_context_set_threads(h.context, -1, &err), RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "threads: expected 0 (every CPU) to 1024, got -1");

  // 192 ranks on 8 nodes of 6 cores: only with oversubscription.
  std::vector<int32_t> host(192, 0), cpu(192, 0);
  EXPECT_EQ(rankmap_map(h.graph, h.machine, h.allocation, h.context, 192, host.data(), cpu.data(), &err),
            RANKMAP_ERR_FIT);
  EXPECT_EQ(err.status, RANKMAP_ERR_FIT);
  EXPECT_STREQ(err.message, "192 ranks do not fit the 48 slots of 8 nodes");
  ASSERT_EQ(rankmap_context_set_oversubscribe(h.context, 1, &err), RANKMAP_OK);
  ASSERT_EQ(rankmap_map(h.graph, h.machine, h.allocation, h.context, 192, host.data(), cpu.data(), &err), RANKMAP_OK)
      << err.message;
  EXPECT_EQ(rankmap_map(h.graph, h.machine, h.allocation, h.context, 100, host.data(), cpu.data(), &err),
            RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "ranks is 100 but the graph has 192");
  EXPECT_EQ(rankmap_map(h.graph, h.machine, h.allocation, h.context, 192, nullptr, cpu.data(), &err),
            RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "host is NULL");
  // A mapping that names a node or a CPU the allocation does not have.
  rankmap_scores s{};
  const int32_t host5 = host[5], cpu5 = cpu[5];
  host[5] = 8;
  EXPECT_EQ(rankmap_evaluate(h.graph, h.machine, h.allocation, 192, host.data(), cpu.data(), &s, &err),
            RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "host[5] = 8 is not a node of the allocation (0 to 7)");
  host[5] = 0, cpu[5] = 1;  // CPU 1 is core 0's second PU: not a slot's first
  EXPECT_EQ(rankmap_evaluate(h.graph, h.machine, h.allocation, 192, host.data(), cpu.data(), &s, &err),
            RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "cpu[5] = 1 is not the first CPU of a slot of node00");
  double gain = 0;
  EXPECT_EQ(rankmap_predict_gain(h.graph, h.machine, h.allocation, 192, host.data(), cpu.data(), 1.5, &gain, &err),
            RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "p_mpi is 1.500000, expected 0 to 1");
  EXPECT_EQ(rankmap_write_launch_file(h.machine, h.allocation, 192, host.data(), cpu.data(), "lsf",
                                      (dir.path() / "x").c_str(), &err),
            RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "format: unknown format 'lsf' (expected openmpi, mpich, slurm, mvapich, intelmpi or csv)");
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "x"));
  host[5] = host5, cpu[5] = cpu5;  // the mapping rankmap_map made: the directory alone is at fault
  EXPECT_EQ(rankmap_write_launch_file(h.machine, h.allocation, 192, host.data(), cpu.data(), "csv",
                                      "/nonexistent/dir/x.csv", &err),
            RANKMAP_ERR_IO);
  EXPECT_NE(std::strstr(err.message, "/nonexistent/dir/x.csv: cannot write"), nullptr) << err.message;
  // An allocation of another machine object.
  Handles other;
  ASSERT_EQ(rankmap_machine_load(kDesmos.c_str(), &other.machine, &err), RANKMAP_OK);
  EXPECT_EQ(rankmap_evaluate(h.graph, other.machine, h.allocation, 192, host.data(), cpu.data(), &s, &err),
            RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "the allocation was made for another machine");
}

// Every format writes what the C++ writer writes.
TEST(CApi, LaunchFilesInEveryFormat) {
  Handles h;
  open_desmos(h, "node[00-01]");
  use_twelve_ranks(h);
  rankmap_error err{};
  std::vector<int32_t> host(12), cpu(12);
  ASSERT_EQ(rankmap_map(h.graph, h.machine, h.allocation, h.context, 12, host.data(), cpu.data(), &err), RANKMAP_OK)
      << err.message;
  const Machine machine = load_machine(kDesmos);
  AllocationOptions options;
  options.hosts = {"node00", "node01"};
  const Allocation allocation = make_allocation(machine, options);
  Mapping mapping;
  for (int r = 0; r < 12; ++r) mapping.ranks.push_back({host[r], cpu[r] / 2});  // pu:2: slot c starts at CPU 2c
  test::TempDir dir;
  for (const char* format : {"openmpi", "mpich", "slurm", "mvapich", "intelmpi", "csv"}) {
    const std::string c_path = (dir.path() / (std::string("c.") + format)).string();
    const std::string cpp_path = (dir.path() / (std::string("cpp.") + format)).string();
    ASSERT_EQ(
        rankmap_write_launch_file(h.machine, h.allocation, 12, host.data(), cpu.data(), format, c_path.c_str(), &err),
        RANKMAP_OK)
        << format << ": " << err.message;
    write_launch_files(cpp_path, parse_launch_format(format), machine, allocation, mapping);
    EXPECT_EQ(text_of(c_path), text_of(cpp_path)) << format;
    EXPECT_FALSE(text_of(c_path).empty()) << format;
  }
}

// A context read back from a dumped one (`rankmap map --dump-config`) maps
// as the context it came from; machine text parses as the file does.
TEST(CApi, ContextFromFileAndMachineFromText) {
  test::TempDir dir;
  Context quality = create_context("quality");
  quality.seed = 11;
  const std::string path = dir.write("ctx.toml", dump_context(quality)).string();
  Handles a, b;
  rankmap_error err{};
  ASSERT_EQ(rankmap_context_load(path.c_str(), &a.context, &err), RANKMAP_OK) << err.message;
  ASSERT_EQ(rankmap_context_create("quality", 11, &b.context, &err), RANKMAP_OK);
  ASSERT_EQ(rankmap_machine_parse(text_of(kDesmos).c_str(), &a.machine, &err), RANKMAP_OK) << err.message;
  ASSERT_EQ(rankmap_graph_load(kStencil.c_str(), &a.graph, &err), RANKMAP_OK);
  ASSERT_EQ(rankmap_allocation_create(a.machine, "node[00-31]", 0, 0, &a.allocation, &err), RANKMAP_OK);
  std::vector<int32_t> h1(192), c1(192), h2(192), c2(192);
  ASSERT_EQ(rankmap_map(a.graph, a.machine, a.allocation, a.context, 192, h1.data(), c1.data(), &err), RANKMAP_OK);
  ASSERT_EQ(rankmap_map(a.graph, a.machine, a.allocation, b.context, 192, h2.data(), c2.data(), &err), RANKMAP_OK);
  EXPECT_EQ(h1, h2);
  EXPECT_EQ(c1, c2);
  rankmap_allocation* other = nullptr;
  EXPECT_EQ(rankmap_allocation_create(a.machine, "node[00-31]", 7, 0, &other, &err), RANKMAP_ERR_FIT);
  EXPECT_EQ(std::string(err.message).rfind("ranks_per_node", 0), 0u) << err.message;
  EXPECT_EQ(rankmap_allocation_create(a.machine, "node[00-31],nodeX", 0, 0, &other, &err), RANKMAP_ERR_INPUT);
  EXPECT_EQ(std::string(err.message).rfind("hostlist: unknown host 'nodeX'", 0), 0u) << err.message;
}

// Every entry point, every pointer argument NULL in turn and every number
// out of range: RANKMAP_ERR_ARGUMENT (or the documented NULL / 0), the
// message naming the argument, no handle made, and nothing written to the
// caller's arrays. The handles are valid otherwise, so each call fails for
// the one reason given.
TEST(CApi, EveryEntryPointRefusesBadArguments) {
  Handles h;
  open_desmos(h);
  use_twelve_ranks(h);
  rankmap_error err{};
  const auto refused = [&](rankmap_status status, const char* says) {
    EXPECT_EQ(status, RANKMAP_ERR_ARGUMENT) << says << ": " << err.message;
    EXPECT_EQ(err.status, RANKMAP_ERR_ARGUMENT);
    EXPECT_NE(std::strstr(err.message, says), nullptr) << err.message;
    err = rankmap_error{};
  };
  rankmap_machine* m = reinterpret_cast<rankmap_machine*>(&err);  // not NULL: must be reset
  refused(rankmap_machine_load(nullptr, &m, &err), "toml_path is NULL");
  EXPECT_EQ(m, nullptr);
  refused(rankmap_machine_load(kDesmos.c_str(), nullptr, &err), "out is NULL");
  refused(rankmap_machine_parse(nullptr, &m, &err), "NULL");
  refused(rankmap_machine_parse("", nullptr, &err), "out is NULL");
  refused(rankmap_machine_create(nullptr, &m, &err), "spec is NULL");
  const int dims[] = {2, 2}, bad_dims[] = {2, -2};
  const rankmap_node_group group{"n[0-3]", "core:2"};
  rankmap_machine_spec spec{2, dims, nullptr, 100, 400, 400, 1, &group};
  refused(rankmap_machine_create(&spec, nullptr, &err), "out is NULL");
  for (const int nd : {0, 7, -1}) {
    spec.ndims = nd;
    refused(rankmap_machine_create(&spec, &m, &err), "ndims");
  }
  spec.ndims = 2, spec.dims = nullptr;
  refused(rankmap_machine_create(&spec, &m, &err), "dims");
  spec.dims = bad_dims;
  EXPECT_NE(rankmap_machine_create(&spec, &m, &err), RANKMAP_OK);
  spec.dims = dims, spec.groups = nullptr;
  refused(rankmap_machine_create(&spec, &m, &err), "groups");
  spec.groups = &group, spec.ngroups = -1;
  refused(rankmap_machine_create(&spec, &m, &err), "ngroups");
  spec.ngroups = 1;
  const rankmap_node_group no_hosts{nullptr, "core:2"};
  spec.groups = &no_hosts;
  refused(rankmap_machine_create(&spec, &m, &err), "hosts");
  EXPECT_EQ(m, nullptr);

  rankmap_graph* g = nullptr;
  refused(rankmap_graph_load(nullptr, &g, &err), "path is NULL");
  refused(rankmap_graph_load(kStencil.c_str(), nullptr, &err), "out is NULL");
  const uint64_t offsets[] = {0, 1, 1};
  const uint32_t targets[] = {1};
  const uint64_t bytes[] = {8};
  refused(rankmap_graph_create_csr(2, nullptr, targets, bytes, nullptr, &g, &err), "offsets is NULL");
  refused(rankmap_graph_create_csr(2, offsets, nullptr, bytes, nullptr, &g, &err), "targets is NULL");
  refused(rankmap_graph_create_csr(2, offsets, targets, nullptr, nullptr, &g, &err), "bytes is NULL");
  refused(rankmap_graph_create_csr(2, offsets, targets, bytes, nullptr, nullptr, &err), "out is NULL");
  EXPECT_EQ(g, nullptr);
  EXPECT_EQ(rankmap_graph_ranks(nullptr), 0u);

  rankmap_allocation* a = nullptr;
  refused(rankmap_allocation_create(nullptr, nullptr, 0, 0, &a, &err), "machine is NULL");
  refused(rankmap_allocation_create(h.machine, nullptr, 0, 0, nullptr, &err), "out is NULL");
  refused(rankmap_allocation_create(h.machine, nullptr, -1, 0, &a, &err), "ranks_per_node");
  EXPECT_EQ(a, nullptr);
  EXPECT_EQ(rankmap_allocation_nodes(nullptr), 0u);
  EXPECT_EQ(rankmap_allocation_slots(nullptr), 0u);
  EXPECT_EQ(rankmap_allocation_host(nullptr, 0), nullptr);
  EXPECT_EQ(rankmap_allocation_host(h.allocation, 8), nullptr);  // nodes 0 to 7
  EXPECT_STREQ(rankmap_allocation_host(h.allocation, 7), "node07");

  rankmap_context* c = nullptr;
  refused(rankmap_context_create("fast", 1, nullptr, &err), "out is NULL");
  refused(rankmap_context_load(nullptr, &c, &err), "toml_path is NULL");
  refused(rankmap_context_load("x.toml", nullptr, &err), "out is NULL");
  refused(rankmap_context_set_oversubscribe(nullptr, 1, &err), "context is NULL");
  EXPECT_EQ(c, nullptr);

  // The mapping calls: each handle and array NULL in turn, ranks 0 and
  // ranks other than the graph's; the caller's arrays stay untouched.
  std::vector<int32_t> host(12, -7), cpu(12, -7);
  const auto untouched = [&] {
    EXPECT_TRUE(std::all_of(host.begin(), host.end(), [](int32_t v) { return v == -7; }));
    EXPECT_TRUE(std::all_of(cpu.begin(), cpu.end(), [](int32_t v) { return v == -7; }));
  };
  refused(rankmap_map(nullptr, h.machine, h.allocation, h.context, 12, host.data(), cpu.data(), &err), "graph is NULL");
  refused(rankmap_map(h.graph, nullptr, h.allocation, h.context, 12, host.data(), cpu.data(), &err), "machine is NULL");
  refused(rankmap_map(h.graph, h.machine, nullptr, h.context, 12, host.data(), cpu.data(), &err), "allocation is NULL");
  refused(rankmap_map(h.graph, h.machine, h.allocation, nullptr, 12, host.data(), cpu.data(), &err), "context is NULL");
  refused(rankmap_map(h.graph, h.machine, h.allocation, h.context, 12, nullptr, cpu.data(), &err), "host is NULL");
  refused(rankmap_map(h.graph, h.machine, h.allocation, h.context, 12, host.data(), nullptr, &err), "cpu is NULL");
  refused(rankmap_map(h.graph, h.machine, h.allocation, h.context, 0, host.data(), cpu.data(), &err), "ranks is 0");
  refused(rankmap_map(h.graph, h.machine, h.allocation, h.context, 13, host.data(), cpu.data(), &err), "ranks is 13");
  refused(rankmap_map_block(nullptr, h.allocation, 12, host.data(), cpu.data(), &err), "graph is NULL");
  refused(rankmap_map_block(h.graph, nullptr, 12, host.data(), cpu.data(), &err), "allocation is NULL");
  refused(rankmap_map_block(h.graph, h.allocation, 12, nullptr, cpu.data(), &err), "host is NULL");
  refused(rankmap_map_block(h.graph, h.allocation, 12, host.data(), nullptr, &err), "cpu is NULL");
  refused(rankmap_map_block(h.graph, h.allocation, 11, host.data(), cpu.data(), &err), "ranks is 11");
  untouched();

  ASSERT_EQ(rankmap_map_block(h.graph, h.allocation, 12, host.data(), cpu.data(), &err), RANKMAP_OK);
  rankmap_scores s{};
  refused(rankmap_evaluate(nullptr, h.machine, h.allocation, 12, host.data(), cpu.data(), &s, &err), "graph is NULL");
  refused(rankmap_evaluate(h.graph, nullptr, h.allocation, 12, host.data(), cpu.data(), &s, &err), "machine is NULL");
  refused(rankmap_evaluate(h.graph, h.machine, nullptr, 12, host.data(), cpu.data(), &s, &err), "allocation is NULL");
  refused(rankmap_evaluate(h.graph, h.machine, h.allocation, 12, nullptr, cpu.data(), &s, &err), "host is NULL");
  refused(rankmap_evaluate(h.graph, h.machine, h.allocation, 12, host.data(), nullptr, &s, &err), "cpu is NULL");
  refused(rankmap_evaluate(h.graph, h.machine, h.allocation, 12, host.data(), cpu.data(), nullptr, &err),
          "scores is NULL");
  refused(rankmap_evaluate(h.graph, h.machine, h.allocation, 0, host.data(), cpu.data(), &s, &err), "ranks is 0");
  host[3] = -1;
  refused(rankmap_evaluate(h.graph, h.machine, h.allocation, 12, host.data(), cpu.data(), &s, &err), "host[3] = -1");
  host[3] = 0, cpu[3] = -1;
  refused(rankmap_evaluate(h.graph, h.machine, h.allocation, 12, host.data(), cpu.data(), &s, &err), "cpu[3] = -1");
  cpu[3] = 2 * 3;  // back to block's: node 0's fourth core
  double gain = 42;
  refused(rankmap_predict_gain(h.graph, h.machine, h.allocation, 12, host.data(), cpu.data(), 0.5, nullptr, &err),
          "gain is NULL");
  for (const double p : {-0.1, 1.1, std::nan("")})
    refused(rankmap_predict_gain(h.graph, h.machine, h.allocation, 12, host.data(), cpu.data(), p, &gain, &err),
            "p_mpi");
  EXPECT_EQ(gain, 42);
  test::TempDir dir;
  const std::string out = (dir.path() / "x.rf").string();
  refused(rankmap_write_launch_file(nullptr, h.allocation, 12, host.data(), cpu.data(), "openmpi", out.c_str(), &err),
          "machine is NULL");
  refused(rankmap_write_launch_file(h.machine, nullptr, 12, host.data(), cpu.data(), "openmpi", out.c_str(), &err),
          "allocation is NULL");
  refused(rankmap_write_launch_file(h.machine, h.allocation, 12, nullptr, cpu.data(), "openmpi", out.c_str(), &err),
          "host is NULL");
  refused(rankmap_write_launch_file(h.machine, h.allocation, 12, host.data(), nullptr, "openmpi", out.c_str(), &err),
          "cpu is NULL");
  refused(rankmap_write_launch_file(h.machine, h.allocation, 12, host.data(), cpu.data(), nullptr, out.c_str(), &err),
          "format is NULL");
  refused(rankmap_write_launch_file(h.machine, h.allocation, 12, host.data(), cpu.data(), "openmpi", nullptr, &err),
          "path is NULL");
  refused(rankmap_write_launch_file(h.machine, h.allocation, 0, host.data(), cpu.data(), "openmpi", out.c_str(), &err),
          "ranks is 0");
  EXPECT_FALSE(std::filesystem::exists(out));
  // The frees take NULL.
  rankmap_machine_free(nullptr), rankmap_graph_free(nullptr), rankmap_allocation_free(nullptr),
      rankmap_context_free(nullptr);
}

// Issue 29, point 10: an allocation keeps its machine alive; a CSR count
// beyond any graph is bad input, not an internal error; booleans are 0 or 1.
TEST(CApi, HandlesAndCountsOfIssue29) {
  rankmap_error err{};
  rankmap_machine* machine = nullptr;
  rankmap_allocation* allocation = nullptr;
  ASSERT_EQ(rankmap_machine_load(kDesmos.c_str(), &machine, &err), RANKMAP_OK) << err.message;
  ASSERT_EQ(rankmap_allocation_create(machine, "node[03-04]", 0, 0, &allocation, &err), RANKMAP_OK) << err.message;
  rankmap_machine_free(machine);  // first: the allocation still holds it (ASan would see a use after free)
  ASSERT_NE(rankmap_allocation_host(allocation, 1), nullptr);
  EXPECT_STREQ(rankmap_allocation_host(allocation, 0), "node03");
  EXPECT_STREQ(rankmap_allocation_host(allocation, 1), "node04");
  rankmap_allocation_free(allocation);

  const uint64_t offsets[] = {0, 1, UINT64_MAX};
  const uint32_t targets[] = {1};
  const uint64_t bytes[] = {8};
  rankmap_graph* graph = nullptr;
  EXPECT_EQ(rankmap_graph_create_csr(2, offsets, targets, bytes, nullptr, &graph, &err), RANKMAP_ERR_INPUT);
  EXPECT_EQ(graph, nullptr);
  EXPECT_STREQ(err.message, "offsets[2] is 18446744073709551615, more edges than a graph holds (4294967295)");

  Handles h;
  ASSERT_EQ(rankmap_machine_load(kDesmos.c_str(), &h.machine, &err), RANKMAP_OK) << err.message;
  EXPECT_EQ(rankmap_allocation_create(h.machine, nullptr, 0, 5, &h.allocation, &err), RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "hwthreads is 5, expected 0 or 1");
  const int dims[] = {2, 2};
  const int wrap[] = {1, 7};
  const rankmap_node_group group{"n[0-3]", "core:2"};
  const rankmap_machine_spec spec{2, dims, wrap, 100, 500, 500, 1, &group};
  rankmap_machine* built = nullptr;
  EXPECT_EQ(rankmap_machine_create(&spec, &built, &err), RANKMAP_ERR_ARGUMENT);
  EXPECT_STREQ(err.message, "spec->wrap[1] is 7, expected 0 or 1");
  EXPECT_EQ(built, nullptr);
}

// Issue 30's calls for a SPANK plugin, by hand on two nodes of two
// packages of two cores (OS CPUs 0,1 on package 0 and 2,3 on package 1).
TEST(CApi, BindingInsideNodesAndSlotCpus) {
  rankmap_error err{};
  const int dims[] = {2};
  const rankmap_node_group group{"n[0-1]", "package:2 core:2 pu:1"};
  const rankmap_machine_spec spec{1, dims, nullptr, 100, 500, 500, 1, &group};
  Handles h;
  ASSERT_EQ(rankmap_machine_create(&spec, &h.machine, &err), RANKMAP_OK) << err.message;
  ASSERT_EQ(rankmap_allocation_create(h.machine, nullptr, 0, 0, &h.allocation, &err), RANKMAP_OK) << err.message;
  // Ranks 0-3 on n0 and 4-7 on n1 (srun's block), 0<->2 and 1<->3 heavy:
  // in order, both pairs would straddle the packages.
  const uint64_t offsets[] = {0, 1, 2, 3, 4, 4, 4, 4, 4};
  const uint32_t targets[] = {2, 3, 0, 1};
  const uint64_t bytes[] = {1000, 1000, 1000, 1000};
  ASSERT_EQ(rankmap_graph_create_csr(8, offsets, targets, bytes, nullptr, &h.graph, &err), RANKMAP_OK);
  const int32_t host[] = {0, 0, 0, 0, 1, 1, 1, 1};
  int32_t cpu[8];
  ASSERT_EQ(rankmap_map_within_nodes(h.graph, h.machine, h.allocation, 8, host, cpu, &err), RANKMAP_OK) << err.message;
  std::vector<int32_t> on_n0(cpu, cpu + 4), on_n1(cpu + 4, cpu + 8);
  std::sort(on_n0.begin(), on_n0.end());
  std::sort(on_n1.begin(), on_n1.end());
  EXPECT_EQ(on_n0, (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(on_n1, (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(cpu[0] / 2, cpu[2] / 2);  // each heavy pair on one package
  EXPECT_EQ(cpu[1] / 2, cpu[3] / 2);
  // Where in order is already best (0<->1, 2<->3), it stays: CPUs 0,1,2,3.
  rankmap_graph_free(h.graph);
  const uint32_t paired[] = {1, 0, 3, 2};
  ASSERT_EQ(rankmap_graph_create_csr(8, offsets, paired, bytes, nullptr, &h.graph, &err), RANKMAP_OK);
  ASSERT_EQ(rankmap_map_within_nodes(h.graph, h.machine, h.allocation, 8, host, cpu, &err), RANKMAP_OK);
  EXPECT_EQ(std::vector<int32_t>(cpu, cpu + 8), (std::vector<int32_t>{0, 1, 2, 3, 0, 1, 2, 3}));
  // Five ranks on a node of four slots.
  const int32_t crowded[] = {0, 0, 0, 0, 0, 1, 1, 1};
  EXPECT_EQ(rankmap_map_within_nodes(h.graph, h.machine, h.allocation, 8, crowded, cpu, &err), RANKMAP_ERR_FIT);

  // Two ranks a node: slots are blocks of two cores, {0,1} and {2,3}.
  rankmap_allocation* two = nullptr;
  ASSERT_EQ(rankmap_allocation_create(h.machine, "n1", 2, 0, &two, &err), RANKMAP_OK) << err.message;
  int32_t cpus[4] = {-1, -1, -1, -1};
  size_t count = 0;
  ASSERT_EQ(rankmap_slot_cpus(two, 0, 2, cpus, 4, &count, &err), RANKMAP_OK) << err.message;
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(cpus[0], 2);
  EXPECT_EQ(cpus[1], 3);
  cpus[0] = cpus[1] = -1;
  ASSERT_EQ(rankmap_slot_cpus(two, 0, 0, cpus, 1, &count, &err), RANKMAP_OK);
  EXPECT_EQ(count, 2u);  // the whole count, one written
  EXPECT_EQ(cpus[0], 0);
  EXPECT_EQ(cpus[1], -1);
  EXPECT_EQ(rankmap_slot_cpus(two, 0, 1, cpus, 4, &count, &err), RANKMAP_ERR_ARGUMENT);  // not a slot's first CPU
  EXPECT_EQ(rankmap_slot_cpus(two, 1, 0, cpus, 4, &count, &err), RANKMAP_ERR_ARGUMENT);  // no node 1
  rankmap_allocation_free(two);

  // Hybrid ranks of two cores: one a package, {0,1} and {2,3}; of three
  // cores, one a node (it cannot stay in one package), and two do not fit.
  rankmap_allocation* hybrid = nullptr;
  ASSERT_EQ(rankmap_allocation_create_hybrid(h.machine, "n[0-1]", 0, 2, 0, &hybrid, &err), RANKMAP_OK) << err.message;
  EXPECT_EQ(rankmap_allocation_slots(hybrid), 4u);
  ASSERT_EQ(rankmap_slot_cpus(hybrid, 1, 2, cpus, 4, &count, &err), RANKMAP_OK) << err.message;
  EXPECT_EQ(std::vector<int32_t>(cpus, cpus + count), (std::vector<int32_t>{2, 3}));
  rankmap_allocation_free(hybrid);
  ASSERT_EQ(rankmap_allocation_create_hybrid(h.machine, nullptr, 0, 3, 0, &hybrid, &err), RANKMAP_OK) << err.message;
  EXPECT_EQ(rankmap_allocation_slots(hybrid), 2u);
  ASSERT_EQ(rankmap_slot_cpus(hybrid, 0, 0, cpus, 4, &count, &err), RANKMAP_OK) << err.message;
  EXPECT_EQ(std::vector<int32_t>(cpus, cpus + count), (std::vector<int32_t>{0, 1, 2}));
  rankmap_allocation_free(hybrid);
  hybrid = nullptr;
  EXPECT_EQ(rankmap_allocation_create_hybrid(h.machine, nullptr, 2, 3, 0, &hybrid, &err), RANKMAP_ERR_FIT);
  EXPECT_STREQ(err.message,
               "cpus_per_rank: 2 ranks of 3 cores do not fit host 'n0', which has 4 cores and 4 hardware threads");
  EXPECT_EQ(hybrid, nullptr);
}
