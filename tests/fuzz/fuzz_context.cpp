// The engine settings file (-C, as --dump-config writes it): a file that
// reads must dump and read back to the same settings.
#include "fuzz_input.hpp"
#include "rankmap/context.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::expect_only_errors([&] {
    const rankmap::Context c = rankmap::parse_context(fuzz::text(data, size), "input.toml");
    const std::string dumped = rankmap::dump_context(c);
    if (rankmap::dump_context(rankmap::parse_context(dumped, "dumped.toml")) != dumped) std::abort();
  });
  return 0;
}
