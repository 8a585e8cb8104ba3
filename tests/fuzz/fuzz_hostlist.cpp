// Slurm-style host lists ("node[00-63,70]", nested ranges, several
// brackets). A list that names a file ("@PATH", --nodes's form) is not
// fuzzed: it would read whatever file the input names.
#include "fuzz_input.hpp"
#include "rankmap/hostlist.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view list = fuzz::text(data, size);
  fuzz::expect_only_errors([&] { (void)rankmap::expand_hostlist(list, "input"); });
  return 0;
}
