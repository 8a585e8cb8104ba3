// The graph readers (.mtx, METIS .graph, Scotch .grf, .csv): the format is
// RANKMAP_FUZZ_FORMAT, one harness binary per format.
#include "fuzz_input.hpp"
#include "rankmap/graph.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::write_file(fuzz::text(data, size), std::string("input") + RANKMAP_FUZZ_FORMAT);
  fuzz::expect_only_errors([&] { rankmap::read_graph_as(path, RANKMAP_FUZZ_FORMAT); });
  return 0;
}
