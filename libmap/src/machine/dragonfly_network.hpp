// Dragonflies and Dragonfly+: Network's methods for the dragonfly kind
// (dragonfly_network.cpp). Internal to libmap.
#pragma once

#include <functional>
#include <string>

#include "rankmap/machine.hpp"

namespace rankmap::detail {

int dragonfly_diameter(const Network& net);
bool dragonfly_has_link(const Network& net, std::size_t link);
std::size_t dragonfly_num_links(const Network& net);
double dragonfly_link_gbps(const Network& net, std::size_t link);
std::string dragonfly_link_name(const Network& net, std::size_t link,
                                const std::function<std::string(std::size_t)>& node);
double dragonfly_mean_distance(const Network& net);

}  // namespace rankmap::detail
