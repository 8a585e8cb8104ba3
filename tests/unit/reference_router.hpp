// A second, deliberately simple router for the tests: it walks one hop at a
// time, re-deciding at every step, and names links by coordinates rather
// than by the library's link ids. BFS on an explicitly built torus graph
// gives the distances it must match.
#pragma once

#include <deque>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "rankmap/machine.hpp"

namespace rankmap::test {

using Coord = std::vector<int>;
struct Link {
  Coord from;
  int dim;
  int sign;
  auto operator<=>(const Link&) const = default;
};

inline Coord coord_of(std::size_t index, const std::vector<int>& dims) {
  Coord c;
  for (int n : dims) {
    c.push_back(static_cast<int>(index % n));
    index /= n;
  }
  return c;
}

// The library's link id decoded by the formula its header documents.
inline Link decode_link(std::size_t id, const std::vector<int>& dims) {
  const int nd = static_cast<int>(dims.size());
  const int sign = id % 2 ? -1 : +1;
  id /= 2;
  const int dim = static_cast<int>(id % nd);
  return {coord_of(id / nd, dims), dim, sign};
}

// Shortest signed move along one dimension; half way round a ring goes `+`.
inline int signed_delta(int from, int to, int n, bool wrap) {
  if (!wrap) return to - from;
  const int plus = ((to - from) % n + n) % n;
  return plus <= n - plus ? plus : plus - n;
}

inline std::vector<Link> reference_route(const Network& net, Coord cur, const Coord& to) {
  std::vector<Link> links;
  for (;;) {
    bool moved = false;
    for (const RouteStep& step : net.routing) {
      const int n = net.dims[step.dim];
      const int d = signed_delta(cur[step.dim], to[step.dim], n, net.wrap[step.dim]);
      if (d == 0 || (d > 0) != (step.sign > 0)) continue;
      links.push_back({cur, step.dim, step.sign});
      cur[step.dim] = ((cur[step.dim] + step.sign) % n + n) % n;
      moved = true;
      break;
    }
    if (!moved) return links;
  }
}

// Hop distances from `from` to every coordinate, by BFS over cables.
inline std::map<Coord, int> bfs_distances(const Network& net, const Coord& from) {
  std::map<Coord, int> dist{{from, 0}};
  std::deque<Coord> queue{from};
  while (!queue.empty()) {
    Coord c = queue.front();
    queue.pop_front();
    for (int d = 0; d < net.num_dims(); ++d)
      for (int s : {-1, +1}) {
        Coord next = c;
        next[d] += s;
        if (next[d] < 0 || next[d] >= net.dims[d]) {
          if (!net.wrap[d]) continue;
          next[d] = (next[d] + net.dims[d]) % net.dims[d];
        }
        if (dist.emplace(next, dist[c] + 1).second) queue.push_back(next);
      }
  }
  return dist;
}

}  // namespace rankmap::test
