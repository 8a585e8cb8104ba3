// Coarsening that follows the edges, not the numbering: heavy-edge
// matching, as METIS, Scotch and KaMinPar coarsen. Vertices are visited in
// a seeded random order and each takes its free neighbour of heaviest edge,
// so renumbering the ranks changes nothing but the draw. The partitioner
// needs every coarse vertex to stand for the same number of ranks (node
// sizes are multiples of it), so the few vertices left without a free
// neighbour are paired with a free vertex two edges away, and the last ones
// with each other.
#include <algorithm>
#include <numeric>

#include "map/engine.hpp"
#include "rankmap/random.hpp"

namespace rankmap::detail {
namespace {

constexpr std::uint32_t kFree = UINT32_MAX;

// mate[v] for every vertex, pairs only of vertices of equal label (each
// label on an even number of vertices; no labels: all equal).
std::vector<std::uint32_t> pair_up(const UndirectedGraph& g, const std::vector<int>* label, Rng& rng) {
  auto same = [&](std::uint32_t a, std::uint32_t b) { return !label || (*label)[a] == (*label)[b]; };
  const std::vector<std::uint32_t> order = random_permutation(g.n, rng);
  std::vector<std::uint32_t> position(g.n), mate(g.n, kFree);
  for (std::uint32_t i = 0; i < g.n; ++i) position[order[i]] = i;
  // Ties go to the neighbour earlier in the random order, not the lower number.
  auto better = [&](std::uint32_t u, std::uint64_t w, std::uint32_t best, std::uint64_t best_w) {
    return best == kFree || w > best_w || (w == best_w && position[u] < position[best]);
  };
  for (std::uint32_t v : order) {
    if (mate[v] != kFree) continue;
    std::uint32_t best = kFree;
    std::uint64_t best_w = 0;
    for (std::uint64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      const std::uint32_t u = g.adjncy[e];
      if (u != v && mate[u] == kFree && same(u, v) && better(u, g.weight[e], best, best_w))
        best = u, best_w = g.weight[e];
    }
    if (best != kFree) mate[v] = best, mate[best] = v;
  }
  std::vector<std::uint32_t> left;
  for (std::uint32_t v : order) {
    if (mate[v] != kFree) continue;
    std::uint32_t found = kFree;
    for (std::uint64_t e = g.xadj[v]; e < g.xadj[v + 1] && found == kFree; ++e) {
      const std::uint32_t u = g.adjncy[e];
      for (std::uint64_t f = g.xadj[u]; f < g.xadj[u + 1]; ++f) {
        const std::uint32_t x = g.adjncy[f];
        if (x != v && mate[x] == kFree && same(x, v)) {
          found = x;
          break;
        }
      }
    }
    if (found != kFree)
      mate[v] = found, mate[found] = v;
    else
      left.push_back(v);
  }
  std::erase_if(left, [&](std::uint32_t v) { return mate[v] != kFree; });
  if (label)  // the last ones pair within their label
    std::stable_sort(left.begin(), left.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return (*label)[a] < (*label)[b]; });
  for (std::size_t i = 0; i + 1 < left.size(); i += 2) mate[left[i]] = left[i + 1], mate[left[i + 1]] = left[i];
  return mate;
}

}  // namespace

Contraction contract_matched(const UndirectedGraph& g, std::uint32_t group, std::uint64_t seed,
                             const std::vector<int>* label) {
  Contraction c;
  c.coarse_of.resize(g.n);
  std::iota(c.coarse_of.begin(), c.coarse_of.end(), 0u);
  Rng rng(seed);
  const UndirectedGraph* current = &g;  // the first round reads g itself, uncopied
  std::vector<int> coarse_label;
  if (label) coarse_label = *label;
  for (std::uint32_t size = 1; size < group; size *= 2) {
    const std::vector<std::uint32_t> mate = pair_up(*current, label ? &coarse_label : nullptr, rng);
    // Coarse vertex numbers in the order of the pairs' lower member.
    std::vector<int> pair_of(current->n, -1);
    int pairs = 0;
    for (std::uint32_t v = 0; v < current->n; ++v)
      if (pair_of[v] < 0) pair_of[v] = pair_of[mate[v]] = pairs++;
    for (std::uint32_t& x : c.coarse_of) x = static_cast<std::uint32_t>(pair_of[x]);
    if (label) {
      std::vector<int> next(static_cast<std::size_t>(pairs));
      for (std::uint32_t v = 0; v < current->n; ++v) next[static_cast<std::size_t>(pair_of[v])] = coarse_label[v];
      coarse_label = std::move(next);
    }
    PartGraph q = make_part_graph(*current, pair_of, pairs);
    c.graph.n = static_cast<std::uint32_t>(q.parts);
    c.graph.xadj = std::move(q.xadj);
    c.graph.adjncy.assign(q.adjncy.begin(), q.adjncy.end());
    c.graph.weight = std::move(q.weight);
    current = &c.graph;
  }
  if (current == &g) c.graph = g;  // group 1: nothing merged
  return c;
}

}  // namespace rankmap::detail
