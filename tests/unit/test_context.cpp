// The engine's settings: presets are the default with named overrides, and
// every boolean setting changes what the engine tries.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "helpers.hpp"
#include "rankmap/context.hpp"
#include "rankmap/generate.hpp"
#include "rankmap/map.hpp"
#include "rankmap/metrics.hpp"

using namespace rankmap;

namespace {

// "section.key" -> value of every setting in a dump.
std::map<std::string, std::string> settings_of(const Context& c) {
  std::map<std::string, std::string> out;
  std::istringstream in(dump_context(c));
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      section = line.substr(1, line.size() - 2) + ".";
      continue;
    }
    const auto eq = line.find(" = ");
    out[section + line.substr(0, eq)] = line.substr(eq + 3);
  }
  return out;
}

// The settings in which `c` differs from the default context.
std::set<std::string> overrides_of(const Context& c) {
  const auto mine = settings_of(c), base = settings_of(Context{});
  std::set<std::string> keys;
  for (const auto& [key, value] : mine)
    if (key != "preset" && base.at(key) != value) keys.insert(key);
  return keys;
}

// What the engine tried: every stage line it reported.
std::vector<std::string> stages_of(const Graph& g, const Machine& m, const Allocation& a, const Context& c) {
  std::vector<std::string> lines;
  map(g, m, a, c, [&](std::string_view s) { lines.emplace_back(s); });
  return lines;
}

std::size_t count_with(const std::vector<std::string>& lines, const std::string& part) {
  return static_cast<std::size_t>(std::count_if(
      lines.begin(), lines.end(), [&](const std::string& l) { return l.find(part) != std::string::npos; }));
}

// 16 nodes of 2 packages x 2 cores on a 4x4 torus.
struct Case {
  Machine machine = test::make_machine("[4, 4]", "", "n[00-15]", "package:2 core:2 pu:1");
  Allocation allocation = make_allocation(machine, {});
  Graph irregular = make_geometric({64, 6, 1 << 20, 3});
  Graph grid = make_stencil({{8, 8}, false, false, 1000});
};

}  // namespace

TEST(Context, PresetsAreTheDefaultWithNamedOverrides) {
  EXPECT_EQ(dump_context(create_context("default")), dump_context(Context{}));
  EXPECT_EQ(
      overrides_of(create_context("fast")),
      (std::set<std::string>{"partition.metis_kway", "partition.bisection_cuts", "partition.coarsen_to",
                             "partition.trials", "placement.greedy", "placement.swap_passes",
                             "refinement.rank_swap_passes", "refinement.rank_moves", "refinement.program_swaps"}));
  EXPECT_EQ(
      overrides_of(create_context("quality")),
      (std::set<std::string>{"partition.scotch", "partition.metis_cuts", "partition.patience", "partition.coarsen_to",
                             "partition.grid_only", "partition.trials", "partition.default_candidate",
                             "placement.swap_passes", "refinement.rank_swap_passes", "refinement.program_swaps"}));
  EXPECT_EQ(preset_names(), (std::vector<std::string>{"fast", "default", "quality"}));
  for (const auto& name : preset_names()) EXPECT_EQ(create_context(name).preset, name);
}

TEST(Context, UnknownPresetIsAnArgumentError) {
  try {
    create_context("turbo");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::argument);
    EXPECT_EQ(e.parameter(), "preset");
    EXPECT_STREQ(e.what(), "preset: unknown preset 'turbo' (expected fast, default or quality)");
    EXPECT_EQ(e.what_with_parameter_called("--preset"),
              "--preset: unknown preset 'turbo' (expected fast, default or quality)");
  }
}

// Each partitioner's switch adds or removes its candidates.
TEST(ContextSettingsChangeWhatIsTried, Partitioners) {
  const Case k;
  const Context base = create_context("default");
  const auto tried = stages_of(k.irregular, k.machine, k.allocation, base);
  ASSERT_GT(count_with(tried, "candidate METIS k-way"), 0u);
  ASSERT_GT(count_with(tried, "candidate recursive bisection"), 0u);
  ASSERT_EQ(count_with(tried, "candidate Scotch"), 0u);

  Context c = base;
  c.partition.metis_kway = false;
  EXPECT_EQ(count_with(stages_of(k.irregular, k.machine, k.allocation, c), "candidate METIS k-way"), 0u);
  c = base;
  c.partition.recursive_bisection = false;
  EXPECT_EQ(count_with(stages_of(k.irregular, k.machine, k.allocation, c), "candidate recursive bisection"), 0u);
  c = base;
  c.partition.scotch = true;
  EXPECT_GT(count_with(stages_of(k.irregular, k.machine, k.allocation, c), "candidate Scotch"), 0u);
}

// On a grid: `cartesian` makes the box layouts, `grid_only` then skips the
// partitioners. Without `grid_only` they run on small grids (8x8), not on
// large ones (192x192: 2^17 edge ends).
TEST(ContextSettingsChangeWhatIsTried, GridLayouts) {
  const Case k;
  const Context base = create_context("default");
  const auto tried = stages_of(k.grid, k.machine, k.allocation, base);
  ASSERT_EQ(count_with(tried, "candidate Cartesian"), 1u);
  ASSERT_EQ(count_with(tried, "partitioned "), 0u);

  Context c = base;
  c.partition.cartesian = false;
  const auto without = stages_of(k.grid, k.machine, k.allocation, c);
  EXPECT_EQ(count_with(without, "candidate Cartesian"), 0u);
  EXPECT_GT(count_with(without, "partitioned "), 0u);
  c = base;
  c.partition.grid_only = false;
  const auto also = stages_of(k.grid, k.machine, k.allocation, c);
  EXPECT_EQ(count_with(also, "candidate Cartesian"), 1u);
  EXPECT_GT(count_with(also, "partitioned "), 0u);
  const Machine wide = test::make_machine("[8, 8]", "", "n[00-63]", "package:2 core:288 pu:1");
  const Graph large = make_stencil({{192, 192}, false, false, 1000});
  const auto kept = stages_of(large, wide, make_allocation(wide, {}), c);
  EXPECT_EQ(count_with(kept, "candidate Cartesian"), 1u);
  EXPECT_EQ(count_with(kept, "partitioned "), 0u);
}

// `patience` stops the trials once that many in a row found nothing better
// than the best so far; without it every trial runs.
TEST(ContextSettingsChangeWhatIsTried, Patience) {
  const Case k;
  Context c = create_context("default");
  c.partition.metis_kway = false;  // one partitioner: one "partitioned" a trial
  c.partition.trials = 16;
  const auto all = stages_of(k.irregular, k.machine, k.allocation, c);
  EXPECT_EQ(count_with(all, "partitioned "), 16u);
  EXPECT_EQ(count_with(all, "stopped after"), 0u);
  c.partition.patience = 1;
  const auto patient = stages_of(k.irregular, k.machine, k.allocation, c);
  const std::size_t ran = count_with(patient, "partitioned ");
  EXPECT_LT(ran, 16u);
  EXPECT_EQ(count_with(patient, "stopped after " + std::to_string(ran) + " trials"), 1u);
}

// Each placement start is one more start compared after its swaps.
TEST(ContextSettingsChangeWhatIsTried, PlacementStarts) {
  const Case k;
  const Context base = create_context("default");
  const std::size_t starts = count_with(stages_of(k.irregular, k.machine, k.allocation, base), "placement start of");
  Context c = base;
  c.placement.greedy = false;
  EXPECT_LT(count_with(stages_of(k.irregular, k.machine, k.allocation, c), "placement start of"), starts);
  c = base;
  c.placement.cuthill_mckee = false;
  EXPECT_LT(count_with(stages_of(k.irregular, k.machine, k.allocation, c), "placement start of"), starts);
  c = base;
  c.placement.rank_order = false;
  EXPECT_LT(count_with(stages_of(k.irregular, k.machine, k.allocation, c), "placement start of"), starts);
}

// within_node splits each node's ranks over its packages: never more
// cross-package bytes than cores taken in rank order, and here fewer.
TEST(ContextSettingsChangeWhatIsTried, WithinNode) {
  const Case k;
  Context c = create_context("default");
  const Mapping split = map(k.irregular, k.machine, k.allocation, c);
  c.within_node = false;
  const Mapping in_order = map(k.irregular, k.machine, k.allocation, c);
  const Metrics a = evaluate(k.irregular, k.machine, k.allocation, split);
  const Metrics b = evaluate(k.irregular, k.machine, k.allocation, in_order);
  EXPECT_EQ(a.inter_node_bytes, b.inter_node_bytes);  // the same nodes, only the cores differ
  EXPECT_LT(a.cross_socket_bytes, b.cross_socket_bytes);
}

TEST(ContextSettingsChangeWhatIsTried, Oversubscribe) {
  const Case k;
  const Graph more = make_stencil({{80}, false, false, 1});  // 80 ranks, 64 slots
  Context c = create_context("default");
  try {
    map(more, k.machine, k.allocation, c);
    ADD_FAILURE() << "80 ranks mapped onto 64 slots";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::fit);
    EXPECT_STREQ(e.what(), "80 ranks do not fit the 64 slots of 16 nodes");
  }
  c.oversubscribe = true;
  const Mapping m = map(more, k.machine, k.allocation, c);
  EXPECT_NO_THROW(verify_mapping(m, k.allocation, 80, "oversubscribed"));
}
