// A pass over a large graph's vertices on two threads, half each: the
// passes over a million ranks' edges are cache misses, which two cores
// overlap. Used where each half's result is a sum, so that the answer is the
// same on one thread or two. Internal to libmap.
#pragma once

#include <cstdint>
#include <future>

namespace rankmap::detail {

// Graphs with at least this many edges (both directions) take two threads.
constexpr std::uint64_t kTwoThreadEdges = std::uint64_t{1} << 22;

// pass(0, n) on this thread for small graphs; else pass(0, n / 2) on a
// second thread and pass(n / 2, n) on this one, added together.
template <class Pass>
auto sum_over_halves(std::uint32_t n, std::uint64_t edges, Pass&& pass) {
  if (edges < kTwoThreadEdges) return pass(std::uint32_t{0}, n);
  auto first = std::async(std::launch::async, [&] { return pass(std::uint32_t{0}, n / 2); });
  auto second = pass(n / 2, n);
  return first.get() + second;
}

}  // namespace rankmap::detail
