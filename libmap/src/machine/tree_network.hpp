// Switches and fat trees, VMs on hosts included: Network's methods for the
// tree kind (tree_network.cpp). Internal to libmap.
#pragma once

#include <functional>
#include <string>

#include "rankmap/machine.hpp"

namespace rankmap::detail {

int tree_diameter(const Network& net);
bool tree_has_link(const Network& net, std::size_t link);
std::size_t tree_num_links(const Network& net);
double tree_link_gbps(const Network& net, std::size_t link);
std::string tree_link_name(const Network& net, std::size_t link, const std::function<std::string(std::size_t)>& node);
std::string tree_kind_name(const Network& net);
double tree_message_ns(const Network& net, double hops);
double tree_mean_distance(const Network& net);

}  // namespace rankmap::detail
