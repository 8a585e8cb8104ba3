// Recursive bisection of the graph and the torus together: the used nodes
// are cut in two across their widest dimension, the ranks in two parts of
// the same capacities with the fewest bytes between them, and so on down to
// single nodes. Ranks cut together stay on nodes cut together.
#include <algorithm>
#include <numeric>

#include "map/engine.hpp"

namespace rankmap::detail {

std::vector<int> metis_split(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes, std::uint64_t seed,
                             int cuts, bool recursive);

namespace {

class Bisector {
 public:
  Bisector(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes, const std::vector<int>& used_nodes,
           const NodeGeometry& geometry, std::uint64_t seed)
      : g_(g), sizes_(sizes), used_(used_nodes), geo_(geometry), seed_(seed), part_(g.n, 0), local_(g.n, -1) {}

  std::vector<int> run() {
    std::vector<std::uint32_t> ranks(g_.n);
    std::iota(ranks.begin(), ranks.end(), 0u);
    std::vector<int> parts(sizes_.size());
    std::iota(parts.begin(), parts.end(), 0);
    split(ranks, parts);
    return std::move(part_);
  }

 private:
  void split(const std::vector<std::uint32_t>& ranks, std::vector<int>& parts) {
    if (parts.size() == 1) {
      for (std::uint32_t r : ranks) part_[r] = parts[0];
      return;
    }
    // Cut the nodes across their widest dimension (ties: the lower one).
    const Network& net = geo_.network();
    int dim = 0, widest = -1;
    for (int d = 0; d < net.num_dims(); ++d) {
      int lo = net.dims[d], hi = -1;
      for (int p : parts) lo = std::min(lo, geo_.coord(used_[p], d)), hi = std::max(hi, geo_.coord(used_[p], d));
      if (hi - lo > widest) widest = hi - lo, dim = d;
    }
    std::stable_sort(parts.begin(), parts.end(), [&](int a, int b) {
      const int ca = geo_.coord(used_[a], dim), cb = geo_.coord(used_[b], dim);
      return ca != cb ? ca < cb : geo_.coord_index(used_[a]) < geo_.coord_index(used_[b]);
    });
    std::vector<int> left(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(parts.size() / 2));
    std::vector<int> right(parts.begin() + static_cast<std::ptrdiff_t>(parts.size() / 2), parts.end());
    std::uint32_t left_size = 0, right_size = 0;
    for (int p : left) left_size += sizes_[p];
    for (int p : right) right_size += sizes_[p];

    const std::vector<int> side = metis_split(induced(ranks), {left_size, right_size}, seed_, 1, true);
    std::vector<std::uint32_t> left_ranks, right_ranks;
    for (std::size_t i = 0; i < ranks.size(); ++i) (side[i] == 0 ? left_ranks : right_ranks).push_back(ranks[i]);
    split(left_ranks, left);
    split(right_ranks, right);
  }

  UndirectedGraph induced(const std::vector<std::uint32_t>& ranks) { return induced_subgraph(g_, ranks, local_); }

  const UndirectedGraph& g_;
  const std::vector<std::uint32_t>& sizes_;
  const std::vector<int>& used_;
  const NodeGeometry& geo_;
  std::uint64_t seed_;
  std::vector<int> part_;
  std::vector<int> local_;
};

}  // namespace

std::vector<int> partition_recursive_bisection(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes,
                                               const std::vector<int>& used_nodes, const NodeGeometry& geometry,
                                               std::uint64_t seed) {
  return Bisector(g, sizes, used_nodes, geometry, seed).run();
}

}  // namespace rankmap::detail
