// A site's switches made a tree network (site_tree.hpp). The steps:
// switches by name and the nodes under each; levels from the leaves up
// (a loop is found here); switches that share children grouped into
// one switch of the skeleton, whose ports are its children in the order
// the site listed them; then ports, coordinates and the cables of each
// group, in D-mod-k order (by upper switch, then lower, as listed).
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "rankmap/error.hpp"
#include "rankmap/site_tree.hpp"

namespace rankmap {
namespace {

constexpr int kNone = -1;

struct Cable {
  int lower = kNone;  // a switch; kNone for a node's cable
  int upper = kNone;
  double gbps = 0;
};

// A switch of the skeleton: site switches that share children.
struct Group {
  int level = 0;
  std::vector<int> members;   // site switches, in file order
  std::vector<int> children;  // groups one level down (or, at level 1, nodes)
  int parent = kNone;
  std::vector<Cable> up;  // to the parent group, in D-mod-k order
  std::size_t start = 0;  // its first coordinate index
};

class Builder {
 public:
  Builder(const SiteTree& tree, const std::vector<double>& level_gbps) : tree_(tree), level_gbps_(level_gbps) {}

  SiteNetwork build() {
    index_switches();
    read_children();
    levels_ = std::vector<int>(tree_.switches.size(), 0);
    for (int s = 0; s < num_switches(); ++s) level_of(s);
    group();
    SiteNetwork out;
    place(out);
    cable();
    wire(out.network);
    return out;
  }

 private:
  [[noreturn]] void fail(std::size_t line, const std::string& why) const { throw Error(tree_.source, line, why); }
  int num_switches() const { return static_cast<int>(tree_.switches.size()); }
  const SiteSwitch& sw(int s) const { return tree_.switches[static_cast<std::size_t>(s)]; }
  std::string where(int s) const { return "'" + sw(s).name + "' (line " + std::to_string(sw(s).line) + ")"; }

  void index_switches() {
    if (tree_.switches.empty()) fail(0, "describes no switch");
    for (int s = 0; s < num_switches(); ++s) {
      auto [it, fresh] = switch_of_.try_emplace(sw(s).name, s);
      if (!fresh)
        fail(sw(s).line, "switch '" + sw(s).name + "' is described twice (first on line " +
                             std::to_string(sw(it->second).line) + ")");
    }
    for (int s = 0; s < num_switches(); ++s) {
      if (!sw(s).nodes.empty() && !sw(s).switches.empty())
        fail(sw(s).line, "switch '" + sw(s).name +
                             "' holds both nodes and switches; rankmap's trees hold nodes on their lowest "
                             "switches only");
      for (const std::string& n : sw(s).nodes) {
        if (switch_of_.count(n)) fail(sw(s).line, "'" + n + "' names both a node and a switch");
        auto [it, fresh] = leaf_of_.try_emplace(n, s);
        if (!fresh)
          fail(sw(s).line,
               "node '" + n + "' is under two switches: " + where(it->second) + " and '" + sw(s).name + "'");
      }
    }
  }

  int switch_named(const std::string& name, std::size_t line, const std::string& by) const {
    auto it = switch_of_.find(name);
    if (it == switch_of_.end()) fail(line, by + " names switch '" + name + "', which no switch line describes");
    return it->second;
  }

  // Each switch's child switches, from its list and from the cables.
  void read_children() {
    kids_.assign(tree_.switches.size(), {});
    for (int s = 0; s < num_switches(); ++s)
      for (const std::string& c : sw(s).switches) {
        const int k = switch_named(c, sw(s).line, "switch '" + sw(s).name + "'");
        if (!listed_.insert({s, k}).second) fail(sw(s).line, "switch '" + sw(s).name + "' lists '" + c + "' twice");
        kids_[s].push_back(k);
      }
    for (const SiteCable& c : tree_.cables) {
      const int upper = switch_named(c.upper, c.line, "a cable");
      if (auto leaf = leaf_of_.find(c.lower); leaf != leaf_of_.end()) {
        if (leaf->second != upper)
          fail(c.line, "a cable joins node '" + c.lower + "' to '" + c.upper + "', but the node is under " +
                           where(leaf->second));
        if (c.links != 1)
          fail(c.line, "node '" + c.lower + "' has one cable (its NIC), not " + std::to_string(c.links));
        if (!node_cable_.try_emplace(c.lower, &c).second)
          fail(c.line, "node '" + c.lower + "' has a cable line already; it has one cable (its NIC)");
        continue;
      }
      const int lower = switch_named(c.lower, c.line, "a cable");
      if (!listed_.count({upper, lower}) && !cables_.count({upper, lower})) kids_[upper].push_back(lower);
      cables_[{upper, lower}].push_back(&c);
    }
  }

  // 1 for a switch of nodes, one more than its children's otherwise; a
  // loop is met again while its level is being found.
  int level_of(int s) {
    if (levels_[s] > 0) return levels_[s];
    if (levels_[s] < 0) {
      std::string loop;
      for (auto t = std::find(path_.begin(), path_.end(), s); t != path_.end(); ++t) loop += sw(*t).name + " -> ";
      fail(sw(s).line, "switches form a loop: " + loop + sw(s).name);
    }
    if (kids_[s].empty() && sw(s).nodes.empty()) fail(sw(s).line, "switch '" + sw(s).name + "' has nothing below it");
    if (kids_[s].empty()) return levels_[s] = 1;
    // Deeper than any tree rankmap takes: stop before the recursion does
    // (a chain of 10^5 switches would overflow the stack).
    if (path_.size() >= static_cast<std::size_t>(kMaxDims))
      fail(sw(s).line, "switch '" + sw(s).name + "' has more than " + std::to_string(kMaxDims) +
                           " levels of switches above it or below it; rankmap's trees have at most " +
                           std::to_string(kMaxDims) + " levels");
    levels_[s] = -1;
    path_.push_back(s);
    int level = 0;
    for (int k : kids_[s]) level = std::max(level, level_of(k) + 1);
    path_.pop_back();
    for (int k : kids_[s])
      if (levels_[k] != level - 1)
        fail(sw(s).line, "switch '" + sw(s).name + "' (level " + std::to_string(level) + ") has '" + sw(k).name +
                             "' (level " + std::to_string(levels_[k]) +
                             ") below it; rankmap's trees need every switch's children one level below it");
    if (level > kMaxDims)
      fail(sw(s).line, "switch '" + sw(s).name + "' is on level " + std::to_string(level) + "; rankmap's trees have " +
                           "at most " + std::to_string(kMaxDims) + " levels");
    return levels_[s] = level;
  }

  // A node under group g, for messages.
  std::string a_node(int g) const {
    while (groups_[g].level > 1) g = groups_[g].children[0];
    return sw(groups_[g].members[0]).nodes[0];
  }

  void group() {
    top_ = *std::max_element(levels_.begin(), levels_.end());
    std::vector<int> group_of(tree_.switches.size(), kNone);
    for (int s = 0; s < num_switches(); ++s)
      if (levels_[s] == 1) {
        group_of[s] = static_cast<int>(groups_.size());
        groups_.push_back({1, {s}, {}, kNone, {}, 0});
      }
    for (int level = 2; level <= top_; ++level) group_level(level, group_of);
    int root = kNone;
    for (int g = 0; g < static_cast<int>(groups_.size()); ++g) {
      if (groups_[g].parent != kNone) continue;
      if (root != kNone)
        fail(sw(groups_[g].members[0]).line, "nodes '" + a_node(root) + "' and '" + a_node(g) +
                                                 "' share no switch: every node must reach one top switch");
      root = g;
    }
    root_ = root;
  }

  // The switches of one level grouped: those whose children overlap (a
  // leaf's spines, a spine added later over some of them) are one switch
  // of the skeleton, in the order of their first member. Exact where every
  // two of its children meet under one member (then they are 2 x level
  // hops apart, as the skeleton says); refused where two do not.
  void group_level(int level, std::vector<int>& group_of) {
    std::vector<int> at;  // this level's switches, in file order
    for (int s = 0; s < num_switches(); ++s)
      if (levels_[s] == level) at.push_back(s);
    std::vector<std::size_t> root(at.size());
    for (std::size_t i = 0; i < at.size(); ++i) root[i] = i;
    auto find = [&](std::size_t i) {
      while (root[i] != i) i = root[i] = root[root[i]];
      return i;
    };
    std::unordered_map<int, std::size_t> first_parent;  // child group -> its first switch here
    for (std::size_t i = 0; i < at.size(); ++i)
      for (int k : kids_[at[i]]) {
        auto [it, fresh] = first_parent.try_emplace(group_of[k], i);
        if (!fresh) root[std::max(find(i), find(it->second))] = std::min(find(i), find(it->second));
      }
    std::unordered_map<std::size_t, int> group_at;  // a set's root -> its group
    for (std::size_t i = 0; i < at.size(); ++i) {
      auto [it, fresh] = group_at.try_emplace(find(i), static_cast<int>(groups_.size()));
      if (fresh) groups_.push_back({level, {}, {}, kNone, {}, 0});
      groups_[it->second].members.push_back(at[i]);
      group_of[at[i]] = it->second;
    }
    for (std::size_t g = groups_.size() - group_at.size(); g < groups_.size(); ++g) {
      Group& group = groups_[g];
      for (int m : group.members)
        for (int k : kids_[m]) {
          Group& child = groups_[group_of[k]];
          if (child.parent == kNone) group.children.push_back(group_of[k]), child.parent = static_cast<int>(g);
        }
      check_meeting(group, group_of);
    }
  }

  // Whether two sorted lists hold a value in common.
  static bool share_one(const std::vector<int>& x, const std::vector<int>& y) {
    for (auto i = x.begin(), j = y.begin(); i != x.end() && j != y.end();) {
      if (*i == *j) return true;
      *i < *j ? ++i : ++j;
    }
    return false;
  }

  // Every two children of a group meet under one of its members.
  void check_meeting(const Group& group, const std::vector<int>& group_of) const {
    if (group.members.size() < 2) return;
    std::unordered_map<int, std::vector<int>> over;  // child group -> the members over it, in order
    for (int m : group.members)
      for (int k : kids_[m]) {
        std::vector<int>& parents = over[group_of[k]];
        if (parents.empty() || parents.back() != m) parents.push_back(m);
      }
    for (int m : group.members)  // a member over every child: all meet under it
      if (std::all_of(group.children.begin(), group.children.end(),
                      [&](int c) { return std::binary_search(over[c].begin(), over[c].end(), m); }))
        return;
    const std::size_t k = group.children.size();
    if (k * k / 2 * group.members.size() > (std::size_t{1} << 28))
      fail(sw(group.members[0]).line, "switches over " + std::to_string(k) +
                                          " children share part of what is below them, no one over all: too many "
                                          "pairs to check that every two children meet under one");
    for (std::size_t a = 0; a < k; ++a)
      for (std::size_t b = a + 1; b < k; ++b) {
        const std::vector<int>& pa = over.at(group.children[a]);
        const std::vector<int>& pb = over.at(group.children[b]);
        if (!share_one(pa, pb))
          fail(sw(pb.front()).line,
               "switches " + where(pa.front()) + " and '" + sw(pb.front()).name +
                   "' share part of what is below them, but '" + a_node(group.children[a]) + "' under the one and '" +
                   a_node(group.children[b]) +
                   "' under the other meet under neither: rankmap's trees need every two of their children to meet "
                   "under one of them");
      }
  }

  // Ports and coordinates: each group's children in order, the skeleton's
  // fan-out per level the most any group has.
  void place(SiteNetwork& out) {
    fanout_.assign(static_cast<std::size_t>(top_), 1);
    for (const Group& g : groups_) {
      const std::size_t n = g.level == 1 ? sw(g.members[0]).nodes.size() : g.children.size();
      fanout_[g.level - 1] = std::max(fanout_[g.level - 1], static_cast<int>(n));
    }
    span_.assign(static_cast<std::size_t>(top_) + 1, 1);
    for (int l = 1; l <= top_; ++l) {
      span_[l] = span_[l - 1] * static_cast<std::size_t>(fanout_[l - 1]);
      if (span_[l] > (std::size_t{1} << 24))
        fail(0, "the tree's skeleton (each level's widest switch) holds more than 2^24 nodes");
    }
    assign(root_, 0, out);
  }

  void assign(int g, std::size_t start, SiteNetwork& out) {
    Group& group = groups_[g];
    group.start = start;
    if (group.level == 1) {
      const std::vector<std::string>& nodes = sw(group.members[0]).nodes;
      for (std::size_t p = 0; p < nodes.size(); ++p) {
        out.hosts.push_back(nodes[p]);
        out.coord_index.push_back(start + p);
      }
      return;
    }
    for (std::size_t p = 0; p < group.children.size(); ++p)
      assign(group.children[p], start + p * span_[group.level - 1], out);
  }

  // Each group's cables to its parent, by upper member then lower member
  // (the site's order): a pair's own cable lines, else the upper switch's
  // `links` cables.
  void cable() {
    for (Group& g : groups_) {
      if (g.parent == kNone) continue;
      for (int u : groups_[g.parent].members)
        for (int c : g.members) {
          if (auto it = cables_.find({u, c}); it != cables_.end()) {
            for (const SiteCable* line : it->second)
              for (int i = 0; i < line->links; ++i) g.up.push_back({c, u, line->gbps});
          } else if (listed_.count({u, c})) {
            for (int i = 0; i < sw(u).links; ++i) g.up.push_back({c, u, sw(u).gbps});
          }
        }
    }
  }

  // The network: `levels` from the skeleton; TreeWiring with the names,
  // and with the ports and cables when the tree is not regular.
  void wire(Network& net) {
    net.kind = NetworkKind::tree;
    std::vector<int> most(static_cast<std::size_t>(top_) + 1, 1);  // cables up, per tier
    for (const Group& g : groups_) most[g.level] = std::max(most[g.level], static_cast<int>(g.up.size()));
    for (int l = 1; l <= top_; ++l) {
      TreeLevel level;
      level.fanout = fanout_[l - 1];
      level.uplinks = l == top_ ? 1 : most[l];
      if (static_cast<std::size_t>(l - 1) < level_gbps_.size()) level.gbps = level_gbps_[l - 1];
      net.levels.push_back(level);
      net.dims.push_back(level.fanout);
    }
    net.wrap.assign(net.dims.size(), false);
    std::size_t links = net.tree_link_id(top_, 0, 0, false);
    if (links > kMaxLinks)
      fail(0, "the tree has " + std::to_string(links) + " directed links in its skeleton; rankmap maps onto at most " +
                  std::to_string(kMaxLinks));

    auto wiring = std::make_shared<TreeWiring>();
    for (int s = 0; s < num_switches(); ++s) wiring->switches.push_back(sw(s).name);
    wiring->ends.assign(links / 2, {kNone, kNone});
    std::vector<std::vector<int>> uplinks(static_cast<std::size_t>(top_));
    for (int t = 0; t < top_; ++t) uplinks[t].assign(span_[top_] / span_[t], 0);
    std::vector<double> gbps(links / 2, 0);
    wiring->level_switch.resize(static_cast<std::size_t>(top_));
    for (int l = 1; l <= top_; ++l) wiring->level_switch[l - 1].assign(span_[top_] / span_[l], kNone);
    bool regular = true;
    std::vector<double> tier_rate(static_cast<std::size_t>(top_), -1);
    auto note_rate = [&](int tier, double rate) {
      if (tier_rate[tier] < 0) tier_rate[tier] = rate;
      regular = regular && tier_rate[tier] == rate;
    };
    for (const Group& g : groups_) {
      const std::size_t vertex = g.start / span_[g.level];
      wiring->level_switch[g.level - 1][vertex] = g.members[0];
      const std::size_t width = g.level == 1 ? sw(g.members[0]).nodes.size() : g.children.size();
      regular = regular && static_cast<int>(width) == fanout_[g.level - 1];
      if (g.level == 1)  // its nodes' cables, tier 0
        for (std::size_t p = 0; p < width; ++p) {
          const std::size_t link = net.tree_link_id(0, g.start + p, 0, false) / 2;
          auto own = node_cable_.find(sw(g.members[0]).nodes[p]);
          gbps[link] = own != node_cable_.end() ? own->second->gbps : sw(g.members[0]).gbps;
          wiring->ends[link] = {kNone, g.members[0]};
          uplinks[0][g.start + p] = 1;
          note_rate(0, gbps[link]);
        }
      if (g.parent == kNone) continue;
      uplinks[g.level][vertex] = static_cast<int>(g.up.size());
      regular = regular && static_cast<int>(g.up.size()) == most[g.level];
      for (std::size_t p = 0; p < g.up.size(); ++p) {
        const std::size_t link = net.tree_link_id(g.level, vertex, static_cast<int>(p), false) / 2;
        gbps[link] = g.up[p].gbps;
        wiring->ends[link] = {g.up[p].lower, g.up[p].upper};
        note_rate(g.level, g.up[p].gbps);
      }
    }
    if (regular) {
      // What `levels` says alone: each tier's one rate on its level.
      for (int t = 0; t < top_; ++t)
        if (tier_rate[t] > 0) net.levels[t].gbps = tier_rate[t];
    } else {
      wiring->uplinks = std::move(uplinks);
      wiring->gbps = std::move(gbps);
    }
    net.wiring = std::move(wiring);
  }

  const SiteTree& tree_;
  const std::vector<double>& level_gbps_;
  std::unordered_map<std::string, int> switch_of_, leaf_of_;
  std::unordered_map<std::string, const SiteCable*> node_cable_;
  std::map<std::pair<int, int>, std::vector<const SiteCable*>> cables_;
  std::set<std::pair<int, int>> listed_;  // (switch, child) of the switches' own lists
  std::vector<std::vector<int>> kids_;
  std::vector<int> levels_, path_, fanout_;
  std::vector<Group> groups_;
  std::vector<std::size_t> span_;
  int top_ = 0, root_ = kNone;
};

}  // namespace

SiteNetwork build_site_tree(const SiteTree& tree, const std::vector<double>& level_gbps) {
  return Builder(tree, level_gbps).build();
}

}  // namespace rankmap
