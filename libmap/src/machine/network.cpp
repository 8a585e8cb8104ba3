// The network's methods for tori and meshes (the default kind), and the
// routing order's text form.
#include <cctype>
#include <cstdlib>

#include "machine/dragonfly_network.hpp"
#include "machine/tree_network.hpp"
#include "rankmap/error.hpp"
#include "rankmap/machine.hpp"

namespace rankmap {
namespace {
constexpr char kDimLetters[kMaxDims + 1] = "XYZWVU";
}

std::size_t Network::num_coords() const {
  std::size_t n = 1;
  for (int d : dims) n *= static_cast<std::size_t>(d);
  return n;
}

// Each method serves tori and meshes here, and hands trees to
// tree_network.cpp and dragonflies to dragonfly_network.cpp: the kinds'
// code stays apart.

int Network::diameter() const {
  if (is_tree()) return detail::tree_diameter(*this);
  if (is_dragonfly()) return detail::dragonfly_diameter(*this);
  int d = 0;
  for (int i = 0; i < num_dims(); ++i) d += wrap[i] ? dims[i] / 2 : dims[i] - 1;
  return d;
}

std::size_t Network::num_links() const {
  if (is_tree()) return detail::tree_num_links(*this);
  if (is_dragonfly()) return detail::dragonfly_num_links(*this);
  return num_coords() * 2 * dims.size();
}

bool Network::has_link(std::size_t link) const {
  if (is_dragonfly()) return detail::dragonfly_has_link(*this, link);
  return !is_tree() || detail::tree_has_link(*this, link);
}

double Network::link_gbps_of(std::size_t link) const {
  if (is_dragonfly()) return detail::dragonfly_link_gbps(*this, link);
  return is_tree() ? detail::tree_link_gbps(*this, link) : link_gbps;
}

double Network::message_ns(double hops) const {
  if (is_tree()) return detail::tree_message_ns(*this, hops);
  return t_inj_ns + t_ej_ns + t_hop_ns * hops;
}

double Network::mean_distance() const {
  if (is_tree()) return detail::tree_mean_distance(*this);
  if (is_dragonfly()) return detail::dragonfly_mean_distance(*this);
  // Per dimension, the mean 1D distance over all pairs of positions; their
  // sum is the mean over all pairs of nodes, a node with itself included.
  double all_pairs = 0, nodes = 1;
  for (int i = 0; i < num_dims(); ++i) {
    const int k = dims[i];
    double sum = 0;
    for (int a = 0; a < k; ++a)
      for (int b = 0; b < k; ++b) sum += hops_1d(i, a, b);
    all_pairs += sum / (static_cast<double>(k) * k);
    nodes *= k;
  }
  return nodes > 1 ? all_pairs * nodes / (nodes - 1) : 0;  // leave out the pairs of a node with itself
}

std::string Network::link_name(std::size_t link, const std::function<std::string(std::size_t)>& node) const {
  if (is_tree()) return detail::tree_link_name(*this, link, node);
  if (is_dragonfly()) return detail::dragonfly_link_name(*this, link, node);
  const std::size_t per_coord = 2 * dims.size();
  std::size_t coord = link / per_coord;
  const int dim = static_cast<int>(link % per_coord / 2);
  std::string name = std::string(link % 2 ? "-" : "+") + kDimLetters[dim] + " at (";
  for (int d = 0; d < num_dims(); ++d) {
    name += (d ? "," : "") + std::to_string(coord % static_cast<std::size_t>(dims[d]));
    coord /= static_cast<std::size_t>(dims[d]);
  }
  return name + ")";
}

std::string Network::kind_name() const {
  if (is_tree()) return detail::tree_kind_name(*this);
  if (is_dragonfly()) return dragonfly.plus() ? "dragonfly+" : "dragonfly";
  for (bool w : wrap)
    if (!w) return "mesh";
  return "torus";
}

std::string Network::routing_string() const {
  if (is_tree()) return "up*/down* (destination-mod-k over parallel links)";
  if (is_dragonfly())
    return std::string("minimal: local, global, local (a pair's cable by source + destination)") +
           (dragonfly.simgrid_wiring ? "; SimGrid 3.32's wiring and route" : "");
  std::string s;
  for (const auto& step : routing) {
    s += step.sign > 0 ? '+' : '-';
    s += kDimLetters[step.dim];
  }
  return s;
}

std::vector<RouteStep> default_routing(int ndims) {
  std::vector<RouteStep> steps;
  for (int sign : {+1, -1})
    for (int d = 0; d < ndims; ++d) steps.push_back({d, sign});
  return steps;
}

std::vector<RouteStep> parse_routing(std::string_view text, int ndims, const std::string& source, std::size_t line) {
  std::vector<RouteStep> steps;
  bool seen[kMaxDims][2] = {};
  Network example;
  example.routing = default_routing(ndims);
  auto fail = [&](const std::string& why) {
    throw Error(source, line,
                "bad routing '" + std::string(text) + "': " + why +
                    "; expected each of +D and -D once per dimension, e.g. \"" + example.routing_string() + "\"");
  };
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == '\t' || text[i] == ',') {
      ++i;
      continue;
    }
    if (text[i] != '+' && text[i] != '-') fail("expected '+' or '-' at position " + std::to_string(i + 1));
    const int sign = text[i] == '+' ? +1 : -1;
    if (++i >= text.size()) fail("a sign without a dimension");
    const char letter = static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
    int dim = -1;
    for (int d = 0; d < ndims; ++d)
      if (kDimLetters[d] == letter) dim = d;
    if (dim < 0) fail(std::string("no dimension '") + text[i] + "' in a " + std::to_string(ndims) + "D network");
    if (seen[dim][sign < 0]) fail(std::string("'") + (sign > 0 ? '+' : '-') + kDimLetters[dim] + "' appears twice");
    seen[dim][sign < 0] = true;
    steps.push_back({dim, sign});
    ++i;
  }
  if (static_cast<int>(steps.size()) != 2 * ndims)
    fail("it names " + std::to_string(steps.size()) + " moves, not " + std::to_string(2 * ndims));
  return steps;
}

}  // namespace rankmap
