// A dragonfly's links and minimal route (machine.hpp, DragonflyShape),
// for rankmap::for_each_link. Links by id, in blocks:
//   [0, 2n)        each node's own cable: 2 * node up to its router, + 1 down;
//   green          dragonfly: router j to k of one chassis, for every ordered
//                  pair (j == k: no link); Dragonfly+: leaf to spine, up and down;
//   black          dragonfly: one blade's router from chassis c1 to c2;
//   global         group g to h, cable j (one of pair_links()).
// The route goes local, global, local: to the router holding a cable to the
// destination's group, over it, and on to the destination's router. In a
// group, a green hop (along the chassis) comes before a black one (along
// the column), as SimGrid's DragonflyZone routes.
#pragma once

#include <cstddef>

#include "rankmap/machine.hpp"

namespace rankmap::detail {

struct DragonflyLinks {
  std::size_t nodes, routers, chassis, groups, per_group, spines, cables;
  std::size_t green, black, global;  // first id of each block

  explicit DragonflyLinks(const Network& net)
      : nodes(static_cast<std::size_t>(net.dragonfly.nodes)),
        routers(static_cast<std::size_t>(net.dragonfly.routers)),
        chassis(static_cast<std::size_t>(net.dragonfly.chassis)),
        groups(static_cast<std::size_t>(net.dragonfly.groups)),
        per_group(routers * chassis),
        spines(static_cast<std::size_t>(net.dragonfly.spines)),
        cables(static_cast<std::size_t>(net.dragonfly.pair_links())) {
    green = 2 * net.num_coords();
    const std::size_t routers_all = groups * per_group;
    black = green + (spines ? routers_all * spines * 2 : routers_all * routers);
    global = black + (spines ? 0 : groups * routers * chassis * chassis);
  }
  std::size_t count() const { return global + groups * groups * cables; }
  std::size_t green_link(std::size_t group_chassis, std::size_t from, std::size_t to) const {
    return green + (group_chassis * routers + from) * routers + to;
  }
  std::size_t black_link(std::size_t group, std::size_t blade, std::size_t from, std::size_t to) const {
    return black + ((group * routers + blade) * chassis + from) * chassis + to;
  }
  std::size_t spine_link(std::size_t leaf, std::size_t spine, bool down) const {
    return green + (leaf * spines + spine) * 2 + (down ? 1 : 0);
  }
  std::size_t global_link(std::size_t from, std::size_t to, std::size_t cable) const {
    return global + (from * groups + to) * cables + cable;
  }
  // The group of a link inside groups (a node's cable, a local link).
  std::size_t group_of(std::size_t link) const {
    if (link < green) return link / 2 / (nodes * per_group);
    if (link < black)
      return spines ? (link - green) / 2 / spines / per_group : (link - green) / routers / routers / chassis;
    return (link - black) / (routers * chassis * chassis);
  }
};

// A dragonfly group's local links from router x to router y (counted in
// group g): the row (green) hop, then the column (black) hop. SimGrid's
// route within one group goes on from chassis 0 after the row hop
// (`simgrid_same_group`).
template <class Visit>
void for_each_dragonfly_local_link(const DragonflyLinks& L, std::size_t g, std::size_t x, std::size_t y,
                                   bool simgrid_same_group, Visit&& visit) {
  std::size_t cx = x / L.routers, bx = x % L.routers;
  const std::size_t cy = y / L.routers, by = y % L.routers;
  if (bx != by) {
    visit(L.green_link(g * L.chassis + cx, bx, by));
    bx = by;
    if (simgrid_same_group) cx = 0;
  }
  if (cx != cy) visit(L.black_link(g, bx, cx, cy));
}

// The router (or spine) of group g, counted in the group, that holds cable
// j to group h. rankmap's wiring deals a group's cables round-robin over
// its routers, the j-th cables to every other group before the (j+1)-th:
// a pair's cables land on different routers. SimGrid's: router h of
// chassis 0 holds the one (summed) link to group h.
inline std::size_t dragonfly_cable_router(const DragonflyShape& s, std::size_t g, std::size_t h, std::size_t j) {
  if (s.simgrid_wiring) return h;
  const auto groups = static_cast<std::size_t>(s.groups);
  const std::size_t port = j * (groups - 1) + (h + groups - g - 1) % groups;
  return port % static_cast<std::size_t>(s.global_routers());
}

// Minimal routing between coordinate indices a and b. A pair of groups
// with several cables sends traffic to node b over cable b mod cables
// (D-mod-k, as InfiniBand's subnet managers route by destination and as
// the tree kind does); a Dragonfly+ goes up to spine b mod spines inside a
// group. A hash of both ends, (a + b) mod cables, put every pair of a face
// whose partners are a constant even offset apart on one cable. SimGrid's
// wiring also takes its route as written in 3.32: within a group, after a
// green hop it goes on as if from chassis 0, so that some routes miss a
// black link or take another column's.
template <class Visit>
void for_each_dragonfly_link(const Network& net, std::size_t a, std::size_t b, Visit&& visit) {
  const DragonflyShape& s = net.dragonfly;
  const DragonflyLinks L(net);
  visit(2 * a);
  const std::size_t ra = a / L.nodes, rb = b / L.nodes;
  if (ra != rb) {
    const std::size_t ga = ra / L.per_group, gb = rb / L.per_group;
    if (s.plus()) {
      if (ga == gb) {
        const std::size_t spine = b % L.spines;
        visit(L.spine_link(ra, spine, false));
        visit(L.spine_link(rb, spine, true));
      } else {
        const std::size_t j = b % L.cables;
        visit(L.spine_link(ra, dragonfly_cable_router(s, ga, gb, j), false));
        visit(L.global_link(ga, gb, j));
        visit(L.spine_link(rb, dragonfly_cable_router(s, gb, ga, j), true));
      }
    } else {
      const std::size_t xa = ra % L.per_group, xb = rb % L.per_group;
      if (ga == gb) {
        for_each_dragonfly_local_link(L, ga, xa, xb, s.simgrid_wiring, visit);
      } else {
        const std::size_t j = b % L.cables;
        for_each_dragonfly_local_link(L, ga, xa, dragonfly_cable_router(s, ga, gb, j), false, visit);
        visit(L.global_link(ga, gb, j));
        for_each_dragonfly_local_link(L, gb, dragonfly_cable_router(s, gb, ga, j), xb, false, visit);
      }
    }
  }
  visit(2 * b + 1);
}

}  // namespace rankmap::detail
