// The launch file readers, one harness binary per format
// (RANKMAP_FUZZ_FORMAT), on a fixed machine: nodes n0-n3 of 2 packages x 4
// cores x 2 hardware threads. An input holding a line "%%" is FILE before
// it and FILE.env after (the slurm, mvapich and intelmpi companions).
#include "fuzz_input.hpp"
#include "rankmap/allocation.hpp"
#include "rankmap/launch.hpp"
#include "rankmap/machine.hpp"

namespace {

const rankmap::Machine& machine() {
  static const rankmap::Machine m = rankmap::parse_machine(
      "[network]\ndims = [2, 2]\nt_hop_ns = 100\nt_inj_ns = 400\nt_ej_ns = 400\n[[nodes]]\nhosts = \"n[0-3]\"\nhwloc = "
      "\"package:2 core:4 pu:2\"\n",
      "fuzz.toml");
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const rankmap::Allocation allocation = rankmap::make_allocation(machine(), {});
  const std::string_view input = fuzz::text(data, size);
  const std::size_t split = input.find("\n%%\n");
  const auto path = fuzz::write_file(input.substr(0, split), "launch");
  const std::filesystem::path env = path.string() + ".env";
  if (split != std::string_view::npos)
    fuzz::write_file(input.substr(split + 4), "launch.env");
  else
    std::filesystem::remove(env);
  const rankmap::LaunchFormat format = rankmap::parse_launch_format(RANKMAP_FUZZ_FORMAT);
  fuzz::expect_only_errors([&] { (void)rankmap::read_launch_file(path, format, machine(), allocation); });
  return 0;
}
