// The machine file (TOML): every network kind (torus, mesh, switch, fat
// tree, VMs on hosts), node types, hosts and their coordinates, hwloc
// specifications; then the allocation of every node. A file that reads
// must also map: two ranks on the first two nodes are scored and timed by
// the flow model (networks of up to 2^20 links), and every number that
// comes out is finite (a latency of 1e308 ns and a rate of 1e-300 Gbit/s
// once gave "-nan %").
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "fuzz_input.hpp"
#include "rankmap/allocation.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/metrics.hpp"

namespace {

void require_finite(double v, const char* what) {
  if (std::isfinite(v) && v >= 0) return;
  std::fprintf(stderr, "fuzz: a machine that reads gives %s = %g\n", what, v);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::expect_only_errors([&] {
    const rankmap::Machine m = rankmap::parse_machine(fuzz::text(data, size), "input.toml");
    const rankmap::Allocation a = rankmap::make_allocation(m, {});
    // Large networks are measured in bench/, not fuzzed: a score keeps a
    // load per link.
    if (a.size() < 2 || m.network.num_links() > (std::size_t{1} << 20)) return;
    rankmap::GraphBuilder b(2);
    b.add(0, 1, 1 << 20, 4);
    b.add(1, 0, 1 << 20, 4);
    const rankmap::Graph g = b.build();
    const rankmap::Mapping apart{{{0, 0}, {1, 0}}};
    const rankmap::Metrics s = rankmap::evaluate(g, m, a, apart);
    require_finite(static_cast<double>(s.hop_bytes), "hop_bytes");
    require_finite(rankmap::message_time_ns(m.network, m.network.diameter()), "T(diameter)");
    const rankmap::FlowTimes t = rankmap::flow_times(g, rankmap::Graph{}, m, a, apart);
    if (t.computed) require_finite(t.slowest_ns, "the flow model's time");
  });
  return 0;
}
