// A dragonfly or Dragonfly+ (machine.hpp, DragonflyShape): its links by id
// and route are in detail/dragonfly_route.hpp; here their count, rates,
// names and the distances the gain model reads. A node's coordinates are
// {node on its router, router in its chassis, chassis, group}; its
// coordinate index counts nodes router by router, group by group (as
// SimGrid numbers a dragonfly zone's hosts).
#include "machine/dragonfly_network.hpp"

#include <algorithm>

#include "rankmap/detail/dragonfly_route.hpp"

namespace rankmap {
namespace {

using detail::DragonflyLinks;

enum class Block { nic, green, black, global };

Block block_of(const DragonflyLinks& l, std::size_t link) {
  if (link < l.green) return Block::nic;
  if (link < l.black) return Block::green;
  if (link < l.global) return Block::black;
  return Block::global;
}

// "g0c1r2" (a dragonfly's router), "g0l3" (a leaf), "g0s5" (a spine).
std::string router_name(const DragonflyLinks& l, std::size_t router, bool plus) {
  const std::size_t g = router / l.per_group, in_group = router % l.per_group;
  if (plus) return "g" + std::to_string(g) + "l" + std::to_string(in_group);
  return "g" + std::to_string(g) + "c" + std::to_string(in_group / l.routers) + "r" +
         std::to_string(in_group % l.routers);
}

std::string global_router_name(const DragonflyLinks& l, const DragonflyShape& s, std::size_t g, std::size_t r) {
  if (s.plus()) return "g" + std::to_string(g) + "s" + std::to_string(r);
  return router_name(l, g * l.per_group + r, false);
}

}  // namespace

int Network::dragonfly_hops(std::size_t a, std::size_t b) const {
  if (a == b) return 0;
  int hops = 0;
  detail::for_each_dragonfly_link(*this, a, b, [&](std::size_t) { ++hops; });
  return hops;
}

std::pair<int, int> Network::global_link_groups(std::size_t link) const {
  const DragonflyLinks l(*this);
  const std::size_t pair = (link - l.global) / l.cables;
  return {static_cast<int>(pair / l.groups), static_cast<int>(pair % l.groups)};
}

namespace detail {

int dragonfly_diameter(const Network& net) {
  const DragonflyShape& s = net.dragonfly;
  if (net.num_coords() <= 1) return 0;
  if (s.plus()) return s.groups > 1 ? 5 : s.routers > 1 ? 4 : 2;
  const int local = (s.routers > 1 ? 1 : 0) + (s.chassis > 1 ? 1 : 0);
  return s.groups > 1 ? 3 + 2 * local : 2 + local;
}

bool dragonfly_has_link(const Network& net, std::size_t link) {
  const DragonflyLinks l(net);
  switch (block_of(l, link)) {
    case Block::nic: return true;
    case Block::green:
      if (net.dragonfly.plus()) return true;
      return (link - l.green) / l.routers % l.routers != (link - l.green) % l.routers;
    case Block::black: return (link - l.black) / l.chassis % l.chassis != (link - l.black) % l.chassis;
    case Block::global: {
      const auto [g, h] = net.global_link_groups(link);
      return g != h;
    }
  }
  return true;
}

std::size_t dragonfly_num_links(const Network& net) { return DragonflyLinks(net).count(); }

double dragonfly_link_gbps(const Network& net, std::size_t link) {
  const DragonflyShape& s = net.dragonfly;
  const DragonflyLinks l(net);
  const double local = s.local_gbps > 0 ? s.local_gbps : net.link_gbps;
  const double global = s.global_gbps > 0 ? s.global_gbps : net.link_gbps;
  switch (block_of(l, link)) {
    case Block::nic: return net.link_gbps;
    case Block::green: return local * s.router_links;
    case Block::black: return local * s.chassis_links;
    case Block::global: return global * (s.simgrid_wiring ? s.global_links : 1);
  }
  return net.link_gbps;
}

std::string dragonfly_link_name(const Network& net, std::size_t link,
                                const std::function<std::string(std::size_t)>& node) {
  const DragonflyShape& s = net.dragonfly;
  const DragonflyLinks l(net);
  switch (block_of(l, link)) {
    case Block::nic: {
      const std::size_t n = link / 2;
      const std::string who = node ? node(n) : "node " + std::to_string(n);
      return who + (link % 2 ? " down from " : " up to ") + router_name(l, n / l.nodes, s.plus());
    }
    case Block::green: {
      std::size_t i = link - l.green;
      if (s.plus()) {
        const bool down = i % 2;
        i /= 2;
        const std::size_t leaf = i / l.spines, spine = i % l.spines;
        const std::string lower = router_name(l, leaf, true);
        const std::string upper = global_router_name(l, s, leaf / l.per_group, spine);
        return down ? upper + " down to " + lower : lower + " up to " + upper;
      }
      const std::size_t to = i % l.routers, from = i / l.routers % l.routers, group_chassis = i / l.routers / l.routers;
      return router_name(l, group_chassis * l.routers + from, false) + " to " +
             router_name(l, group_chassis * l.routers + to, false) + " (row)";
    }
    case Block::black: {
      const std::size_t i = link - l.black;
      const std::size_t to = i % l.chassis, from = i / l.chassis % l.chassis,
                        blade = i / l.chassis / l.chassis % l.routers, g = i / l.chassis / l.chassis / l.routers;
      return router_name(l, (g * l.chassis + from) * l.routers + blade, false) + " to " +
             router_name(l, (g * l.chassis + to) * l.routers + blade, false) + " (column)";
    }
    case Block::global: {
      const auto [g, h] = net.global_link_groups(link);
      const std::size_t j = (link - l.global) % l.cables;
      const auto gu = static_cast<std::size_t>(g), hu = static_cast<std::size_t>(h);
      std::string name = "global g" + std::to_string(g) + " to g" + std::to_string(h);
      if (l.cables > 1) name += " (cable " + std::to_string(j) + ")";
      return name + ": " + global_router_name(l, s, gu, dragonfly_cable_router(s, gu, hu, j)) + " to " +
             global_router_name(l, s, hu, dragonfly_cable_router(s, hu, gu, j));
    }
  }
  return "link " + std::to_string(link);
}

// Over ordered pairs of distinct nodes, in closed form (a group may have
// 2^16 routers). Two nodes of one router: 2 hops. Two routers of a group,
// besides the nodes' 2 cables: a Dragonfly+ 2 (up to a spine and down);
// a dragonfly a row hop where the blades differ (P - C partners of each
// of the P routers) and a column hop where the chassis differ (P - R).
// SimGrid's route goes on from chassis 0 after a row hop: then a column
// hop where the destination's chassis is not 0 ((P - R) destinations,
// each from P - C sources), and where the blades agree as ours. Between
// groups, a route is 3 hops (two nodes' cables and the global one) plus
// the local hops to and from the cable's routers, whose sum over a
// group's routers does not depend on which router holds the cable.
double dragonfly_mean_distance(const Network& net) {
  const DragonflyShape& s = net.dragonfly;
  const auto n = static_cast<double>(net.num_coords());
  if (n <= 1) return 0;
  const DragonflyLinks l(net);
  const auto N = static_cast<double>(l.nodes), P = static_cast<double>(l.per_group), G = static_cast<double>(l.groups);
  const auto C = static_cast<double>(l.chassis), R = static_cast<double>(l.routers);
  double local = 0;  // local hops summed over ordered pairs of distinct routers of a group
  if (s.plus())
    local = 2 * P * (P - 1);
  else if (s.simgrid_wiring)
    local = P * (P - C) + (P - R) * (P - C) + P * (C - 1);
  else
    local = P * (P - C) + P * (P - R);
  const double within = 2 * P * N * (N - 1) + N * N * (2 * P * (P - 1) + local);
  const double to_cable = s.plus() ? P : (P - C) + (P - R);  // from every router to one holding a cable
  const double between = 3 * P * P + 2 * P * to_cable;
  const double total = G * within + G * (G - 1) * N * N * between;
  return total / (n * (n - 1));
}

}  // namespace detail
}  // namespace rankmap
