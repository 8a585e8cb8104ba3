#include "core/background_fault.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <system_error>

namespace rankmap::detail {

namespace {
constexpr std::size_t kSlice = std::size_t{2} << 20;          // one huge page
constexpr std::size_t kWorthAThread = std::size_t{64} << 20;  // below: fault inline
}  // namespace

BackgroundFault::BackgroundFault(std::vector<Range> ranges) : ranges_(std::move(ranges)) {
#ifdef MADV_POPULATE_WRITE
  std::size_t total = 0;
  for (const Range& r : ranges_) total += r.bytes;
  if (total < kWorthAThread) return;
  try {
    worker_ = std::thread([this] { run(); });
  } catch (const std::system_error&) {
    // No thread: the filling thread faults the pages itself.
  }
#endif
}

BackgroundFault::~BackgroundFault() { stop(); }

void BackgroundFault::stop() {
  stop_.store(true, std::memory_order_relaxed);
  if (worker_.joinable()) worker_.join();
}

void BackgroundFault::run() {
#ifdef MADV_POPULATE_WRITE
  // The ranges fill at the same pace (one entry each per edge), so each
  // step faults the same fraction of every range: slice k of kSteps, from
  // the last slice down.
  std::size_t largest = 0;
  for (const Range& r : ranges_) largest = std::max(largest, r.bytes);
  const std::size_t steps = largest / kSlice;
  for (std::size_t k = steps; k-- > 0;) {
    for (const Range& r : ranges_) {
      if (stop_.load(std::memory_order_relaxed)) return;
      const auto begin = reinterpret_cast<std::uintptr_t>(r.data);
      // Whole pages inside the range's share of this step: the kernel
      // wants page-aligned addresses, and bytes outside the range may be
      // another allocation's.
      const std::uintptr_t first = (begin + r.bytes / steps * k + 4095) & ~std::uintptr_t{4095};
      const std::uintptr_t last =
          (begin + (k + 1 == steps ? r.bytes : r.bytes / steps * (k + 1))) & ~std::uintptr_t{4095};
      // Failure (an old kernel, no memory yet) leaves the page to the
      // filling thread's own fault.
      if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
    }
  }
#endif
}

}  // namespace rankmap::detail
