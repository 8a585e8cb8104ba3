// A candidate for structured codes: when the graph is a d-dimensional grid
// in rank order (X fastest), as halo exchanges usually are, cut it into
// equal boxes, one per node, and lay the box grid onto the torus so that
// neighbouring boxes sit on neighbouring nodes. Each box axis is walked in
// snake order over torus dimensions of its own, and a torus dimension may
// also be folded between two axes (a 3D grid on a 4D torus), the slower axis
// turning it in long strides, the faster in single hops. The layouts are
// ranked by an estimate of their hop-bytes; map() scores the best few.
#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <optional>
#include <tuple>

#include "core/huge_pages.hpp"
#include "core/workers.hpp"
#include "map/engine.hpp"

namespace rankmap::detail {
namespace {

constexpr int kMaxGridDims = 3;

// Whether every edge joins ranks at most one step apart on each axis of a
// grid of these dimensions (with wrap-around), and some edge goes along
// each axis. Rank r sits at grid index position(r): r itself in rank order.
struct GridCheck {
  bool fits = true;
  unsigned used = 0, wraps = 0;  // a bit an axis: some edge goes along it, some wraps
  GridCheck operator+(const GridCheck& o) const { return {fits && o.fits, used | o.used, wraps | o.wraps}; }
};

template <class Position>
bool is_grid(const UndirectedGraph& g, const std::vector<int>& dims, std::vector<char>& periodic, Position&& position) {
  const int nd = static_cast<int>(dims.size());
  using Coords = std::array<int, kMaxGridDims>;
  auto fits = [&](const Coords& a, const Coords& b, GridCheck& check) {
    for (int d = 0; d < nd; ++d) {
      const int diff = std::abs(a[d] - b[d]);
      if (diff > 1 && diff != dims[d] - 1) return check.fits = false;
      if (diff != 0) check.used |= 1u << d;
      if (diff > 1) check.wraps |= 1u << d;
    }
    return true;
  };
  auto coords = [&](std::uint32_t r) {
    std::uint32_t i = position(r);
    Coords c{};
    for (int d = 0; d < nd; ++d) c[d] = static_cast<int>(i % dims[d]), i /= dims[d];
    return c;
  };
  // Most shapes fail on the first ranks; the full check then reads the
  // coordinates from a table, as divisions per edge took a second on 27
  // million edges, and splits the ranks between two threads on large graphs.
  const std::uint32_t prefix = std::min<std::uint32_t>(g.n, 4096);
  GridCheck check;
  for (std::uint32_t r = 0; r < prefix; ++r)
    for (std::uint64_t e = g.xadj[r]; e < g.xadj[r + 1]; ++e)
      if (!fits(coords(r), coords(g.adjncy[e]), check)) return false;
  std::vector<Coords> at = huge_vector<Coords>(g.n);
  for (std::uint32_t r = 0; r < g.n; ++r) at[r] = coords(r);
  check = check + sum_over_ranges(g.n - prefix, g.xadj[g.n], [&](std::uint32_t begin, std::uint32_t end) {
            GridCheck part;
            for (std::uint32_t r = prefix + begin; r < prefix + end && part.fits; ++r)
              for (std::uint64_t e = g.xadj[r]; e < g.xadj[r + 1]; ++e)
                if (!fits(at[r], at[g.adjncy[e]], part)) break;
            return part;
          });
  periodic.assign(nd, 0);
  for (int d = 0; d < nd; ++d) periodic[d] = (check.wraps >> d) & 1;
  return check.fits && check.used == (1u << nd) - 1;
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

// How a torus dimension is given out: whole to one box axis (lo_axis < 0),
// or folded between two: a slow digit of hi_size steps from hi_axis and a
// fast digit of lo_size steps from lo_axis. The fast digit is reflected on
// odd slow digits, so that its steps stay one hop.
struct DimShare {
  int hi_axis = 0, hi_size = 1, lo_axis = -1, lo_size = 1;
  int coord(int hi, int lo) const { return hi * lo_size + (hi % 2 ? lo_size - 1 - lo : lo); }
};

// One digit of a box axis's snake: the torus dimension it moves, its size,
// and whether it is the slow half of a folded dimension.
struct Digit {
  int dim = 0, size = 1;
  bool slow = false;
};

struct Layout {
  std::vector<int> box;
  std::vector<DimShare> shares;  // per torus dimension
  double estimate = 0;           // hop-bytes, up to a constant factor
};

// Each axis's digits, fastest first: whole dimensions and fast halves, then
// slow halves, which cost a long stride and should turn least often.
std::vector<std::vector<Digit>> axis_digits(const std::vector<DimShare>& shares, int axes) {
  std::vector<std::vector<Digit>> digits(axes);
  for (int j = 0; j < static_cast<int>(shares.size()); ++j) {
    const DimShare& s = shares[j];
    if (s.lo_axis < 0)
      digits[s.hi_axis].push_back({j, s.hi_size, false});
    else
      digits[s.lo_axis].push_back({j, s.lo_size, false});
  }
  for (int j = 0; j < static_cast<int>(shares.size()); ++j)
    if (shares[j].lo_axis >= 0) digits[shares[j].hi_axis].push_back({j, shares[j].hi_size, true});
  return digits;
}

// Mean hops between box positions a and b along one axis (digit values of
// its snake), averaged over the other axes' halves of folded dimensions.
double step_hops(const Network& net, const std::vector<DimShare>& shares, const std::vector<Digit>& digits,
                 const std::vector<int>& a, const std::vector<int>& b) {
  double hops = 0;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (a[i] == b[i]) continue;
    const int j = digits[i].dim;
    const DimShare& s = shares[j];
    if (s.lo_axis < 0) {
      hops += net.hops_1d(j, a[i], b[i]);
    } else if (digits[i].slow) {
      double sum = 0;
      for (int lo = 0; lo < s.lo_size; ++lo) sum += net.hops_1d(j, s.coord(a[i], lo), s.coord(b[i], lo));
      hops += sum / s.lo_size;
    } else {
      double sum = 0;
      for (int hi = 0; hi < s.hi_size; ++hi) sum += net.hops_1d(j, s.coord(hi, a[i]), s.coord(hi, b[i]));
      hops += sum / s.hi_size;
    }
  }
  return hops;
}

// Hops of all steps between neighbouring boxes along one axis (and around,
// if the grid is periodic). Layouts share axes, so the sums are memoised by
// what they depend on: the digits and the sizes of their folded dimensions.
class AxisHops {
 public:
  AxisHops(const Network& net, const GridShape& grid) : net_(net), grid_(grid) {}

  double operator()(int d, int blocks, const std::vector<DimShare>& shares, const std::vector<Digit>& digits) {
    std::vector<int> key{d, blocks};
    for (const Digit& digit : digits) {
      const DimShare& s = shares[digit.dim];
      key.insert(key.end(), {digit.dim, digit.size, digit.slow, s.hi_size, s.lo_size, s.lo_axis < 0});
    }
    auto [it, fresh] = memo_.try_emplace(std::move(key), 0.0);
    if (!fresh) return it->second;
    std::vector<int> sizes;
    for (const Digit& digit : digits) sizes.push_back(digit.size);
    double hops = 0;
    for (int c = 0; c + 1 < blocks; ++c) hops += step_hops(net_, shares, digits, snake(c, sizes), snake(c + 1, sizes));
    if (grid_.periodic[d]) hops += step_hops(net_, shares, digits, snake(blocks - 1, sizes), snake(0, sizes));
    return it->second = hops;
  }

 private:
  const Network& net_;
  const GridShape& grid_;
  std::map<std::vector<int>, double> memo_;
};

// Estimated hop-bytes: along each axis, the hops of every step between
// neighbouring boxes, times the box face crossed (ranks on it) and the
// number of such lines of boxes.
double estimate(AxisHops& axis_hops, const GridShape& grid, const std::vector<int>& box,
                const std::vector<DimShare>& shares) {
  const int gd = static_cast<int>(grid.dims.size());
  const auto digits = axis_digits(shares, gd);
  double total = 0;
  for (int d = 0; d < gd; ++d) {
    const int blocks = grid.dims[d] / box[d];
    if (blocks == 1) continue;
    double face = 1, lines = 1;
    for (int e = 0; e < gd; ++e)
      if (e != d) face *= box[e], lines *= grid.dims[e] / box[e];
    total += axis_hops(d, blocks, shares, digits[d]) * face * lines;
  }
  return total;
}

// Every box shape and every way of giving out the torus dimensions (whole,
// or folded between two axes) whose sizes multiply to each axis's number
// of boxes.
std::vector<Layout> layouts(const Network& net, const GridShape& grid, std::size_t per_node) {
  constexpr std::size_t kMaxLayouts = 200000;  // bounds the search on 5D tori
  std::vector<Layout> out;
  const int gd = static_cast<int>(grid.dims.size()), td = net.num_dims();
  std::vector<int> box(gd), blocks(gd);
  std::vector<DimShare> shares(td);
  std::vector<long> product(gd, 1);
  AxisHops axis_hops(net, grid);
  auto fits = [&](int axis, long size) { return blocks[axis] % (product[axis] * size) == 0; };
  std::function<void(int)> share = [&](int t) {
    if (out.size() >= kMaxLayouts) return;
    if (t == td) {
      for (int d = 0; d < gd; ++d)
        if (product[d] != blocks[d]) return;
      out.push_back({box, shares, estimate(axis_hops, grid, box, shares)});
      return;
    }
    const int size = net.dims[t];
    for (int a = 0; a < gd; ++a) {
      if (!fits(a, size)) continue;
      shares[t] = {a, size, -1, 1};
      product[a] *= size;
      share(t + 1);
      product[a] /= size;
    }
    for (int hi = 2; hi < size; ++hi) {
      if (size % hi) continue;
      const int lo = size / hi;
      for (int a = 0; a < gd; ++a)
        for (int b = 0; b < gd; ++b) {
          if (a == b || !fits(a, hi) || !fits(b, lo)) continue;
          shares[t] = {a, hi, b, lo};
          product[a] *= hi, product[b] *= lo;
          share(t + 1);
          product[a] /= hi, product[b] /= lo;
        }
    }
  };
  std::function<void(int, std::size_t)> boxes = [&](int i, std::size_t left) {
    if (i == gd) {
      if (left == 1) share(0);
      return;
    }
    for (int b = 1; b <= grid.dims[i]; ++b)
      if (grid.dims[i] % b == 0 && left % b == 0) box[i] = b, blocks[i] = grid.dims[i] / b, boxes(i + 1, left / b);
  };
  boxes(0, per_node);
  return out;
}

// Node (allocation position) of every rank under a layout.
std::vector<int> node_of_ranks(const UndirectedGraph& g, const Network& net, const GridShape& grid,
                               const Layout& layout, const std::vector<int>& node_at) {
  const int gd = static_cast<int>(grid.dims.size()), td = net.num_dims();
  const auto digits = axis_digits(layout.shares, gd);
  // Digit values of every box position along every axis, computed once.
  std::vector<std::vector<std::vector<int>>> at(gd);
  for (int d = 0; d < gd; ++d) {
    std::vector<int> sizes;
    for (const Digit& digit : digits[d]) sizes.push_back(digit.size);
    for (int c = 0; c < grid.dims[d] / layout.box[d]; ++c) at[d].push_back(snake(c, sizes));
  }
  std::vector<int> node_of_rank = huge_vector<int>(g.n);
  std::array<int, kMaxDims> hi{}, lo{};
  for (std::uint32_t r = 0; r < g.n; ++r) {
    std::uint32_t rest = r;
    for (int d = 0; d < gd; ++d) {
      const std::vector<int>& values = at[d][(rest % grid.dims[d]) / layout.box[d]];
      rest /= grid.dims[d];
      for (std::size_t i = 0; i < values.size(); ++i) {
        const Digit& digit = digits[d][i];
        const bool is_lo = layout.shares[digit.dim].lo_axis >= 0 && !digit.slow;
        (is_lo ? lo : hi)[digit.dim] = values[i];
      }
    }
    std::size_t index = 0;
    for (int j = td - 1; j >= 0; --j) {
      const DimShare& s = layout.shares[j];
      index = index * net.dims[j] + (s.lo_axis < 0 ? hi[j] : s.coord(hi[j], lo[j]));
    }
    node_of_rank[r] = node_at[index];
  }
  return node_of_rank;
}

// The first origin (in coordinate order) at which a box of these extents
// has every node allocated; the box as a network of its own: a dimension
// wraps only where the box spans the whole ring.
void place_box(const Network& net, const std::vector<int>& extent, const std::vector<int>& at, std::size_t& budget,
               std::vector<NodeBox>& out) {
  const int nd = net.num_dims();
  std::size_t volume = 1;
  for (int e : extent) volume *= static_cast<std::size_t>(e);
  NodeBox box;
  box.net = net;
  box.net.dims = extent;
  for (int d = 0; d < nd; ++d) box.net.wrap[d] = net.wrap[d] && extent[d] == net.dims[d];
  std::vector<int> origin(nd, 0), offset(nd, 0);
  for (std::size_t o = 0; o < net.num_coords(); ++o) {
    std::size_t rest = o;
    bool valid = true;
    for (int d = 0; d < nd; ++d) {
      origin[d] = static_cast<int>(rest % net.dims[d]);
      rest /= net.dims[d];
      // A box that spans the ring needs no other origin; a line must fit.
      if ((extent[d] == net.dims[d] && origin[d] != 0) || (!net.wrap[d] && origin[d] + extent[d] > net.dims[d]))
        valid = false;
    }
    if (!valid) continue;
    box.node_at.assign(volume, -1);
    bool complete = true;
    for (std::size_t i = 0; i < volume && complete; ++i) {
      if (budget == 0) return;
      --budget;
      std::size_t r = i, index = 0, stride = 1;
      for (int d = 0; d < nd; ++d) {
        offset[d] = static_cast<int>(r % static_cast<std::size_t>(extent[d]));
        r /= static_cast<std::size_t>(extent[d]);
        index += static_cast<std::size_t>((origin[d] + offset[d]) % net.dims[d]) * stride;
        stride *= static_cast<std::size_t>(net.dims[d]);
      }
      box.node_at[i] = at[index];
      complete = at[index] >= 0;
    }
    if (complete) {
      out.push_back(std::move(box));
      return;
    }
  }
}

}  // namespace

std::vector<GridShape> grid_shapes(const UndirectedGraph& g) {
  std::vector<GridShape> found;
  const int n = static_cast<int>(g.n);
  for (int nd = 1; nd <= kMaxGridDims && found.empty(); ++nd) {
    std::vector<int> dims(nd);
    std::vector<char> periodic;
    std::function<void(int, int)> choose = [&](int d, int left) {
      if (d == nd - 1) {
        if (left < 2) return;
        dims[d] = left;
        if (is_grid(g, dims, periodic, [](std::uint32_t r) { return r; })) found.push_back({dims, periodic});
        return;
      }
      for (int f = 2; f <= left / 2; ++f)
        if (left % f == 0) dims[d] = f, choose(d + 1, left / f);
    };
    choose(0, n);
  }
  return found;
}

std::optional<GridShape> recovered_shape(const UndirectedGraph& g, const RecoveredGrid& grid) {
  GridShape shape{grid.dims, {}};
  if (grid.dims.empty() || grid.dims.size() > static_cast<std::size_t>(kMaxGridDims)) return std::nullopt;
  const auto& position = grid.position_of_rank;
  if (!is_grid(g, shape.dims, shape.periodic, [&](std::uint32_t r) { return position[r]; })) return std::nullopt;
  return shape;
}

std::vector<std::vector<int>> cartesian_candidates(const UndirectedGraph& g, const std::vector<GridShape>& shapes,
                                                   const NodeBox& box, std::size_t per_node,
                                                   std::size_t max_candidates) {
  std::vector<std::vector<int>> out;
  if (per_node * box.node_at.size() != g.n) return out;
  for (const GridShape& grid : shapes) {
    std::vector<Layout> all = layouts(box.net, grid, per_node);
    // Best estimates first; ties keep the search order, so results are deterministic.
    std::stable_sort(all.begin(), all.end(), [](const Layout& x, const Layout& y) { return x.estimate < y.estimate; });
    for (std::size_t i = 0; i < all.size() && out.size() < max_candidates; ++i)
      out.push_back(node_of_ranks(g, box.net, grid, all[i], box.node_at));
  }
  return out;
}

std::vector<NodeBox> node_boxes(const Allocation& allocation, const NodeGeometry& geo, std::size_t nodes,
                                std::size_t per_node) {
  std::vector<NodeBox> out;
  const Network& net = geo.network();
  const int nd = net.num_dims();
  // Allocation position at every coordinate that takes per_node ranks.
  std::vector<int> at(net.num_coords(), -1);
  for (int k = 0; k < geo.size(); ++k)
    if (allocation.slots(k).size() == per_node) at[geo.coord_index(k)] = k;
  std::vector<int> extent(nd, 1);
  // Work bound: origins tried times box volume, over all shapes.
  std::size_t budget = std::size_t{1} << 24;
  std::function<void(int, std::size_t)> shape = [&](int d, std::size_t left) {
    if (d == nd) {
      if (left == 1) place_box(net, extent, at, budget, out);
      return;
    }
    for (int e = 1; e <= net.dims[d]; ++e)
      if (left % static_cast<std::size_t>(e) == 0) extent[d] = e, shape(d + 1, left / static_cast<std::size_t>(e));
  };
  shape(0, nodes);
  return out;
}

}  // namespace rankmap::detail
