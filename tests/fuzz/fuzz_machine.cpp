// The machine file (TOML): network kinds, node types, hosts and their
// coordinates, hwloc specifications; then the allocation of every node.
#include "fuzz_input.hpp"
#include "rankmap/allocation.hpp"
#include "rankmap/machine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::expect_only_errors([&] {
    const rankmap::Machine m = rankmap::parse_machine(fuzz::text(data, size), "input.toml");
    (void)rankmap::make_allocation(m, {});
  });
  return 0;
}
