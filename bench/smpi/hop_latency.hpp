// The latency factor of the platforms built from a rankmap machine file
// (tree_platform.cpp, dragonfly_platform.cpp): every route between two
// nodes carries the two NICs' latency, t_inj + t_ej, and a route of h
// network links (those `is_hop` accepts) is scaled to the machine's
// Network::message_ns(h). Runs must not pass smpi/lat-factor.
#pragma once

#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "rankmap/machine.hpp"

namespace rankmap_smpi {

template <class IsHop>
void set_hop_latency_factor(simgrid::s4u::NetZone* zone, std::shared_ptr<const rankmap::Machine> machine,
                            IsHop is_hop) {
  namespace sg4 = simgrid::s4u;
  const double base_ns = machine->network.t_inj_ns + machine->network.t_ej_ns;
  zone->get_network_model()->set_lat_factor_cb(
      [machine = std::move(machine), base_ns, is_hop](double, const sg4::Host*, const sg4::Host*,
                                                      const std::vector<sg4::Link*>& route,
                                                      const std::unordered_set<sg4::NetZone*>&) {
        const auto hops =
            std::count_if(route.begin(), route.end(), [&](const sg4::Link* l) { return is_hop(l->get_name()); });
        return hops == 0 || base_ns <= 0 ? 1.0 : machine->network.message_ns(static_cast<double>(hops)) / base_ns;
      });
}

}  // namespace rankmap_smpi
