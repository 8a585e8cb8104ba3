// A grid's coordinates read from its edges, not from its rank numbering, so
// that a halo exchange whose ranks were renumbered (by the application, a
// communicator split or a launcher) still reaches the Cartesian layouts.
//
// The "axis graph" is the grid's face neighbours: all edges for a 5- or
// 7-point stencil; for a 9- or 27-point stencil whose diagonal neighbours
// exchange less, the edges above the lightest weight classes; with equal
// weights, the edges whose ends share half their neighbourhoods. Directions are carried
// from vertex to vertex by breadth-first search: at w, reached from v along
// direction d, a neighbour x of w that closes a square v-w-x-y with a
// neighbour y of v on another axis takes y's direction; otherwise it goes
// straight on (d). Walking one direction from the start gives each axis's
// length and whether it wraps. recovered_shape() then checks every edge
// against the grid it names, so a wrong guess costs a pass, never a mapping.
#include <algorithm>
#include <array>
#include <optional>
#include <queue>
#include <thread>

#include "core/huge_pages.hpp"
#include "core/prefetch.hpp"
#include "core/workers.hpp"
#include "map/engine.hpp"

namespace rankmap::detail {
namespace {

constexpr int kMaxAxes = 3;               // as the Cartesian layouts
constexpr int kMaxDegree = 2 * kMaxAxes;  // face neighbours of a grid vertex
// A ring of 4 is a 2x2 square (C4 = K2 x K2), so unfolding sees each as two
// axes of 2; place() joins such pairs back into rings.
constexpr int kMaxUnfoldedAxes = kMaxDegree;
constexpr std::size_t kWeightClasses = 4;  // lightest classes dropped, at most

// Face-neighbour subgraph: the kept edges of each vertex, in its order.
struct AxisGraph {
  std::vector<std::uint64_t> xadj;
  std::vector<std::uint32_t> adj;
  std::uint32_t degree(std::uint32_t v) const { return static_cast<std::uint32_t>(xadj[v + 1] - xadj[v]); }
  bool adjacent(std::uint32_t a, std::uint32_t b) const {
    for (std::uint64_t e = xadj[a]; e < xadj[a + 1]; ++e)
      if (adj[e] == b) return true;
    return false;
  }
};

// The edges `keep(v, e)` accepts, or an empty xadj when some vertex would
// keep more than kMaxDegree of them, or none. keep() runs twice an edge
// (count, then fill) rather than a flag an edge being stored: on Fugaku's
// 392M edge ends that array was 392 MB of fresh pages. Millions of edges:
// a range of vertices a thread, for both passes.
template <class Keep>
AxisGraph axis_graph(const UndirectedGraph& g, Keep&& keep) {
  AxisGraph a;
  a.xadj = huge_vector<std::uint64_t>(static_cast<std::size_t>(g.n) + 1);
  const std::size_t ranges = ranges_for(g.n, g.adjncy.size() >= kParallelEdges);
  std::vector<char> fits(ranges, 1);
  for_each_range(g.n, ranges, [&](std::size_t i, std::size_t begin, std::size_t end) {
    for (auto v = static_cast<std::uint32_t>(begin); v < end; ++v) {
      std::uint32_t d = 0;
      for (std::uint64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) d += keep(v, e) ? 1 : 0;
      if (d > kMaxDegree || d == 0) {
        fits[i] = 0;
        return;
      }
      a.xadj[v + 1] = d;
    }
  });
  if (std::find(fits.begin(), fits.end(), 0) != fits.end()) return {};
  for (std::uint32_t v = 0; v < g.n; ++v) a.xadj[v + 1] += a.xadj[v];
  a.adj = huge_vector<std::uint32_t>(a.xadj[g.n]);
  for_each_range(g.n, ranges, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (auto v = static_cast<std::uint32_t>(begin); v < end; ++v) {
      std::uint64_t at = a.xadj[v];
      for (std::uint64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e)
        if (keep(v, e)) a.adj[at++] = g.adjncy[e];
    }
  });
  return a;
}

// A 9- or 27-point stencil of equal weights: face neighbours share at least
// half their closed neighbourhoods (Jaccard >= 1/2: 18 of 36 cells inside,
// 12 of 24 on a boundary), diagonal ones less (12 of 42, 8 of 46; 8 of 18
// at a corner). A 5- or 7-point stencil has no triangles and fails here; it
// was tried with all its edges first.
//
// Per edge: 3 * |N[u] & N[v]| - |N[u]| - |N[v]|, >= 0 when the Jaccard index
// of the closed neighbourhoods is at least 1/2. Neighbours of u are marked
// once, then counted in each neighbour's list (no sorted merges: this runs
// over every edge of million-rank stencils).
std::vector<std::int32_t> half_shared_margins(const UndirectedGraph& g) {
  std::vector<std::int32_t> margin = huge_vector<std::int32_t>(g.adjncy.size());
  auto degree = [&](std::uint32_t v) { return static_cast<std::int32_t>(g.xadj[v + 1] - g.xadj[v]); };
  const std::uint64_t edges = g.adjncy.size();
  // Vertices [begin, end): each edge u-v, u < v, is computed once, from u,
  // and written at both ends, so two ranges never write the same entry.
  auto margins = [&](std::uint32_t begin, std::uint32_t end) {
    // A bit a vertex (128 KiB for a million): stays in the core's cache.
    std::vector<std::uint64_t> bits(g.n / 64 + 1, 0);
    auto flip = [&](std::uint32_t x) { bits[x >> 6] ^= std::uint64_t{1} << (x & 63); };
    auto mark = [&](std::uint32_t x) { return static_cast<std::int32_t>((bits[x >> 6] >> (x & 63)) & 1); };
    for (std::uint32_t u = begin; u < end; ++u) {
      for (std::uint64_t e = g.xadj[u]; e < g.xadj[u + 1]; ++e) flip(g.adjncy[e]);
      for (std::uint64_t e = g.xadj[u]; e < g.xadj[u + 1]; ++e) {
        // Renumbered ranks' rows are far apart: their starts are fetched 16
        // edges ahead, and 8 ahead the rows (both cache lines of a 27-point
        // row) and the middle of their margins, where the copy back lands,
        // so that misses overlap (2.4 s to 1.6 s at a million ranks).
        if (e + 16 < edges) detail::prefetch(g.xadj, g.adjncy[e + 16]);
        if (e + 8 < edges) {
          const std::uint64_t row = g.xadj[g.adjncy[e + 8]];
          detail::prefetch(g.adjncy, row);
          detail::prefetch(g.adjncy, row + 16);
          detail::prefetch_for_write(margin, row + 8);
        }
        const std::uint32_t v = g.adjncy[e];
        if (v < u) continue;    // done from v's side, copied below
        std::int32_t both = 2;  // u and v themselves
        for (std::uint64_t f = g.xadj[v]; f < g.xadj[v + 1]; ++f) both += mark(g.adjncy[f]);
        margin[e] = 3 * both - (degree(u) + 1) - (degree(v) + 1);
        // The same value on v's edge back to u (lists ascending).
        const auto first = g.adjncy.begin() + static_cast<std::ptrdiff_t>(g.xadj[v]);
        const auto back = std::lower_bound(first, g.adjncy.begin() + static_cast<std::ptrdiff_t>(g.xadj[v + 1]), u);
        margin[static_cast<std::size_t>(back - g.adjncy.begin())] = margin[e];
      }
      for (std::uint64_t e = g.xadj[u]; e < g.xadj[u + 1]; ++e) flip(g.adjncy[e]);  // rows have no repeats
    }
  };
  // Millions of edges: a range of vertices a thread (a renumbered
  // million-rank stencil's rows are cache misses, which cores overlap).
  for_each_range(g.n, ranges_for(g.n, edges >= kParallelEdges), [&](std::size_t, std::size_t begin, std::size_t end) {
    margins(static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end));
  });
  return margin;
}

// Next to a corner of the grid, a diagonal such as (1,0,z)-(0,1,z) also
// shares exactly half; it closes a triangle with two faces that share more
// than half ((0,0,z) to each), which a true face never does. Such faces are
// rare (inside the grid a face shares exactly half): `has_more` says which
// vertices have one, so that most edges skip the scan of v's row, a cache
// miss for renumbered ranks.
bool is_face(const UndirectedGraph& g, const std::vector<std::int32_t>& margin, const std::vector<char>& has_more,
             std::uint32_t u, std::uint64_t e) {
  if (margin[e] != 0) return margin[e] > 0;
  const std::uint32_t v = g.adjncy[e];
  if (!has_more[u] || !has_more[v]) return true;
  for (std::uint64_t f = g.xadj[v]; f < g.xadj[v + 1]; ++f) {
    if (margin[f] <= 0) continue;
    for (std::uint64_t h = g.xadj[u]; h < g.xadj[u + 1]; ++h)
      if (g.adjncy[h] == g.adjncy[f] && margin[h] > 0) return false;
  }
  return true;
}

// Direction codes: 2 * axis + (0 for +, 1 for -).
using Dir = std::int8_t;
constexpr Dir kNone = -1;

class Unfolder {
  using Coords = std::array<int, kMaxUnfoldedAxes>;

 public:
  explicit Unfolder(const AxisGraph& a, std::uint32_t n)
      : a_(a), n_(n), dir_(huge_vector<Dir>(a.adj.size(), kNone)), coord_(huge_vector<Coords>(n)) {}

  std::optional<RecoveredGrid> run() {
    // Start at a vertex of least degree: a corner when the grid has one.
    std::uint32_t s = 0;
    for (std::uint32_t v = 1; v < n_; ++v)
      if (a_.degree(v) < a_.degree(s)) s = v;
    if (!label_start(s)) return std::nullopt;
    std::vector<char> seen = huge_vector<char>(n_);
    std::queue<std::uint32_t> queue;
    seen[s] = 1;
    queue.push(s);
    std::uint32_t reached = 1;
    while (!queue.empty()) {
      const std::uint32_t v = queue.front();
      queue.pop();
      for (std::uint64_t e = a_.xadj[v]; e < a_.xadj[v + 1]; ++e) {
        const std::uint32_t w = a_.adj[e];
        if (seen[w]) continue;
        seen[w] = 1;
        ++reached;
        coord_[w] = coord_[v];
        coord_[w][dir_[e] / 2] += dir_[e] % 2 ? -1 : 1;
        label_from(v, dir_[e], w);
        queue.push(w);
      }
    }
    if (reached != n_) return std::nullopt;  // not connected: no single grid
    return place(s);
  }

 private:
  // s's neighbours: each opens an axis (+) unless it is opposite (shares no
  // other neighbour with) one already labelled +, which it then closes (-).
  bool label_start(std::uint32_t s) {
    for (std::uint64_t e = a_.xadj[s]; e < a_.xadj[s + 1]; ++e) {
      if (dir_[e] != kNone) continue;
      if (axes_ == kMaxUnfoldedAxes) return false;
      dir_[e] = static_cast<Dir>(2 * axes_);
      for (std::uint64_t f = e + 1; f < a_.xadj[s + 1]; ++f)
        if (dir_[f] == kNone && !shares_other_neighbour(a_.adj[e], a_.adj[f], s)) {
          dir_[f] = static_cast<Dir>(2 * axes_ + 1);
          break;
        }
      ++axes_;
    }
    return true;
  }

  bool shares_other_neighbour(std::uint32_t x, std::uint32_t y, std::uint32_t except) const {
    for (std::uint64_t e = a_.xadj[x]; e < a_.xadj[x + 1]; ++e)
      if (a_.adj[e] != except && a_.adjacent(a_.adj[e], y)) return true;
    return false;
  }

  // Directions of w's edges, from v's (w reached from v along d).
  void label_from(std::uint32_t v, Dir d, std::uint32_t w) {
    for (std::uint64_t e = a_.xadj[w]; e < a_.xadj[w + 1]; ++e) {
      const std::uint32_t x = a_.adj[e];
      if (x == v) {
        dir_[e] = static_cast<Dir>(d ^ 1);
        continue;
      }
      Dir label = d;  // straight on, unless a square turns it
      for (std::uint64_t f = a_.xadj[v]; f < a_.xadj[v + 1]; ++f) {
        const std::uint32_t y = a_.adj[f];
        if (y != w && dir_[f] / 2 != d / 2 && a_.adjacent(y, x)) {
          label = dir_[f];
          break;
        }
      }
      dir_[e] = label;
    }
  }

  // Steps from s along direction d until the grid ends or comes back to s.
  std::pair<std::uint32_t, bool> walk(std::uint32_t s, Dir d) const {
    std::uint32_t x = s, steps = 0;
    while (steps <= n_) {
      std::uint32_t next = x;
      for (std::uint64_t e = a_.xadj[x]; e < a_.xadj[x + 1]; ++e)
        if (dir_[e] == d) next = a_.adj[e];
      if (next == x) return {steps, false};
      x = next;
      ++steps;
      if (x == s) return {steps, true};
    }
    return {0, false};
  }

  std::optional<RecoveredGrid> place(std::uint32_t s) const {
    // Each unfolded axis: its length, and where its positions start.
    std::array<int, kMaxUnfoldedAxes> length{}, low{};
    std::array<bool, kMaxUnfoldedAxes> wraps{};
    std::uint64_t volume = 1;
    for (int k = 0; k < axes_; ++k) {
      const auto [ahead, round] = walk(s, static_cast<Dir>(2 * k));
      wraps[k] = round;
      if (round) {
        length[k] = static_cast<int>(ahead);
      } else {
        const std::uint32_t behind = walk(s, static_cast<Dir>(2 * k + 1)).first;
        length[k] = static_cast<int>(ahead + behind + 1);
        low[k] = -static_cast<int>(behind);
      }
      if (length[k] < 2) return std::nullopt;
      volume *= static_cast<std::uint64_t>(length[k]);
    }
    if (volume != n_) return std::nullopt;
    auto position = [&](std::uint32_t v, int k) {
      const int c = coord_[v][k];
      return wraps[k] ? ((c % length[k]) + length[k]) % length[k] : c - low[k];
    };
    // Grid axes: unfolded axes, or pairs of 2-long ones joined into a ring
    // of 4 in Gray order (0,0) (1,0) (1,1) (0,1).
    struct Axis {
      int first, second, length;  // second < 0: a single unfolded axis
    };
    std::vector<Axis> axes;
    std::vector<int> twos;
    for (int k = 0; k < axes_; ++k)
      if (length[k] == 2) twos.push_back(k);
    int surplus = axes_ - kMaxAxes;
    std::vector<char> joined(axes_, 0);
    for (std::size_t i = 0; surplus > 0 && i + 1 < twos.size(); i += 2, --surplus) {
      axes.push_back({twos[i], twos[i + 1], 4});
      joined[twos[i]] = joined[twos[i + 1]] = 1;
    }
    for (int k = 0; k < axes_; ++k)
      if (!joined[k]) axes.push_back({k, -1, length[k]});
    if (axes.size() > static_cast<std::size_t>(kMaxAxes)) return std::nullopt;
    // Longest axis first (X fastest), as a halo code usually numbers them.
    std::stable_sort(axes.begin(), axes.end(), [](const Axis& x, const Axis& y) { return x.length > y.length; });
    auto grid_coord = [&](std::uint32_t v, const Axis& axis) {
      if (axis.second < 0) return position(v, axis.first);
      const int a = position(v, axis.first), b = position(v, axis.second);
      return b == 0 ? a : 3 - a;
    };
    RecoveredGrid grid;
    for (const Axis& axis : axes) grid.dims.push_back(axis.length);
    grid.position_of_rank = huge_vector<std::uint32_t>(n_);
    std::vector<char> taken = huge_vector<char>(n_);
    for (std::uint32_t v = 0; v < n_; ++v) {
      std::uint64_t index = 0;
      for (int i = static_cast<int>(axes.size()) - 1; i >= 0; --i) {
        const int c = grid_coord(v, axes[i]);
        if (c < 0 || c >= axes[i].length) return std::nullopt;
        index = index * static_cast<std::uint64_t>(axes[i].length) + static_cast<std::uint64_t>(c);
      }
      if (taken[index]) return std::nullopt;
      taken[index] = 1;
      grid.position_of_rank[v] = static_cast<std::uint32_t>(index);
    }
    return grid;
  }

  const AxisGraph& a_;
  std::uint32_t n_;
  std::vector<Dir> dir_;  // per edge of the axis graph
  std::vector<Coords> coord_;
  int axes_ = 0;
};

}  // namespace

std::optional<RecoveredGrid> recover_grid(const UndirectedGraph& g) {
  if (g.n < 4) return std::nullopt;
  // The distinct edge weights, lightest first. With many, the graph is no
  // weighted stencil: only all edges together are tried.
  std::vector<std::uint64_t> classes;
  for (std::uint64_t w : g.weight) {
    if (std::find(classes.begin(), classes.end(), w) != classes.end()) continue;
    classes.push_back(w);
    if (classes.size() > 4 * kWeightClasses) {
      classes = {*std::min_element(g.weight.begin(), g.weight.end())};
      break;
    }
  }
  std::sort(classes.begin(), classes.end());
  for (std::size_t i = 0; i < classes.size() && i <= kWeightClasses; ++i) {
    const std::uint64_t threshold = classes[i];
    const AxisGraph a = axis_graph(g, [&](std::uint32_t, std::uint64_t e) { return g.weight[e] >= threshold; });
    if (a.xadj.empty()) continue;
    if (auto grid = Unfolder(a, g.n).run()) return grid;
  }
  // Equal weights with diagonals: faces told apart by shared neighbours. A
  // 3^3-point stencil has at most 26 neighbours a rank.
  std::uint64_t max_degree = 0;
  for (std::uint32_t v = 0; v < g.n; ++v) max_degree = std::max(max_degree, g.xadj[v + 1] - g.xadj[v]);
  if (max_degree > 26) return std::nullopt;
  const std::vector<std::int32_t> margin = half_shared_margins(g);
  std::vector<char> has_more = huge_vector<char>(g.n);
  for_each_range(g.n, ranges_for(g.n, g.adjncy.size() >= kParallelEdges),
                 [&](std::size_t, std::size_t begin, std::size_t end) {
                   for (std::size_t v = begin; v < end; ++v)
                     for (std::uint64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) has_more[v] |= margin[e] > 0;
                 });
  const AxisGraph a =
      axis_graph(g, [&](std::uint32_t v, std::uint64_t e) { return is_face(g, margin, has_more, v, e); });
  if (a.xadj.empty()) return std::nullopt;
  return Unfolder(a, g.n).run();
}

}  // namespace rankmap::detail
