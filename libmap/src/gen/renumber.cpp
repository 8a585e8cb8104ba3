#include <numeric>

#include "rankmap/generate.hpp"
#include "rankmap/random.hpp"

namespace rankmap {

Graph renumber_ranks(const Graph& graph, std::uint64_t seed) {
  std::vector<std::uint32_t> to(graph.ranks);
  std::iota(to.begin(), to.end(), 0u);
  Rng rng(seed);
  for (std::uint32_t i = graph.ranks; i > 1; --i)  // Fisher-Yates
    std::swap(to[i - 1], to[rng.below(i)]);
  GraphBuilder builder(graph.ranks);
  builder.reserve(graph.num_edges());
  for (std::uint32_t r = 0; r < graph.ranks; ++r)
    for (std::uint64_t e = graph.offsets[r]; e < graph.offsets[r + 1]; ++e)
      builder.add(to[r], to[graph.targets[e]], graph.bytes[e], graph.msgs[e]);
  return builder.build();
}

}  // namespace rankmap
