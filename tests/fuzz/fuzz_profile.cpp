// The shim's .rmp profile reader (versions 1 and 2).
#include "fuzz_input.hpp"
#include "rankmap/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::expect_only_errors([&] {
    const rankmap::Profile p = rankmap::parse_profile(fuzz::text(data, size), "input.rmp");
    (void)p.total();  // the kinds added up, as map reads them
  });
  return 0;
}
