// An SMPI platform for rankmap's tree machines (a switch, a fat tree, VMs
// on hosts, a site's own tree) and for dragonflies as rankmap wires and
// routes them (a Dragonfly+, or a dragonfly of rankmap's wiring, which
// SimGrid's DragonflyZone cannot be: dragonfly_platform.cpp is SimGrid's
// own), built from the machine file itself through librankmap, so
// that SimGrid routes and times messages as rankmap's model does: the same
// directed links (Network::tree_link_id, detail/dragonfly_route.hpp), the
// same route (for_each_link: up to the lowest common switch, the uplink
// picked by the destination, D-mod-k; a dragonfly's local, global, local),
// each link at its own rate (link_gbps_of), and a message's
// zero-byte time Network::message_ns(hops) (t_inj + t_ej + t_hop a hop, or
// the level's own t_ns, as between two VMs of one host). Loaded by smpirun
// -platform ./rankmap-smpi-tree.so; torus_platform.cpp is the torus's.
// Minimal routes only: the adaptive reading of a dragonfly is not simulated.
//
// Each node is a zone: one host per core ("<host>-<core>", the machine
// file's host names), a router, and a port link between them that never
// limits (a fat pipe of no latency). The network's links join the routers:
// a node's cable to its switch or router is its NIC (links 2i up and
// 2i + 1 down, as in rankmap: a tree's tier 0, a dragonfly's first block),
// up with latency t_inj and down with t_ej; the links beyond carry none. So every
// route between two nodes has latency t_inj + t_ej, SimGrid shares links
// fairly (it weighs flows by route latency), and a latency factor scales a
// route of h links to message_ns(h). Runs must not pass smpi/lat-factor.
// Two cores of a node talk over its memory link (t_local, each message at
// the NIC's rate, as torus_platform.cpp).
//
// Environment:
//   RANKMAP_SMPI_MACHINE  a rankmap machine file of kind switch, fattree,
//                         tree (a site's switches, irregular ones too),
//                         dragonfly or dragonfly+
//   RANKMAP_SMPI_CORES    hosts (ranks) per node (default: the node's cores)
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "hop_latency.hpp"
#include "node_zone.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/metrics.hpp"  // for_each_link

namespace sg4 = simgrid::s4u;

namespace {

constexpr const char* kTreeLink = "tree-";

double gbps_to_bytes_per_second(double gbps) { return gbps * 1e9 / 8; }

// A node's zone (node_zone.hpp): its hosts reach the router through a
// port that never limits; its NIC is its own cable above. Two cores talk
// at the NIC's rate, the node's own cable (link 2i) up.
rankmap_smpi::NodeZone make_node(const sg4::NetZone* parent, const rankmap::Machine& m, const rankmap::Node& node,
                                 int cores) {
  const rankmap::Network& net = m.network;
  const double nic = gbps_to_bytes_per_second(net.link_gbps_of(2 * node.coord_index));
  return rankmap_smpi::make_node_zone(parent, node.host, cores, net.local_ns(), nic, [&](sg4::NetZone* zone) {
    const sg4::Link* port =
        zone->create_link(node.host + "-port", 1e15)->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)->seal();
    return std::pair{sg4::LinkInRoute(port), sg4::LinkInRoute(port)};
  });
}

}  // namespace

extern "C" void load_platform(const sg4::Engine& /*engine*/);
void load_platform(const sg4::Engine& /*engine*/) {
  const char* path = std::getenv("RANKMAP_SMPI_MACHINE");
  if (!path || !*path) throw std::invalid_argument("RANKMAP_SMPI_MACHINE: expected a rankmap machine file");
  // Kept for the latency factor, which SimGrid calls during the run.
  const auto machine = std::make_shared<const rankmap::Machine>(rankmap::load_machine(path));
  const rankmap::Machine& m = *machine;
  const rankmap::Network& net = m.network;
  if (!net.is_tree() && !net.is_dragonfly())
    throw std::invalid_argument(
        std::string(path) + ": a " + net.kind_name() +
        "; this platform takes switches, trees and dragonflies (rankmap-smpi-torus.so takes tori)");
  const char* cores_text = std::getenv("RANKMAP_SMPI_CORES");
  auto* tree = sg4::create_full_zone("tree");
  std::vector<rankmap_smpi::NodeZone> zones;
  for (const rankmap::Node& node : m.nodes) {
    const int cores = cores_text && *cores_text ? std::atoi(cores_text) : m.node_types[node.type].cores;
    zones.push_back(make_node(tree, m, node, cores));
  }
  // Directed links by rankmap's link id: the nodes' own cables first, node
  // i's up link 2i and down link 2i + 1 (Network::tree_link_id, DragonflyLinks).
  // A site's tree (kind "tree") has empty ports and absent cables in its
  // skeleton: no link for them (no route takes them).
  std::vector<const sg4::Link*> links;
  for (std::size_t id = 0; id < net.num_links(); ++id) {
    if (!net.has_link(id)) {
      links.push_back(nullptr);
      continue;
    }
    const bool nic = id < 2 * net.num_coords();
    const double latency_ns = !nic ? 0 : id % 2 == 0 ? net.t_inj_ns : net.t_ej_ns;
    links.push_back(tree->create_link(kTreeLink + std::to_string(id), gbps_to_bytes_per_second(net.link_gbps_of(id)))
                        ->set_latency(latency_ns * 1e-9)
                        ->seal());
  }
  rankmap_smpi::set_hop_latency_factor(tree, machine,
                                       [](const std::string& name) { return name.rfind(kTreeLink, 0) == 0; });
  for (std::size_t a = 0; a < m.nodes.size(); ++a)
    for (std::size_t b = 0; b < m.nodes.size(); ++b) {
      if (a == b) continue;
      std::vector<sg4::LinkInRoute> route;
      rankmap::for_each_link(net, m.nodes[a].coord_index, m.nodes[b].coord_index,
                             [&](std::size_t link) { route.emplace_back(links[link]); });
      tree->add_route(zones[a].zone, zones[b].zone, zones[a].router, zones[b].router, route, false);
    }
  tree->seal();
}
