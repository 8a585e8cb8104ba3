// The engine's threads (Context::threads): independent jobs on up to N of
// them, each writing its result by index, and passes over a graph's
// vertices in N ranges whose results are added up. What is computed never
// depends on N. Internal to libmap.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace rankmap::detail {

// `asked` threads, or with 0 the CPUs this process may run on (its
// affinity mask, as Slurm and mpirun set it), at least 1.
int usable_threads(int asked);

// The threads that passes and jobs started on this thread may use: map()
// and evaluate() open a scope with their caller's count for their run, and
// run_jobs() gives its workers the same. Outside any scope: every CPU.
class ThreadsScope {
 public:
  explicit ThreadsScope(int threads);
  ~ThreadsScope();
  ThreadsScope(const ThreadsScope&) = delete;
  ThreadsScope& operator=(const ThreadsScope&) = delete;

 private:
  int saved_;
};
int scoped_threads();  // usable_threads() of the innermost scope's count

// job(i) for every i < jobs, on up to `threads` threads, this one among
// them; jobs are taken in index order as threads free up. An exception
// stops the taking; the one of the lowest job index is rethrown once every
// thread has stopped.
void run_jobs(int threads, std::size_t jobs, const std::function<void(std::size_t)>& job);

// Graphs with fewer edges (both directions) than this are passed over on
// one thread: a thread costs more than it saves.
constexpr std::uint64_t kParallelEdges = std::uint64_t{1} << 22;

// How many ranges to cut [0, n) into: scoped_threads() when `parallel` (a
// caller's size test), never more than n, at least 1.
inline std::size_t ranges_for(std::size_t n, bool parallel) {
  return parallel ? std::max<std::size_t>(1, std::min<std::size_t>(n, static_cast<std::size_t>(scoped_threads()))) : 1;
}

// fn(range, begin, end) for `ranges` contiguous ranges of [0, n) that cover
// it once, a range a thread.
template <class Fn>
void for_each_range(std::size_t n, std::size_t ranges, Fn&& fn) {
  run_jobs(static_cast<int>(ranges), ranges, [&](std::size_t i) { fn(i, n * i / ranges, n * (i + 1) / ranges); });
}

// pass(begin, end) over ranges of [0, n) (one on small graphs), added up in
// range order. The passes over a million ranks' edges are cache misses,
// which several cores overlap. For results that are sums (or other exact
// merges), so the answer is the same for any number of threads.
template <class Pass>
auto sum_over_ranges(std::uint32_t n, std::uint64_t edges, Pass&& pass) {
  const std::size_t ranges = ranges_for(n, edges >= kParallelEdges);
  if (ranges == 1) return pass(std::uint32_t{0}, n);
  using Result = decltype(pass(std::uint32_t{0}, n));
  std::vector<Result> parts(ranges);
  for_each_range(n, ranges, [&](std::size_t i, std::size_t begin, std::size_t end) {
    parts[i] = pass(static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end));
  });
  Result total = parts[0];
  for (std::size_t i = 1; i < ranges; ++i) total = total + parts[i];
  return total;
}

}  // namespace rankmap::detail
