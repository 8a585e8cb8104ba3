// Context::threads: the same mapping and the same scores for any number of
// threads, and the job runner's own rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/workers.hpp"
#include "graph/undirected.hpp"
#include "helpers.hpp"
#include "machine/node_geometry.hpp"
#include "map/engine.hpp"
#include "rankmap/baseline.hpp"
#include "rankmap/generate.hpp"
#include "rankmap/map.hpp"
#include "rankmap/metrics.hpp"

using namespace rankmap;

// Several families, a whole and a partial allocation, every preset: the
// mapping with 2 and 8 threads is the one with 1 (trials run a batch at a
// time, and patience stops after the same trial). One test a family, so
// that ctest runs them side by side.
namespace {

const Machine& threads_machine() {
  static const Machine m = test::make_machine("[4, 4, 4]", "", "n[00-63]", "package:2 core:2 pu:1");
  return m;
}

struct ThreadsCase {
  const char* name;
  Graph (*graph)();
  bool on_part;  // the 8 nodes below, else every node
};

void expect_same_mapping_for_one_two_and_eight_threads(const ThreadsCase& c) {
  const Machine& m = threads_machine();
  const Allocation allocation =
      c.on_part ? make_allocation(m, {{"n00", "n01", "n02", "n05", "n17", "n18", "n21", "n40"}, 0, false})
                : make_allocation(m, {});
  const Graph graph = c.graph();
  for (const std::string& preset : preset_names()) {
    // The quality preset only tries more of the same under ASan.
    if (test::kSanitized && preset == "quality") continue;
    Context context = create_context(preset);
    context.seed = 11;
    context.threads = 1;
    const Mapping one = map(graph, m, allocation, context);
    verify_mapping(one, allocation, graph.ranks, preset);
    for (int threads : {2, 8}) {
      context.threads = threads;
      EXPECT_EQ(map(graph, m, allocation, context), one) << c.name << ", " << preset << ", " << threads;
    }
  }
}

// The case's name where ctest lists the test (not its bytes).
void PrintTo(const ThreadsCase& c, std::ostream* out) { *out << c.name; }

class SameMappingForOneTwoAndEightThreads : public ::testing::TestWithParam<ThreadsCase> {};

TEST_P(SameMappingForOneTwoAndEightThreads, EveryPreset) {
  expect_same_mapping_for_one_two_and_eight_threads(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Threads, SameMappingForOneTwoAndEightThreads,
    ::testing::Values(ThreadsCase{"RenumberedStencil",
                                  [] {
                                    return renumber_ranks(make_stencil({{8, 8, 4}, false, false, 100}), 3);
                                  },
                                  false},
                      ThreadsCase{"Irregular",
                                  [] {
                                    return make_irregular({256, 32, 1024, 7});
                                  },
                                  false},
                      ThreadsCase{"Geometric",
                                  [] {
                                    return make_geometric({200, 8, 1 << 16, 5});
                                  },
                                  false},
                      ThreadsCase{"RowAllToAll",
                                  [] {
                                    return renumber_ranks(make_row_alltoall({16, 16, 1024, 0}), 2);
                                  },
                                  false},
                      ThreadsCase{"IrregularOnPart",
                                  [] {
                                    return make_irregular({24, 32, 1024, 9});
                                  },
                                  true}),
    [](const ::testing::TestParamInfo<ThreadsCase>& info) { return std::string(info.param.name); });

}  // namespace

// A profile's candidates are timed by the flow model after block, a batch
// at a time, a candidate a thread; each stops at the fastest of the
// batches before its own. A 24-rank irregular graph on 16 nodes of 2
// cores (fewer ranks than slots: round-robin and the spread node sets
// join the candidates): the same lines, so the same times and stops, and
// the same mapping for 1, 2 and 8 threads, with more candidates timed or
// stopped than one batch holds.
TEST(Threads, SameTimesAndStopsForAnyNumberOfThreads) {
  Machine m = test::make_machine("[4, 4]", "", "n[00-15]", "core:2");
  m.network.link_gbps = 8;
  const Allocation a = make_allocation(m, {});
  const Graph g = make_irregular({24, 16, 1 << 16, 3});
  TrafficKinds kinds;
  kinds.p2p = &g;
  const auto run = [&](int threads, std::vector<std::string>& lines) {
    Context context = create_context("default");
    context.threads = threads;
    const StageCallback collect = [&](std::string_view stage) {
      if (stage.starts_with("timed ") || stage.starts_with("stopped timing ") || stage.starts_with("not timed "))
        lines.emplace_back(stage);
    };
    return map_explained(g, m, a, context, collect, kinds);
  };
  std::vector<std::string> one_lines;
  const MapResult one = run(1, one_lines);
  ASSERT_GT(one_lines.size(), 1 + 4u);  // block, then more than a batch of 4
  for (int threads : {2, 8}) {
    std::vector<std::string> lines;
    const MapResult more = run(threads, lines);
    EXPECT_EQ(lines, one_lines) << threads;
    EXPECT_EQ(more.mapping, one.mapping) << threads;
    EXPECT_EQ(more.kept, one.kept) << threads;
  }
}

// From 65,536 ranks the nodes' slots are chosen a range of nodes a thread
// (a renumbered 64x32x32 stencil on 4,096 nodes of 2 x 8 cores).
TEST(Threads, SameSlotsOnLargeJobsForAnyNumberOfThreads) {
  const Graph g = renumber_ranks(make_stencil({{64, 32, 32}, false, false, 5}), 4);
  const Machine m = test::make_machine("[16, 16, 16]", "", "n[0000-4095]", "package:2 core:8 pu:1");
  const Allocation a = make_allocation(m, {});
  Context context = create_context("fast");
  context.threads = 1;
  const Mapping one = map(g, m, a, context);
  for (int threads : {2, 3}) {
    context.threads = threads;
    EXPECT_EQ(map(g, m, a, context), one) << threads;
  }
}

// Scores of a graph past kParallelEdges (a 27-point 64x64x44 stencil: 4.5
// million edges) are split into a range a thread: the same for 1, 2 and 3.
TEST(Threads, SameScoresForAnyNumberOfThreads) {
  const Graph g = make_stencil({{64, 64, 44}, true, false, 3});
  ASSERT_GE(g.num_edges(), detail::kParallelEdges);
  const Machine m = test::make_machine("[16, 16, 11]", "", "n[0000-2815]", "package:2 core:32 pu:1");
  const Allocation a = make_allocation(m, {});
  const Mapping rr = baseline_mapping(Baseline::rr, a, g.ranks);
  const Metrics one = evaluate(g, m, a, rr, 1);
  for (int threads : {2, 3}) {
    const Metrics more = evaluate(g, m, a, rr, threads);
    EXPECT_EQ(more.hop_bytes, one.hop_bytes) << threads;
    EXPECT_EQ(more.inter_node_bytes, one.inter_node_bytes) << threads;
    EXPECT_EQ(more.cross_socket_bytes, one.cross_socket_bytes) << threads;
    EXPECT_EQ(more.max_link_bytes, one.max_link_bytes) << threads;
    EXPECT_EQ(more.link_bytes, one.link_bytes) << threads;
    EXPECT_EQ(more.bytes_at_hops, one.bytes_at_hops) << threads;
  }
}

// Making a large graph undirected splits its rows into a range a thread,
// each finding the reverses of its own rows' edges. A renumbered 27-point
// stencil of 3 bytes an edge gives 6 on every pair; with one rank's edge
// to a lower rank left out, or a lower rank's edge to it (a late rank, so
// a range other than the first owns the pair), that pair is 3 at both
// ends: those two graphs are not symmetric, and go through the transpose,
// which splits the receivers and then the rows into a range a thread. The
// same for 1, 2 and 3 threads. (Under AddressSanitizer each call took 32 s:
// there the symmetric graph runs on 1 and 3 threads and the others on 3,
// each path of the split once; the release build runs all nine.)
TEST(Threads, SameUndirectedGraphForAnyNumberOfThreads) {
  const Graph whole = renumber_ranks(make_stencil({{64, 64, 44}, true, false, 3}), 4);
  ASSERT_GE(whole.num_edges(), detail::kParallelEdges);
  const std::uint32_t late = whole.ranks - 10;
  const std::uint32_t lower = whole.targets[whole.offsets[late]];  // rows ascend: its least neighbour
  ASSERT_LT(lower, late);
  // Its greatest lower neighbour: an edge from it left out is seen only by
  // the check that every entry of a row was some reverse.
  const auto row = whole.targets.begin() + static_cast<std::ptrdiff_t>(whole.offsets[late]);
  const std::uint32_t greatest =
      *(std::lower_bound(row, whole.targets.begin() + static_cast<std::ptrdiff_t>(whole.offsets[late + 1]), late) - 1);
  // Without late's edge to lower, and without greatest's edge to late.
  auto without = [&](std::uint32_t from, std::uint32_t to) {
    GraphBuilder b(whole.ranks);
    for (std::uint32_t r = 0; r < whole.ranks; ++r)
      for (std::uint64_t e = whole.offsets[r]; e < whole.offsets[r + 1]; ++e)
        if (!(r == from && whole.targets[e] == to)) b.add(r, whole.targets[e], whole.bytes[e], whole.msgs[e]);
    return b.build();
  };
  const Graph down = without(late, lower), up = without(greatest, late);
  for (const Graph* g : {&whole, &down, &up}) {
    std::optional<detail::UndirectedGraph> first;
    for (int threads : {1, 2, 3}) {
      if (test::kSanitized && (threads == 2 || (threads == 1 && g != &whole))) continue;
      const detail::ThreadsScope scope(threads);
      detail::UndirectedGraph u = detail::make_undirected(*g);
      ASSERT_EQ(u.xadj, whole.offsets) << threads;  // every pair is kept
      // Counted, then asserted once: a failure names the first wrong pair.
      std::uint64_t wrong = 0;
      std::string first_wrong;
      for (std::uint32_t r = 0; r < u.n; ++r)
        for (std::uint64_t e = u.xadj[r]; e < u.xadj[r + 1]; ++e) {
          const auto pair = std::minmax(r, u.adjncy[e]);
          const bool cut =
              (g == &down && pair == std::minmax(late, lower)) || (g == &up && pair == std::minmax(late, greatest));
          if (u.weight[e] != (cut ? 3u : 6u) && wrong++ == 0)
            first_wrong = std::to_string(r) + " " + std::to_string(u.adjncy[e]) + ": " + std::to_string(u.weight[e]);
        }
      ASSERT_EQ(wrong, 0u) << threads << " threads; the first: " << first_wrong;
      if (first)
        EXPECT_EQ(u.adjncy, first->adjncy) << threads;
      else
        first = std::move(u);
    }
  }
}

// The hierarchy (4,096 nodes) and the joint recursive bisection (512
// nodes) cut a level's groups a group a thread once the level has 2^18 edge
// ends: a 32,768-rank particle graph has 327,000. Every node gets exactly
// its ranks, and the parts are the same for 1, 2 and 3 threads.
TEST(Threads, SameCutsOfTheHierarchyForAnyNumberOfThreads) {
  const detail::UndirectedGraph g = detail::make_undirected(make_geometric({32768, 10, 1000, 9}));
  ASSERT_GE(g.xadj[g.n], std::uint64_t{1} << 18);
  const Machine wide = test::make_machine("[16, 16, 16]", "", "n[0000-4095]", "package:1 core:8 pu:1");
  const Machine few = test::make_machine("[8, 8, 8]", "", "n[000-511]", "package:1 core:64 pu:1");
  for (const Machine* m : {&wide, &few}) {
    const Allocation a = make_allocation(*m, {});
    const detail::NodeGeometry geo(*m, a);
    const std::vector<std::uint32_t> sizes(a.nodes.size(), g.n / static_cast<std::uint32_t>(a.nodes.size()));
    std::vector<int> used(a.nodes.size());
    std::iota(used.begin(), used.end(), 0);
    std::optional<std::vector<int>> first;
    for (int threads : {1, 2, 3}) {
      const detail::ThreadsScope scope(threads);
      const std::vector<int> part = m == &wide ? detail::partition_hierarchy(g, sizes, used, geo, 4)
                                               : detail::partition_recursive_bisection(g, sizes, used, geo, 4, 1);
      std::vector<std::uint32_t> count(sizes.size(), 0);
      for (int p : part) ++count[static_cast<std::size_t>(p)];
      ASSERT_EQ(count, sizes) << threads;
      if (first)
        EXPECT_EQ(part, *first) << threads;
      else
        first = part;
    }
  }
}

// Ranges cover [0, n) once each, whatever their number; the sum is
// n (n - 1) / 2 worked out apart from them.
TEST(Threads, RangesCoverEveryVertexOnce) {
  const std::uint32_t n = 100'003;
  for (int threads : {1, 2, 3, 8}) {
    const detail::ThreadsScope scope(threads);
    const std::uint64_t sum = detail::sum_over_ranges(n, detail::kParallelEdges, [](std::uint32_t b, std::uint32_t e) {
      std::uint64_t s = 0;
      for (std::uint32_t v = b; v < e; ++v) s += v;
      return s;
    });
    EXPECT_EQ(sum, std::uint64_t{n} * (n - 1) / 2) << threads;
  }
}

// Every job runs once; of several that throw, the lowest index's error is
// the one seen, for any number of threads.
TEST(Threads, JobsRunOnceAndTheFirstErrorWins) {
  for (int threads : {1, 2, 8}) {
    std::vector<std::atomic<int>> runs(50);
    detail::run_jobs(threads, runs.size(), [&](std::size_t i) { ++runs[i]; });
    for (const auto& r : runs) EXPECT_EQ(r.load(), 1) << threads;
    try {
      detail::run_jobs(threads, 50, [](std::size_t i) {
        if (i == 7 || i == 30) throw std::runtime_error("job " + std::to_string(i));
      });
      ADD_FAILURE() << "no error, " << threads << " threads";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "job 7") << threads;
    }
  }
}
