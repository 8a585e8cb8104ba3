// SimGrid's own dragonfly zone (sg4::create_dragonfly_zone) for a rankmap
// machine file of kind "dragonfly" with wiring = "simgrid": the one
// wiring SimGrid 3.32 has (docs/formats.md). Shared by the SMPI platform
// (dragonfly_platform.cpp) and the route check (dragonfly_routes.cpp).
#pragma once

#include <simgrid/s4u.hpp>

#include <stdexcept>
#include <string>

#include "rankmap/machine.hpp"

namespace rankmap_smpi {

// The zone's "groups,links;chassis,links;routers,links;nodes", refusing
// what SimGrid's zone cannot be: another wiring, a Dragonfly+, unlike
// rates inside and between groups.
inline simgrid::s4u::DragonflyParams dragonfly_params(const rankmap::Machine& m, const std::string& path) {
  const rankmap::Network& net = m.network;
  const rankmap::DragonflyShape& s = net.dragonfly;
  auto refuse = [&](const std::string& why) {
    throw std::invalid_argument(
        path + ": " + why +
        "; SimGrid's dragonfly zone needs kind = \"dragonfly\" and wiring = \"simgrid\", one link rate");
  };
  if (!net.is_dragonfly() || s.plus()) refuse("a " + net.kind_name());
  if (!s.simgrid_wiring) refuse("rankmap's own wiring");
  for (double gbps : {s.local_gbps, s.global_gbps})
    if (gbps > 0 && gbps != net.link_gbps) refuse("local_gbps or global_gbps unlike link_gbps");
  auto u = [](int v) { return static_cast<unsigned>(v); };
  return {{u(s.groups), u(s.global_links)},
          {u(s.chassis), u(s.chassis_links)},
          {u(s.routers), u(s.router_links)},
          u(s.nodes)};
}

inline double gbps_to_bytes_per_second(double gbps) { return gbps * 1e9 / 8; }

// Whether a link is one of the dragonfly zone's (its names, 3.32).
inline bool is_dragonfly_zone_link(const std::string& name) {
  for (const char* prefix : {"local_link_from_router_", "green_link_", "black_link_", "blue_link_"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace rankmap_smpi
