// A candidate for structured codes: when the graph is a d-dimensional grid
// in rank order (X fastest), as halo exchanges usually are, cut it into
// equal boxes, one per node, and lay the box grid onto the torus so that
// neighbouring boxes sit on neighbouring nodes. Each box axis is given a
// group of torus dimensions, walked in snake order (consecutive steps are
// one hop). Tried for every box shape and every grouping; map() keeps it
// only if it scores best.
#include <algorithm>
#include <array>
#include <functional>

#include "map/engine.hpp"

namespace rankmap::detail {
namespace {

constexpr int kMaxGridDims = 3;

// Whether every edge joins ranks at most one step apart on each axis of a
// grid of these dimensions (with wrap-around), and some edge goes along
// each axis.
bool is_grid(const UndirectedGraph& g, const std::vector<int>& dims) {
  const int nd = static_cast<int>(dims.size());
  std::vector<char> used_axis(nd, 0);
  for (std::uint32_t r = 0; r < g.n; ++r) {
    for (std::uint64_t e = g.xadj[r]; e < g.xadj[r + 1]; ++e) {
      std::uint32_t a = r, b = g.adjncy[e];
      for (int d = 0; d < nd; ++d) {
        const int ca = static_cast<int>(a % dims[d]), cb = static_cast<int>(b % dims[d]);
        a /= dims[d];
        b /= dims[d];
        const int diff = std::abs(ca - cb);
        if (diff > 1 && diff != dims[d] - 1) return false;
        if (diff != 0) used_axis[d] = 1;
      }
    }
  }
  return std::all_of(used_axis.begin(), used_axis.end(), [](char u) { return u; });
}

// Grid shapes (X fastest) of n ranks that the graph fits, fewest axes first.
std::vector<std::vector<int>> grid_shapes(const UndirectedGraph& g) {
  std::vector<std::vector<int>> found;
  const int n = static_cast<int>(g.n);
  for (int nd = 1; nd <= kMaxGridDims && found.empty(); ++nd) {
    std::vector<int> dims(nd);
    std::function<void(int, int)> choose = [&](int d, int left) {
      if (d == nd - 1) {
        if (left < 2) return;
        dims[d] = left;
        if (is_grid(g, dims)) found.push_back(dims);
        return;
      }
      for (int f = 2; f <= left / 2; ++f)
        if (left % f == 0) dims[d] = f, choose(d + 1, left / f);
    };
    choose(0, n);
  }
  return found;
}

// Coordinates of step i of a snake through dimensions `sizes`: consecutive
// steps differ by one in one coordinate (a reflected mixed-radix order).
std::vector<int> snake(int i, const std::vector<int>& sizes) {
  const int k = static_cast<int>(sizes.size());
  std::vector<int> digit(k);
  for (int j = 0; j < k; ++j) digit[j] = i % sizes[j], i /= sizes[j];
  // Reflect a digit when the digits above it add up to an odd number.
  int above = 0;
  for (int j = k - 1; j >= 0; --j) {
    const int raw = digit[j];
    if (above % 2) digit[j] = sizes[j] - 1 - digit[j];
    above += raw;
  }
  return digit;
}

}  // namespace

std::vector<std::vector<int>> cartesian_candidates(const UndirectedGraph& g, const Allocation& allocation,
                                                   const NodeGeometry& geo, std::size_t max_candidates) {
  std::vector<std::vector<int>> out;
  const Network& net = geo.network();
  // Whole machine, every node the same number of slots, ranks fill them.
  if (static_cast<std::size_t>(geo.size()) != net.num_coords()) return out;
  const std::size_t per_node = allocation.slots(0).size();
  for (std::size_t k = 0; k < allocation.size(); ++k)
    if (allocation.slots(k).size() != per_node) return out;
  if (per_node * allocation.size() != g.n) return out;
  std::vector<int> node_at(net.num_coords());
  for (int k = 0; k < geo.size(); ++k) node_at[geo.coord_index(k)] = k;

  const int td = net.num_dims();
  for (const std::vector<int>& grid : grid_shapes(g)) {
    const int gd = static_cast<int>(grid.size());
    // Box shapes: b[i] divides grid[i], product = ranks per node.
    std::vector<int> box(gd);
    std::function<void(int, std::size_t)> boxes = [&](int i, std::size_t left) {
      if (out.size() >= max_candidates) return;
      if (i == gd) {
        if (left != 1) return;
        std::vector<int> blocks(gd);
        for (int d = 0; d < gd; ++d) blocks[d] = grid[d] / box[d];
        // Every way to give each torus dimension to one box axis, such that
        // each axis's torus dimensions hold exactly its number of boxes.
        std::vector<int> axis_of(td, 0);
        std::function<void(int)> groups = [&](int t) {
          if (out.size() >= max_candidates) return;
          if (t == td) {
            std::vector<std::vector<int>> sizes(gd), tdims(gd);
            std::vector<long> product(gd, 1);
            for (int j = 0; j < td; ++j) {
              sizes[axis_of[j]].push_back(net.dims[j]);
              tdims[axis_of[j]].push_back(j);
              product[axis_of[j]] *= net.dims[j];
            }
            for (int d = 0; d < gd; ++d)
              if (product[d] != blocks[d]) return;
            std::vector<int> node_of_rank(g.n);
            std::array<int, kMaxDims> coord{};
            for (std::uint32_t r = 0; r < g.n; ++r) {
              std::uint32_t rest = r;
              for (int d = 0; d < gd; ++d) {
                const int c = static_cast<int>(rest % grid[d]) / box[d];
                rest /= grid[d];
                const std::vector<int> at = snake(c, sizes[d]);
                for (std::size_t j = 0; j < at.size(); ++j) coord[tdims[d][j]] = at[j];
              }
              std::size_t index = 0;
              for (int j = td - 1; j >= 0; --j) index = index * net.dims[j] + coord[j];
              node_of_rank[r] = node_at[index];
            }
            out.push_back(std::move(node_of_rank));
            return;
          }
          for (int d = 0; d < gd; ++d) axis_of[t] = d, groups(t + 1);
        };
        groups(0);
        return;
      }
      for (int b = 1; b <= grid[i]; ++b)
        if (grid[i] % b == 0 && left % b == 0) box[i] = b, boxes(i + 1, left / b);
    };
    boxes(0, per_node);
  }
  return out;
}

}  // namespace rankmap::detail
