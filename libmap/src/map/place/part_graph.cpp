#include <algorithm>

#include "core/sparse_accumulator.hpp"
#include "map/engine.hpp"

namespace rankmap::detail {

PartGraph make_part_graph(const UndirectedGraph& g, const std::vector<int>& part, int parts) {
  std::vector<std::vector<std::uint32_t>> members(parts);
  for (std::uint32_t v = 0; v < g.n; ++v) members[part[v]].push_back(v);
  PartGraph q;
  q.parts = parts;
  q.xadj.assign(static_cast<std::size_t>(parts) + 1, 0);
  q.first_rank.assign(static_cast<std::size_t>(parts), g.n);
  for (int p = 0; p < parts; ++p)
    if (!members[p].empty()) q.first_rank[p] = members[p].front();
  SparseAccumulator<std::uint64_t> to_part(static_cast<std::size_t>(parts));
  for (int p = 0; p < parts; ++p) {
    for (std::uint32_t v : members[p])
      for (std::uint64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
        const int r = part[g.adjncy[e]];
        if (r != p) to_part.add(static_cast<std::uint32_t>(r), g.weight[e]);
      }
    to_part.sort_keys();
    for (std::uint32_t r : to_part.keys()) {
      q.adjncy.push_back(static_cast<int>(r));
      q.weight.push_back(to_part[r]);
    }
    to_part.clear();
    q.xadj[p + 1] = q.adjncy.size();
  }
  return q;
}

}  // namespace rankmap::detail
