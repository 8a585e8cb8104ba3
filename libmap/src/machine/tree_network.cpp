// A tree network: levels of switches from the nodes up (the lowest may be
// physical hosts holding the nodes as VMs). A node's coordinates are its
// port on each level, lowest first; its coordinate index is its position,
// leaves in order. Links come in tiers: tier 0 joins each node to its
// lowest switch, tier t each switch of level t to its parent with the
// level's `uplinks` parallel links; each link has an up and a down
// direction. The route (detail/route.hpp) climbs to the lowest common
// switch and comes down, 2 hops a level. A site's tree (TreeWiring) is
// such a skeleton with empty ports and absent cables, and its own names.
#include "machine/tree_network.hpp"

#include <cmath>
#include <numeric>
#include <vector>

namespace rankmap {
namespace {

// Parallel links of a tier: a node has one to its lowest switch.
std::size_t tier_count(const Network& net, int tier) {
  return tier == 0 ? 1 : static_cast<std::size_t>(net.levels[tier - 1].uplinks);
}

// The tier of a link and its place in the tier.
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

std::size_t Network::tree_span(int level) const {
  std::size_t n = 1;
  for (int d = 0; d < level; ++d) n *= static_cast<std::size_t>(dims[d]);
  return n;
}

std::size_t Network::tree_link_id(int tier, std::size_t vertex, int parallel, bool down) const {
  const std::size_t nodes = num_coords();
  std::size_t offset = 0;
  for (int t = 0; t < tier; ++t) offset += nodes / tree_span(t) * tier_count(*this, t) * 2;
  return offset + (vertex * tier_count(*this, tier) + static_cast<std::size_t>(parallel)) * 2 + (down ? 1 : 0);
}

namespace detail {

int tree_diameter(const Network& net) { return 2 * net.num_dims(); }

bool tree_has_link(const Network& net, std::size_t link) {
  if (!net.irregular()) return true;
  const TreeLink l = decode_tree_link(net, link);
  return l.parallel < net.uplinks_of(l.tier, l.vertex);
}

std::size_t tree_num_links(const Network& net) {
  return net.tree_link_id(net.num_dims(), 0, 0, false);  // the first id past the top tier
}

double tree_link_gbps(const Network& net, std::size_t link) {
  if (net.wiring && !net.wiring->gbps.empty() && net.wiring->gbps[link / 2] > 0) return net.wiring->gbps[link / 2];
  const double level_rate = net.levels[decode_tree_link(net, link).tier].gbps;
  return level_rate > 0 ? level_rate : net.link_gbps;
}

std::string tree_link_name(const Network& net, std::size_t link, const std::function<std::string(std::size_t)>& node) {
  const TreeLink l = decode_tree_link(net, link);
  const std::string node_name = l.tier > 0 ? "" : node ? node(l.vertex) : "node " + std::to_string(l.vertex);
  // The site's names, where a cable is (an absent one is named by its place).
  if (net.wiring && !net.wiring->ends.empty() && net.wiring->ends[link / 2].second >= 0) {
    const auto [lower, upper] = net.wiring->ends[link / 2];
    std::string name = (lower < 0 ? node_name : net.wiring->switches[lower]) + (l.down ? " down from " : " up to ") +
                       net.wiring->switches[upper];
    if (net.uplinks_of(l.tier, l.vertex) > 1) name += " (link " + std::to_string(l.parallel) + ")";
    return name;
  }
  auto level_name = [&](int level) {
    return net.levels[level - 1].host ? std::string("host") : "level-" + std::to_string(level) + " switch";
  };
  const std::string child = l.tier == 0 ? node_name : level_name(l.tier) + " " + std::to_string(l.vertex);
  std::string name = child + (l.down ? " down from " : " up to ") + level_name(l.tier + 1);
  if (tier_count(net, l.tier) > 1) name += " (link " + std::to_string(l.parallel) + ")";
  return name;
}

std::string tree_kind_name(const Network& net) {
  if (net.wiring) return "tree";
  int switches = 0;
  for (const TreeLevel& l : net.levels) switches += !l.host;
  return switches <= 1 ? "switch" : "fattree";
}

// The per-level form: nodes that meet at level L (2L hops) take the level's
// own latency when it has one, else T(2L) = t_inj + t_ej + t_hop * 2L.
double tree_message_ns(const Network& net, double hops) {
  const int level = static_cast<int>(std::lround(hops / 2));
  if (hops > 0 && level >= 1 && level <= net.num_dims() && net.levels[level - 1].t_ns >= 0)
    return net.levels[level - 1].t_ns;
  return net.t_inj_ns + net.t_ej_ns + net.t_hop_ns * hops;
}

// An irregular tree's: the nodes under each vertex, level by level; the
// ordered pairs that meet at level L are those under one level-L switch
// but not under one child of it.
double irregular_mean_distance(const Network& net) {
  std::vector<double> below(net.wiring->uplinks[0].begin(), net.wiring->uplinks[0].end());
  const double nodes = std::accumulate(below.begin(), below.end(), 0.0);
  double sum = 0;
  for (int level = 1; level <= net.num_dims(); ++level) {
    const auto fanout = static_cast<std::size_t>(net.dims[level - 1]);
    std::vector<double> up(below.size() / fanout, 0);
    double apart = 0;  // pairs under one child, counted again at its parent
    for (std::size_t v = 0; v < below.size(); ++v) up[v / fanout] += below[v], apart += below[v] * below[v];
    double together = 0;
    for (double n : up) together += n * n;
    sum += 2.0 * level * (together - apart);
    below = std::move(up);
  }
  return nodes > 1 ? sum / (nodes * (nodes - 1)) : 0;
}

double tree_mean_distance(const Network& net) {
  if (net.irregular()) return irregular_mean_distance(net);
  // Of a node's N - 1 partners, span(L) - span(L-1) meet it at level L, 2L hops away.
  const double nodes = static_cast<double>(net.num_coords());
  double sum = 0;
  for (int level = 1; level <= net.num_dims(); ++level)
    sum += 2.0 * level * static_cast<double>(net.tree_span(level) - net.tree_span(level - 1));
  return nodes > 1 ? sum / (nodes - 1) : 0;
}

}  // namespace detail
}  // namespace rankmap
