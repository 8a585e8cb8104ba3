// The shim's .rmp profile reader (versions 1 and 2), and what the gain
// model makes of what it reads: a profile that reads is timed by the flow
// model (call records replayed by rounds when complete) on a switch with a
// slot for every rank, block mapping, and the time is finite. The model's
// work budget bounds the replay, whatever the rounds and bytes (a 6.6 MB
// profile once made it run 107 s).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_input.hpp"
#include "rankmap/allocation.hpp"
#include "rankmap/baseline.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::expect_only_errors([&] {
    const rankmap::Profile p = rankmap::parse_profile(fuzz::text(data, size), "input.rmp");
    const rankmap::Graph total = p.total();  // the kinds added up, as map reads them
    const std::uint32_t ranks = total.ranks;
    if (ranks == 0 || ranks > (1u << 16)) return;
    const std::uint32_t nodes = (ranks + 63) / 64;
    const rankmap::Machine m = rankmap::parse_machine(
        "[network]\nkind = \"switch\"\nt_hop_ns = 100\nt_inj_ns = 500\nt_ej_ns = 500\nlink_gbps = 100\n"
        "[[nodes]]\nhosts = \"n[1-" +
            std::to_string(nodes) + "]\"\nhwloc = \"core:64\"\n",
        "switch.toml");
    const rankmap::Allocation a = rankmap::make_allocation(m, {});
    const rankmap::Mapping block = rankmap::baseline_mapping(rankmap::Baseline::block, a, ranks, 1);
    const rankmap::FlowTimes t =
        rankmap::flow_times(p.exchanges(), p.collective, m, a, block, p.calls_complete ? &p.calls : nullptr);
    if (t.computed && !(std::isfinite(t.slowest_ns) && t.slowest_ns >= 0)) {
      std::fprintf(stderr, "fuzz: the flow model times a profile at %g ns\n", t.slowest_ns);
      std::abort();
    }
  });
  return 0;
}
