#include "core/workers.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>

namespace rankmap::detail {

namespace {
thread_local int scope_threads = 0;
}  // namespace

ThreadsScope::ThreadsScope(int threads) : saved_(scope_threads) { scope_threads = threads; }
ThreadsScope::~ThreadsScope() { scope_threads = saved_; }
int scoped_threads() { return usable_threads(scope_threads); }

int usable_threads(int asked) {
  if (asked > 0) return asked;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void run_jobs(int threads, std::size_t jobs, const std::function<void(std::size_t)>& job) {
  const std::size_t workers = std::min<std::size_t>(static_cast<std::size_t>(usable_threads(threads)), jobs);
  if (workers <= 1) {
    for (std::size_t i = 0; i < jobs; ++i) job(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<std::exception_ptr> errors(jobs);
  const int inherited = scope_threads;
  auto work = [&] {
    const ThreadsScope scope(inherited);
    for (std::size_t i; !failed.load() && (i = next.fetch_add(1)) < jobs;) {
      try {
        job(i);
      } catch (...) {
        errors[i] = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> others;
  others.reserve(workers - 1);
  // A thread the system refuses (a limit on processes, say) is not an
  // error: the threads started, this one among them, take its jobs.
  for (std::size_t w = 1; w < workers; ++w) {
    try {
      others.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (std::thread& t : others) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace rankmap::detail
