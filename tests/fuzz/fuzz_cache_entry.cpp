// A cached mapping's report (rankmap run's cache, report.json): whatever
// the file holds (truncated, empty, foreign JSON), reading its summary
// either gives one or refuses with one line naming the file; never an
// internal error. The csv and the profile beside it have harnesses of
// their own (launch_csv, profile).
#include <string>

#include "fuzz_input.hpp"
#include "run/run_summary.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(fuzz::text(data, size));
  fuzz::expect_only_errors([&] { (void)rankmap::cli::summary_of(text, "map-0123.json"); });
  return 0;
}
