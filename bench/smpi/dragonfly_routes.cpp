// Checks that rankmap's minimal route between every two nodes of a
// dragonfly is SimGrid's DragonflyZone route (3.32), link for link and in
// order, and that each link's rate is the same. The machine file must be
// of kind "dragonfly" with wiring = "simgrid" (SimGrid's one wiring: the
// link to group h on router h of chassis 0, parallel cables as one link of
// their summed rate, and its route within a group, quirk included).
//
// SimGrid's links are known by their names, which say what they join,
// all but a green link's group: that comes from its creation count (the
// number at the end of each name), green links being made chassis by
// chassis after the nodes' links (DragonflyZone::generate_links).
//
// Usage: dragonfly_routes MACHINE.toml   (exit 0: every route equal)
#include <simgrid/s4u.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "dragonfly_zone.hpp"
#include "rankmap/metrics.hpp"  // for_each_link

namespace sg4 = simgrid::s4u;

namespace {

struct Decoder {
  const rankmap::Network& net;
  rankmap::detail::DragonflyLinks l{net};
  unsigned long first_green = 0;  // the creation count of the first green link

  // rankmap's link id for a SimGrid link name, or -1.
  long long id_of(const std::string& name) const {
    static const std::regex local(R"(local_link_from_router_(\d+)_to_node_(\d+)_\d+_(UP|DOWN))");
    static const std::regex green(R"(green_link_in_chassis_\d+_between_routers_(\d+)_and_(\d+)_(\d+)_(UP|DOWN))");
    static const std::regex black(
        R"(black_link_in_group_(\d+)_between_chassis_(\d+)_and_(\d+)_blade_(\d+)_\d+_(UP|DOWN))");
    static const std::regex blue(R"(blue_link_between_group_(\d+)_and_(\d+)_routers_\d+_and_\d+_\d+_(UP|DOWN))");
    std::smatch m;
    auto n = [&](int i) { return std::stoul(m[i]); };
    auto up = [&](int i) { return m[i] == "UP"; };
    if (std::regex_match(name, m, local)) return static_cast<long long>(2 * (n(1) * l.nodes + n(2)) + (up(3) ? 0 : 1));
    if (std::regex_match(name, m, green)) {
      const std::size_t pairs = l.routers * (l.routers - 1) / 2;
      const std::size_t chassis = (n(3) - first_green) / pairs;  // group * chassis + chassis in group
      const std::size_t j = n(1), k = n(2);
      return static_cast<long long>(up(4) ? l.green_link(chassis, j, k) : l.green_link(chassis, k, j));
    }
    if (std::regex_match(name, m, black)) {
      const std::size_t j = n(2), k = n(3);
      return static_cast<long long>(up(5) ? l.black_link(n(1), n(4), j, k) : l.black_link(n(1), n(4), k, j));
    }
    if (std::regex_match(name, m, blue)) {
      const std::size_t i = n(1), j = n(2);
      return static_cast<long long>(up(3) ? l.global_link(i, j, 0) : l.global_link(j, i, 0));
    }
    return -1;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: dragonfly_routes MACHINE.toml\n";
    return 2;
  }
  try {
    const rankmap::Machine m = rankmap::load_machine(argv[1]);
    const rankmap::Network& net = m.network;
    int one = 1;
    char arg0[] = "dragonfly_routes";
    char* args[] = {arg0, nullptr};
    sg4::Engine engine(&one, args);
    std::vector<sg4::Host*> hosts(m.nodes.size());
    auto* zone = sg4::create_dragonfly_zone(
        "dragonfly", nullptr, rankmap_smpi::dragonfly_params(m, argv[1]),
        sg4::ClusterCallbacks([&](sg4::NetZone* z, const std::vector<unsigned long>&, unsigned long id) {
          const int node = m.node_at(id);
          hosts[static_cast<std::size_t>(node)] = z->create_host(m.nodes[static_cast<std::size_t>(node)].host, "1Gf");
          return std::pair<simgrid::kernel::routing::NetPoint*, simgrid::kernel::routing::NetPoint*>(
              hosts[static_cast<std::size_t>(node)]->get_netpoint(), nullptr);
        }),
        rankmap_smpi::gbps_to_bytes_per_second(net.link_gbps), 0, sg4::Link::SharingPolicy::SPLITDUPLEX);
    zone->seal();

    Decoder decoder{net};
    decoder.first_green = ~0ul;
    for (const sg4::Link* link : engine.get_all_links()) {
      static const std::regex green(R"(green_link_.*_(\d+)_(UP|DOWN))");
      std::smatch match;
      const std::string name = link->get_name();
      if (std::regex_match(name, match, green))
        decoder.first_green = std::min(decoder.first_green, std::stoul(match[1]));
    }
    std::size_t pairs = 0, links = 0;
    std::map<std::string, long long> id_of;
    for (std::size_t a = 0; a < m.nodes.size(); ++a)
      for (std::size_t b = 0; b < m.nodes.size(); ++b) {
        if (a == b) continue;
        std::vector<sg4::Link*> route;
        double latency = 0;
        hosts[a]->route_to(hosts[b], route, &latency);
        std::vector<long long> theirs, ours;
        for (const sg4::Link* link : route) {
          const long long id = decoder.id_of(link->get_name());
          if (id < 0 || !net.has_link(static_cast<std::size_t>(id))) {
            std::cerr << argv[1] << ": SimGrid's link " << link->get_name() << " has no rankmap link\n";
            return 1;
          }
          const double rate = rankmap_smpi::gbps_to_bytes_per_second(net.link_gbps_of(static_cast<std::size_t>(id)));
          if (std::abs(link->get_bandwidth() - rate) > 1e-9 * rate) {
            std::cerr << argv[1] << ": " << link->get_name() << " runs at " << link->get_bandwidth()
                      << " B/s, rankmap's " << net.link_name(static_cast<std::size_t>(id)) << " at " << rate << "\n";
            return 1;
          }
          theirs.push_back(id);
        }
        rankmap::for_each_link(net, m.nodes[a].coord_index, m.nodes[b].coord_index,
                               [&](std::size_t link) { ours.push_back(static_cast<long long>(link)); });
        if (theirs != ours) {
          std::cerr << argv[1] << ": " << m.nodes[a].host << " to " << m.nodes[b].host << ": SimGrid's route";
          for (const sg4::Link* link : route) std::cerr << ' ' << link->get_name();
          std::cerr << "\n  rankmap's";
          for (long long id : ours) std::cerr << " [" << net.link_name(static_cast<std::size_t>(id)) << ']';
          std::cerr << '\n';
          return 1;
        }
        ++pairs;
        links += ours.size();
      }
    std::printf("%s: %zu routes (%zu links) equal to SimGrid's DragonflyZone\n", argv[1], pairs, links);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
}
