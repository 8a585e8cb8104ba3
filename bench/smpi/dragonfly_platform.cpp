// An SMPI platform on SimGrid's own dragonfly zone (DragonflyZone, 3.32:
// its links, its minimal static routes), shaped by a rankmap machine file
// of kind "dragonfly" with wiring = "simgrid" (dragonfly_zone.hpp). Loaded
// by smpirun -platform ./rankmap-smpi-dragonfly.so; the torus and tree
// platforms are rankmap's own routes, this one is SimGrid's.
//
// Each node is a zone (node_zone.hpp): one host per core, a router, and
// a port to it that never limits, with latency t_inj up and t_ej down, so
// that every route between two nodes has latency t_inj + t_ej. The zone's
// links carry none (SimGrid would share them by route latency, unlike
// rankmap's model), each at link_gbps times its cable count; a latency
// factor makes a route of h zone links cost Network::message_ns(h), the
// nodes' own links counted as rankmap counts them. Runs must not pass
// smpi/lat-factor.
//
// Environment:
//   RANKMAP_SMPI_MACHINE  the machine file
//   RANKMAP_SMPI_CORES    hosts (ranks) per node (default: the node's cores)
#include <simgrid/s4u.hpp>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "dragonfly_zone.hpp"
#include "hop_latency.hpp"
#include "node_zone.hpp"

namespace sg4 = simgrid::s4u;

extern "C" void load_platform(const sg4::Engine& /*engine*/);
void load_platform(const sg4::Engine& /*engine*/) {
  const char* path = std::getenv("RANKMAP_SMPI_MACHINE");
  if (!path || !*path) throw std::invalid_argument("RANKMAP_SMPI_MACHINE: expected a rankmap machine file");
  const auto machine = std::make_shared<const rankmap::Machine>(rankmap::load_machine(path));
  const rankmap::Machine& m = *machine;
  const rankmap::Network& net = m.network;
  const char* cores_text = std::getenv("RANKMAP_SMPI_CORES");
  const double rate = rankmap_smpi::gbps_to_bytes_per_second(net.link_gbps);
  auto* zone = sg4::create_dragonfly_zone(
      "dragonfly", nullptr, rankmap_smpi::dragonfly_params(m, path),
      sg4::ClusterCallbacks([&](sg4::NetZone* parent, const std::vector<unsigned long>&, unsigned long id) {
        const rankmap::Node& node = m.nodes[static_cast<std::size_t>(m.node_at(id))];
        const int cores = cores_text && *cores_text ? std::atoi(cores_text) : m.node_types[node.type].cores;
        const rankmap_smpi::NodeZone z =
            rankmap_smpi::make_node_zone(parent, node.host, cores, net.local_ns(), rate, [&](sg4::NetZone* inner) {
              auto port = [&](const char* way, double ns) {
                return sg4::LinkInRoute(inner->create_link(node.host + "-port-" + way, 1e15)
                                            ->set_latency(ns * 1e-9)
                                            ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                                            ->seal());
              };
              return std::pair{port("up", net.t_inj_ns), port("down", net.t_ej_ns)};
            });
        return std::pair{z.zone, z.router};
      }),
      rate, 0, sg4::Link::SharingPolicy::SPLITDUPLEX);
  rankmap_smpi::set_hop_latency_factor(zone, machine, rankmap_smpi::is_dragonfly_zone_link);
  zone->seal();
}
