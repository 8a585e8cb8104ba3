// One node of an SMPI platform, the same in the torus and the tree
// platform: a zone of `cores` hosts named "<name>-<core>" (a rank each), a
// router (the zone's gateway), each host's way to the router and back
// (`way` makes the links inside the zone: the NIC on a torus, a port that
// never limits on a tree), and a memory link between two hosts of the
// node, of latency local_ns, each message alone at `memory_rate` bytes/s
// (a fat pipe), as rankmap's t_local.
#pragma once

#include <simgrid/s4u.hpp>

#include <string>
#include <utility>
#include <vector>

namespace rankmap_smpi {

struct NodeZone {
  simgrid::kernel::routing::NetPoint* zone;
  simgrid::kernel::routing::NetPoint* router;
};

// way(zone) -> {host to router, router to host}.
template <class Way>
NodeZone make_node_zone(const simgrid::s4u::NetZone* parent, const std::string& name, int cores, double local_ns,
                        double memory_rate, Way&& way) {
  namespace sg4 = simgrid::s4u;
  auto* zone = sg4::create_full_zone(name + "-zone");
  zone->set_parent(parent);
  const std::pair<sg4::LinkInRoute, sg4::LinkInRoute> up_down = way(zone);
  const sg4::Link* memory = zone->create_link(name + "-memory", memory_rate)
                                ->set_latency(local_ns * 1e-9)
                                ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                                ->seal();
  auto* router = zone->create_router(name + "-router");
  std::vector<simgrid::kernel::routing::NetPoint*> hosts;
  for (int c = 0; c < cores; ++c)
    hosts.push_back(zone->create_host(name + "-" + std::to_string(c), "1Gf")->seal()->get_netpoint());
  for (auto* h : hosts) {
    zone->add_route(h, router, nullptr, nullptr, {up_down.first}, false);
    zone->add_route(router, h, nullptr, nullptr, {up_down.second}, false);
    for (auto* other : hosts)
      if (other != h) zone->add_route(h, other, nullptr, nullptr, {sg4::LinkInRoute(memory)}, false);
  }
  zone->seal();
  return {zone->get_netpoint(), router};
}

}  // namespace rankmap_smpi
