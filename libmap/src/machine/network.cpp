#include <cctype>
#include <cstdlib>

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

int Network::diameter() const {
  if (is_tree()) return 2 * num_dims();
  int d = 0;
  for (int i = 0; i < num_dims(); ++i) d += wrap[i] ? dims[i] / 2 : dims[i] - 1;
  return d;
}

std::size_t Network::num_links() const {
  if (!is_tree()) return num_coords() * 2 * dims.size();
  return tree_link_id(num_dims(), 0, 0, false);  // the first id past the top tier
}

std::size_t Network::tree_span(int level) const {
  std::size_t n = 1;
  for (int d = 0; d < level; ++d) n *= static_cast<std::size_t>(dims[d]);
  return n;
}

namespace {
// Parallel links of a tree tier: a node has one to its lowest switch.
std::size_t tier_count(const Network& net, int tier) {
  return tier == 0 ? 1 : static_cast<std::size_t>(net.levels[tier - 1].uplinks);
}
}  // namespace

std::size_t Network::tree_link_id(int tier, std::size_t vertex, int parallel, bool down) const {
  const std::size_t nodes = num_coords();
  std::size_t offset = 0;
  for (int t = 0; t < tier; ++t) offset += nodes / tree_span(t) * tier_count(*this, t) * 2;
  return offset + (vertex * tier_count(*this, tier) + static_cast<std::size_t>(parallel)) * 2 + (down ? 1 : 0);
}

namespace {
// The tier of a tree link and its place in the tier.
struct TreeLink {
  int tier = 0;
  std::size_t vertex = 0;
  int parallel = 0;
  bool down = false;
};
TreeLink decode_tree_link(const Network& net, std::size_t link) {
  TreeLink l;
  for (;; ++l.tier) {
    const std::size_t in_tier = net.num_coords() / net.tree_span(l.tier) * tier_count(net, l.tier) * 2;
    if (link < in_tier || l.tier + 1 == net.num_dims()) break;
    link -= in_tier;
  }
  l.down = link % 2;
  link /= 2;
  l.parallel = static_cast<int>(link % tier_count(net, l.tier));
  l.vertex = link / tier_count(net, l.tier);
  return l;
}
}  // namespace

double Network::link_gbps_of(std::size_t link) const {
  if (!is_tree()) return link_gbps;
  const double level_rate = levels[decode_tree_link(*this, link).tier].gbps;
  return level_rate > 0 ? level_rate : link_gbps;
}

std::string Network::link_name(std::size_t link) const {
  if (is_tree()) {
    const TreeLink l = decode_tree_link(*this, link);
    auto level_name = [&](int level) {
      return levels[level - 1].host ? std::string("host") : "level-" + std::to_string(level) + " switch";
    };
    const std::string child = l.tier == 0 ? "node " + std::to_string(l.vertex)
                                          : level_name(l.tier) + " " + std::to_string(l.vertex);
    std::string name = child + (l.down ? " down from " : " up to ") + level_name(l.tier + 1);
    if (tier_count(*this, l.tier) > 1) name += " (link " + std::to_string(l.parallel) + ")";
    return name;
  }
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
  if (is_tree()) {
    int switches = 0;
    for (const TreeLevel& l : levels) switches += !l.host;
    return switches <= 1 ? "switch" : "fattree";
  }
  for (bool w : wrap)
    if (!w) return "mesh";
  return "torus";
}

std::string Network::routing_string() const {
  if (is_tree()) return "up*/down* (destination-mod-k over parallel links)";
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

std::vector<RouteStep> parse_routing(std::string_view text, int ndims, const std::string& source,
                                     std::size_t line) {
  std::vector<RouteStep> steps;
  bool seen[kMaxDims][2] = {};
  Network example;
  example.routing = default_routing(ndims);
  auto fail = [&](const std::string& why) {
    throw Error(source, line,
                "bad routing '" + std::string(text) + "': " + why +
                    "; expected each of +D and -D once per dimension, e.g. \"" +
                    example.routing_string() + "\"");
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
  if (static_cast<int>(steps.size()) != 2 * ndims) fail("it names " + std::to_string(steps.size()) + " moves, not " + std::to_string(2 * ndims));
  return steps;
}

}  // namespace rankmap
