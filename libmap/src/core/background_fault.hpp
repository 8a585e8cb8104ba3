// Faults in the pages of freshly reserved buffers on a second thread while
// this one fills them. On this project's VMs a page fault that zeroes a
// huge page costs as much as parsing the text that fills it: reading a
// million-rank graph spent 2.2 s in faults and 0.9 s in parsing. The second
// thread starts at the buffers' ends and works backwards, so the two
// threads meet near the middle instead of faulting the same pages.
// Advice only: without MADV_POPULATE_WRITE, or when a thread cannot start,
// nothing happens and the filling thread faults every page itself.
// Internal to libmap.
#pragma once

#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace rankmap::detail {

class BackgroundFault {
 public:
  struct Range {
    void* data;
    std::size_t bytes;
  };
  // The ranges must stay allocated until stop() returns (the destructor
  // calls it). Ranges below a few MiB in all are not worth a thread.
  explicit BackgroundFault(std::vector<Range> ranges);
  BackgroundFault(const BackgroundFault&) = delete;
  BackgroundFault& operator=(const BackgroundFault&) = delete;
  ~BackgroundFault();
  // Waits for the thread, which stops within one huge page of each range.
  void stop();

 private:
  void run();
  std::vector<Range> ranges_;
  std::atomic<bool> stop_{false};
  std::thread worker_;
};

}  // namespace rankmap::detail
