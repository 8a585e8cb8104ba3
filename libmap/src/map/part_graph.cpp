#include <algorithm>

#include "map/engine.hpp"

namespace rankmap::detail {

PartGraph make_part_graph(const UndirectedGraph& g, const std::vector<int>& part, int parts) {
  std::vector<std::vector<std::uint32_t>> members(parts);
  for (std::uint32_t v = 0; v < g.n; ++v) members[part[v]].push_back(v);
  PartGraph q;
  q.parts = parts;
  q.xadj.assign(static_cast<std::size_t>(parts) + 1, 0);
  std::vector<std::uint64_t> acc(parts, 0);
  std::vector<int> touched;
  for (int p = 0; p < parts; ++p) {
    for (std::uint32_t v : members[p])
      for (std::uint64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
        const int r = part[g.adjncy[e]];
        if (r == p) continue;
        if (acc[r] == 0) touched.push_back(r);
        acc[r] += g.weight[e];
      }
    std::sort(touched.begin(), touched.end());
    for (int r : touched) {
      q.adjncy.push_back(r);
      q.weight.push_back(acc[r]);
      acc[r] = 0;
    }
    touched.clear();
    q.xadj[p + 1] = q.adjncy.size();
  }
  return q;
}

}  // namespace rankmap::detail
