// METIS on several threads at once (partition/metis_threads.hpp): a thread's
// own random numbers, the same as glibc's, a cut the same as the call gives
// alone, the process's signal handlers and rand() sequence left as they were.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <thread>
#include <vector>

#include "graph/undirected.hpp"
#include "partition/metis.hpp"
#include "partition/metis_threads.hpp"
#include "rankmap/generate.hpp"

using namespace rankmap;

namespace {

// glibc's own reentrant generator, on a state of 128 bytes (TYPE_3, the one
// rand() uses): a second implementation to hold GlibcRandom to.
struct GlibcReference {
  char state[128] = {};
  random_data data{};
  explicit GlibcReference(unsigned seed) { initstate_r(seed, state, sizeof state, &data); }
  int next() {
    std::int32_t out = 0;
    random_r(&data, &out);
    return out;
  }
};

void on_signal(int /*sig*/) {}

}  // namespace

TEST(MetisThreads, TheSequenceIsGlibcs) {
  for (unsigned seed : {0u, 1u, 2u, 4321u, 2147483646u, 4000000000u}) {
    detail::GlibcRandom ours(seed);
    GlibcReference glibc(seed);
    for (int i = 0; i < 2000; ++i) ASSERT_EQ(ours.next(), glibc.next()) << "seed " << seed << ", draw " << i;
  }
}

// Outside a METIS call, rand() is libc's; METIS's calls no longer reseed
// the process's sequence (they did: every call begins with srand).
TEST(MetisThreads, TheProcesssRandIsLeftAlone) {
  ASSERT_TRUE(detail::MetisCall::may_overlap());
  const detail::UndirectedGraph g = detail::make_undirected(make_geometric({200, 8, 1000, 3}));
  std::srand(77);
  const int first = std::rand();
  detail::metis_split(g, {50, 50, 100}, 5, 2, false, detail::VertexOrder::drawn);
  const int second = std::rand();
  GlibcReference glibc(77);
  EXPECT_EQ(first, glibc.next());
  EXPECT_EQ(second, glibc.next());
}

// Eight threads cut eight graphs twenty times each, all at once: every cut
// is the one the same call gives on its own, and the SIGABRT and SIGTERM
// handlers set before are the ones set after.
TEST(MetisThreads, CallsAtOnceGiveTheirOwnCutsAndLeaveTheHandlers) {
  ASSERT_TRUE(detail::MetisCall::may_overlap());
  const std::size_t threads = 8;
  std::vector<detail::UndirectedGraph> graphs;
  std::vector<std::vector<int>> alone;
  for (std::size_t t = 0; t < threads; ++t) {
    graphs.push_back(detail::make_undirected(make_irregular({96, 16, 100, 10 + t})));
    alone.push_back(detail::metis_split(graphs[t], {24, 24, 24, 24}, t, 1, t % 2 == 0, detail::VertexOrder::drawn));
  }
  const auto abrt = std::signal(SIGABRT, on_signal);
  const auto term = std::signal(SIGTERM, on_signal);
  std::vector<int> differ(threads, 0);
  std::vector<std::thread> running;
  for (std::size_t t = 0; t < threads; ++t)
    running.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round)
        if (detail::metis_split(graphs[t], {24, 24, 24, 24}, t, 1, t % 2 == 0, detail::VertexOrder::drawn) != alone[t])
          ++differ[t];
    });
  for (std::thread& r : running) r.join();
  EXPECT_EQ(std::signal(SIGABRT, abrt), &on_signal);
  EXPECT_EQ(std::signal(SIGTERM, term), &on_signal);
  for (std::size_t t = 0; t < threads; ++t) EXPECT_EQ(differ[t], 0) << "thread " << t;
}
