#include "rankmap/generate.hpp"
#include "rankmap/random.hpp"

namespace rankmap {

Graph renumber_ranks(const Graph& graph, std::uint64_t seed) {
  Rng rng(seed);
  const std::vector<std::uint32_t> to = random_permutation(graph.ranks, rng);
  GraphBuilder builder(graph.ranks);
  builder.reserve(graph.num_edges());
  for (std::uint32_t r = 0; r < graph.ranks; ++r)
    for (std::uint64_t e = graph.offsets[r]; e < graph.offsets[r + 1]; ++e)
      builder.add(to[r], to[graph.targets[e]], graph.bytes[e], graph.msgs[e]);
  return builder.build();
}

}  // namespace rankmap
