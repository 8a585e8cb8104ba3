// The machine description in TOML (docs/formats.md, "Machine").
#include <toml++/toml.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include "core/toml_integer.hpp"
#include "core/toml_reader.hpp"
#include "machine/import/name_budget.hpp"
#include "rankmap/error.hpp"
#include "rankmap/hostlist.hpp"
#include "rankmap/io.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/site_tree.hpp"

namespace rankmap {
namespace {

// More nodes than any machine has (16,777,216): the tables of a network
// are sized by its coordinates.
constexpr std::size_t kMaxCoords = std::size_t{1} << 24;

class Reader : private detail::TomlReader {
 public:
  Reader(const std::string& source, std::filesystem::path base_dir)
      : TomlReader(source), base_dir_(std::move(base_dir)) {}

  using TomlReader::parse;

  Machine read(const toml::table& root) {
    reject_unknown(root, {"name", "network", "nodes", "hosts", "switches", "cables"}, "top level");
    Machine m;
    if (auto name = root["name"]; name) m.name = string(*name.node(), "name");
    const toml::table* net = root["network"].as_table();
    if (!net) fail(line_of(root), "missing [network] table");
    m.network = read_network(*net);
    if (site_) {
      read_site(root, m);
      m.index(source());
      return m;
    }
    for (const char* key : {"switches", "cables"})
      if (const toml::node* n = root.get(key))
        fail(line_of(*n), std::string("[[") + key + "]] is for kind = \"tree\" (a site's switches)");
    if (const toml::node* hosts = root.get("hosts")) add_host_level(*hosts, m.network);
    check_links(m.network, *net);  // before any host is read: a torus's or fat tree's shape says it
    const toml::array* groups = root["nodes"].as_array();
    if (!groups || groups->empty()) fail(line_of(root), "missing [[nodes]] groups");
    read_nodes(*groups, m);
    check_links(m.network, *net);  // a switch's ports are its hosts
    m.index(source());
    return m;
  }

 private:
  void check_links(const Network& net, const toml::table& where) const {
    if (net.num_links() > kMaxLinks)
      fail(line_of(where), "the network has " + std::to_string(net.num_links()) +
                               " directed links; rankmap maps onto at most " + std::to_string(kMaxLinks) +
                               " (2^26: fewer nodes, dimensions or uplinks)");
  }

  using TomlReader::fail;
  using TomlReader::line_of;
  using TomlReader::reject_unknown;
  using TomlReader::source;
  using TomlReader::string;

  // A latency in ns, from 0 to kMaxLatencyNs.
  double latency(const toml::table& t, const std::string& key, bool required) const {
    const toml::node* n = t.get(key);
    if (!n) {
      if (required) fail(line_of(t), "[network] needs '" + key + "' (a number of nanoseconds)");
      return 0;
    }
    const double v = TomlReader::nonnegative(*n, key);
    if (v > kMaxLatencyNs) fail(*n, "'" + key + "' must be at most 1e9 ns (a second), not " + short_number(v));
    return v;
  }

  // A link rate in Gbit/s: absent (0), or from kMinGbps to kMaxGbps.
  double rate(const toml::table& t, const std::string& key) const {
    const toml::node* n = t.get(key);
    if (!n) return 0;
    const double v = TomlReader::nonnegative(*n, key);
    if (v < kMinGbps || v > kMaxGbps)
      fail(*n, "'" + key + "' must be from 0.001 (1 Mbit/s) to 1e6 Gbit/s (1 Pbit/s), not " + short_number(v));
    return v;
  }

  // A number in at most 12 characters, for messages ("1e+309" stays short).
  static std::string short_number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v);
    return text;
  }

  // A positive whole number no larger than `most`.
  int count(const toml::node& n, const std::string& key, std::int64_t most) const {
    return static_cast<int>(integer(n, key, 1, most));
  }

  // The latency and rate a tree level may override.
  void read_level_times(const toml::table& t, TreeLevel& level) {
    if (t.get("t_ns")) level.t_ns = latency(t, "t_ns", true);
    level.gbps = rate(t, "gbps");
  }

  Network read_network(const toml::table& t) {
    Network net;
    std::string kind = "torus";
    if (const toml::node* k = t.get("kind")) kind = string(*k, "kind");
    if (kind != "torus" && kind != "mesh" && kind != "switch" && kind != "fattree" && kind != "tree" &&
        kind != "dragonfly" && kind != "dragonfly+")
      fail(line_of(*t.get("kind")),
           "unknown network kind '" + kind + "'; expected torus, mesh, switch, fattree, tree, dragonfly or dragonfly+");
    if (kind == "dragonfly" || kind == "dragonfly+") {
      read_dragonfly(t, net, kind == "dragonfly+");
      read_times(t, net);
      return net;
    }
    reject_unknown(
        t, {"kind", "dims", "wrap", "levels", "t_hop_ns", "t_inj_ns", "t_ej_ns", "t_local_ns", "link_gbps", "routing"},
        "[network]");
    if (kind == "tree") {  // the shape is in [[switches]]
      net.kind = NetworkKind::tree;
      site_ = true;
      for (const char* key : {"dims", "wrap", "routing"})
        if (const toml::node* n = t.get(key))
          fail(line_of(*n), std::string("'") + key + "' is for tori and meshes; a tree's shape is its [[switches]]");
      read_site_levels(t);
      read_times(t, net);
      return net;
    }
    if (kind == "switch" || kind == "fattree") {
      net.kind = NetworkKind::tree;
      for (const char* key : {"dims", "wrap", "routing"})
        if (const toml::node* n = t.get(key))
          fail(line_of(*n), std::string("'") + key + "' is for tori and meshes; a " + kind + " has " +
                                (kind == "switch" ? "no shape (its hosts are its ports)" : "'levels'"));
      if (kind == "switch") {
        if (const toml::node* n = t.get("levels"))
          fail(line_of(*n), "a switch has one level; use kind = \"fattree\" for 'levels'");
        net.levels.push_back({});  // fan-out: the hosts listed, set by read_nodes
      } else {
        read_levels(t, net);
      }
      for (const TreeLevel& l : net.levels) net.dims.push_back(l.fanout);
      net.wrap.assign(net.dims.size(), false);
      read_times(t, net);
      return net;
    }
    if (const toml::node* n = t.get("levels")) fail(line_of(*n), "'levels' is for kind = \"fattree\"");
    const toml::array* dims = t["dims"].as_array();
    if (!dims) fail(line_of(t), "[network] needs 'dims', e.g. dims = [4, 2, 2, 2]");
    if (dims->empty() || dims->size() > kMaxDims)
      fail(line_of(*dims),
           "'dims' must have 1 to " + std::to_string(kMaxDims) + " entries, not " + std::to_string(dims->size()));
    std::size_t coords = 1;
    for (const auto& d : *dims) {
      auto v = detail::toml_integer(d);
      if (!d.is_integer() || !v || *v < 1 || *v > 1'000'000)
        fail(line_of(d), "each of 'dims' must be a whole number from 1 to 1000000");
      net.dims.push_back(static_cast<int>(*v));
      coords *= static_cast<std::size_t>(*v);  // at most 2^24 * 10^6 before the check: no overflow
      if (coords > kMaxCoords) fail(line_of(d), "'dims' make more than " + std::to_string(kMaxCoords) + " nodes");
    }
    net.wrap.assign(net.dims.size(), kind == "torus");
    if (const toml::node* w = t.get("wrap")) {
      const toml::array* wa = w->as_array();
      if (!wa || wa->size() != net.dims.size())
        fail(line_of(*w), "'wrap' must be a list of " + std::to_string(net.dims.size()) + " booleans");
      for (std::size_t i = 0; i < wa->size(); ++i) {
        auto b = (*wa)[i].value<bool>();
        if (!(*wa)[i].is_boolean() || !b) fail(line_of((*wa)[i]), "'wrap' entries must be true or false");
        net.wrap[i] = *b;
      }
    }
    read_times(t, net);
    if (const toml::node* r = t.get("routing"))
      net.routing = parse_routing(string(*r, "routing"), net.num_dims(), source(), line_of(*r));
    else
      net.routing = default_routing(net.num_dims());
    return net;
  }

  // kind = "dragonfly": groups, chassis, routers, nodes_per_router;
  // "dragonfly+": groups, leaves, spines, nodes_per_leaf (docs/formats.md).
  void read_dragonfly(const toml::table& t, Network& net, bool plus) {
    const char* routers_key = plus ? "leaves" : "routers";
    const char* nodes_key = plus ? "nodes_per_leaf" : "nodes_per_router";
    const char* local_key = plus ? "leaf_links" : "router_links";
    std::vector<std::string_view> keys = {
        "kind",     "groups",     routers_key,   nodes_key,    "global_links",
        local_key,  "local_gbps", "global_gbps", "wiring",     "adaptive_minimal_share",
        "t_hop_ns", "t_inj_ns",   "t_ej_ns",     "t_local_ns", "link_gbps"};
    for (const char* key :
         plus ? std::vector<const char*>{"spines"} : std::vector<const char*>{"chassis", "chassis_links"})
      keys.push_back(key);
    reject_unknown(t, keys, std::string("[network] of a ") + (plus ? "dragonfly+" : "dragonfly"));
    net.kind = NetworkKind::dragonfly;
    DragonflyShape& s = net.dragonfly;
    auto need = [&](const char* key, int& field, std::int64_t most) {
      const toml::node* n = t.get(key);
      if (!n) fail(line_of(t), std::string("a ") + (plus ? "dragonfly+" : "dragonfly") + " needs '" + key + "'");
      field = count(*n, key, most);
    };
    auto optional = [&](const char* key, int& field, std::int64_t most) {
      if (const toml::node* n = t.get(key)) field = count(*n, key, most);
    };
    need("groups", s.groups, 65536);
    need(routers_key, s.routers, 65536);
    need(nodes_key, s.nodes, 65536);
    if (plus) need("spines", s.spines, 65536);
    optional("chassis", s.chassis, 65536);
    optional("global_links", s.global_links, 4096);
    optional(local_key, s.router_links, 4096);
    optional("chassis_links", s.chassis_links, 4096);
    s.local_gbps = rate(t, "local_gbps");
    s.global_gbps = rate(t, "global_gbps");
    if (const toml::node* n = t.get("adaptive_minimal_share")) {
      const auto v = n->value<double>();
      if (!v || !(*v >= 0 && *v <= 1)) fail(line_of(*n), "'adaptive_minimal_share' must be a number from 0 to 1");
      s.adaptive_minimal_share = *v;
    }
    if (const toml::node* n = t.get("wiring")) {
      const std::string wiring = string(*n, "wiring");
      if (wiring != "round-robin" && wiring != "simgrid")
        fail(line_of(*n), "unknown wiring '" + wiring + "'; expected round-robin or simgrid");
      s.simgrid_wiring = wiring == "simgrid";
      if (s.simgrid_wiring && plus)
        fail(line_of(*n), "SimGrid has no Dragonfly+ zone: wiring = \"simgrid\" is for a dragonfly");
      // SimGrid cables group h to router h of chassis 0 of each group.
      if (s.simgrid_wiring && s.groups > s.routers)
        fail(line_of(*n),
             "wiring = \"simgrid\" puts the link to group h on router h of chassis 0: " + std::to_string(s.groups) +
                 " groups need at least as many routers a chassis, not " + std::to_string(s.routers));
    }
    const std::size_t coords = static_cast<std::size_t>(s.groups) * static_cast<std::size_t>(s.chassis) *
                               static_cast<std::size_t>(s.routers) * static_cast<std::size_t>(s.nodes);
    if (coords > kMaxCoords) fail(line_of(t), "the dragonfly has more than " + std::to_string(kMaxCoords) + " nodes");
    net.dims = {s.nodes, s.routers, s.chassis, s.groups};
    net.wrap.assign(net.dims.size(), false);
  }

  void read_times(const toml::table& t, Network& net) {
    net.t_hop_ns = latency(t, "t_hop_ns", true);
    net.t_inj_ns = latency(t, "t_inj_ns", true);
    net.t_ej_ns = latency(t, "t_ej_ns", true);
    if (t.get("t_local_ns")) net.t_local_ns = latency(t, "t_local_ns", true);
    net.link_gbps = rate(t, "link_gbps");
  }

  // A tree's optional levels = [{t_ns = 900, gbps = 100}, ...], lowest
  // first: the shape comes from the switches.
  void read_site_levels(const toml::table& t) {
    const toml::node* n = t.get("levels");
    if (!n) return;
    const toml::array* levels = n->as_array();
    if (!levels) fail(line_of(*n), "'levels' must be a list of tables, e.g. [{t_ns = 900, gbps = 100}]");
    site_levels_line_ = line_of(*n);
    for (const auto& l : *levels) {
      const toml::table* lt = l.as_table();
      if (!lt) fail(line_of(l), "each of 'levels' must be a table, e.g. {t_ns = 900, gbps = 100}");
      reject_unknown(*lt, {"t_ns", "gbps"}, "a tree's level (its fan-out and uplinks come from [[switches]])");
      TreeLevel level;
      read_level_times(*lt, level);
      site_levels_.push_back(level);
    }
  }

  // A hostlist string, or a list of them, against one budget for the file.
  std::vector<std::string> names(const toml::node& n, const std::string& key) {
    std::vector<std::string> out;
    auto add = [&](const toml::node& h) {
      auto more = site_names_.expand(string(h, key), source(), line_of(h));
      out.insert(out.end(), more.begin(), more.end());
    };
    if (const toml::array* list = n.as_array()) {
      for (const auto& h : *list) add(h);
    } else {
      add(n);
    }
    return out;
  }

  // [[switches]] and [[cables]] (docs/formats.md), built by
  // build_site_tree; [[nodes]] groups give each host its tree of cores.
  void read_site(const toml::table& root, Machine& m) {
    if (const toml::node* h = root.get("hosts")) fail(line_of(*h), "[hosts] is for kind = \"switch\" or \"fattree\"");
    const toml::array* switches = root["switches"].as_array();
    if (!switches || switches->empty())
      fail(line_of(root), "a tree needs [[switches]], e.g. [[switches]] name = \"s0\" nodes = \"n[0-15]\"");
    SiteTree tree;
    tree.source = source();
    std::map<std::string, std::size_t> line_of_node;
    for (const auto& e : *switches) {
      const toml::table* t = e.as_table();
      if (!t) fail(line_of(e), "each [[switches]] entry must be a table");
      reject_unknown(*t, {"name", "nodes", "switches", "links", "gbps"}, "[[switches]]");
      SiteSwitch s;
      s.line = line_of(*t);
      const toml::node* name = t->get("name");
      if (!name) fail(s.line, "[[switches]] needs 'name'");
      s.name = string(*name, "name");
      if (const toml::node* n = t->get("nodes")) s.nodes = names(*n, "nodes");
      if (const toml::node* n = t->get("switches")) s.switches = names(*n, "switches");
      if (const toml::node* n = t->get("links")) s.links = count(*n, "links", 4096);
      s.gbps = rate(*t, "gbps");
      for (const std::string& n : s.nodes) line_of_node.emplace(n, s.line);
      tree.switches.push_back(std::move(s));
    }
    if (const toml::node* c = root.get("cables")) {
      const toml::array* cables = c->as_array();
      if (!cables) fail(line_of(*c), "'cables' must be [[cables]] tables");
      for (const auto& e : *cables) {
        const toml::table* t = e.as_table();
        if (!t) fail(line_of(e), "each [[cables]] entry must be a table");
        reject_unknown(*t, {"upper", "lower", "links", "gbps"}, "[[cables]]");
        SiteCable cable;
        cable.line = line_of(*t);
        for (auto [key, field] : {std::pair{"upper", &cable.upper}, std::pair{"lower", &cable.lower}}) {
          const toml::node* n = t->get(key);
          if (!n)
            fail(cable.line, std::string("[[cables]] needs '") + key + "' (a switch" +
                                 (field == &cable.lower ? " or a node" : "") + ")");
          *field = string(*n, key);
        }
        if (const toml::node* n = t->get("links")) cable.links = count(*n, "links", 4096);
        cable.gbps = rate(*t, "gbps");
        tree.cables.push_back(std::move(cable));
      }
    }
    std::vector<double> level_gbps;
    for (const TreeLevel& l : site_levels_) level_gbps.push_back(l.gbps);
    SiteNetwork site = build_site_tree(tree, level_gbps);
    if (site_levels_.size() > site.network.levels.size())
      fail(site_levels_line_, "'levels' lists " + std::to_string(site_levels_.size()) + " levels; the switches make " +
                                  std::to_string(site.network.levels.size()));
    for (std::size_t l = 0; l < site_levels_.size(); ++l) site.network.levels[l].t_ns = site_levels_[l].t_ns;
    const Network shape = m.network;  // the times read from [network]
    m.network = std::move(site.network);
    m.network.t_hop_ns = shape.t_hop_ns, m.network.t_inj_ns = shape.t_inj_ns, m.network.t_ej_ns = shape.t_ej_ns;
    m.network.t_local_ns = shape.t_local_ns, m.network.link_gbps = shape.link_gbps;

    // Each host's tree of cores from its [[nodes]] group.
    const toml::array* groups = root["nodes"].as_array();
    if (!groups || groups->empty()) fail(line_of(root), "missing [[nodes]] groups (each host's 'hwloc')");
    std::map<std::string, int> type_of_host, type_of_spec;
    for (const auto& g : *groups) {
      const toml::table* group = g.as_table();
      if (!group) fail(line_of(g), "each [[nodes]] entry must be a table");
      reject_unknown(*group, {"hosts", "hwloc", "hwloc_xml"}, "[[nodes]] of a tree");
      const toml::node* hosts = group->get("hosts");
      if (!hosts) fail(line_of(*group), "[[nodes]] needs 'hosts', e.g. hosts = \"node[00-31]\"");
      const int type = node_type(*group, m, type_of_spec);
      for (const std::string& h : names(*hosts, "hosts")) {
        if (!line_of_node.count(h)) fail(line_of(*hosts), "host '" + h + "' is under no switch of [[switches]]");
        if (!type_of_host.emplace(h, type).second) fail(line_of(*hosts), "host '" + h + "' is listed twice");
      }
    }
    for (std::size_t i = 0; i < site.hosts.size(); ++i) {
      auto type = type_of_host.find(site.hosts[i]);
      if (type == type_of_host.end())
        fail(line_of_node[site.hosts[i]],
             "node '" + site.hosts[i] + "' is in no [[nodes]] group (which gives its 'hwloc' or 'hwloc_xml')");
      Node node;
      node.host = site.hosts[i];
      node.type = type->second;
      node.coord_index = site.coord_index[i];
      node.coord = coord_of(node.coord_index, m.network);
      m.nodes.push_back(std::move(node));
    }
  }

  // The index in m.node_types of a [[nodes]] group's tree of cores, read
  // once per distinct hwloc string or file.
  int node_type(const toml::table& group, Machine& m, std::map<std::string, int>& type_of_spec) {
    std::string spec;
    std::size_t spec_line = line_of(group);
    if (const toml::node* h = group.get("hwloc")) {
      spec = string(*h, "hwloc");
      spec_line = line_of(*h);
    } else if (const toml::node* x = group.get("hwloc_xml")) {
      std::filesystem::path p = string(*x, "hwloc_xml");
      if (p.is_relative()) p = base_dir_ / p;
      spec = "xml:" + p.string();
      m.files.push_back(p);
      spec_line = line_of(*x);
    } else {
      fail(line_of(group), "[[nodes]] needs 'hwloc' (e.g. \"package:2 core:6 pu:2\") or 'hwloc_xml'");
    }
    auto [it, fresh] = type_of_spec.try_emplace(spec, static_cast<int>(m.node_types.size()));
    if (fresh) m.node_types.push_back(load_node_type(spec, source(), spec_line));
    return it->second;
  }

  // The nodes a fat tree's levels hold (their fan-outs multiplied, at most
  // kMaxCoords), read before any level: the bound of every level's uplinks.
  static std::size_t capacity(const toml::array& levels) {
    std::size_t n = 1;
    for (const auto& l : levels) {
      const toml::table* lt = l.as_table();
      const toml::node* f = lt ? lt->get("fanout") : nullptr;
      const auto v = f && f->is_integer() ? detail::toml_integer(*f) : std::nullopt;
      if (v && *v >= 1) n = std::min(kMaxCoords, n * static_cast<std::size_t>(std::min<std::int64_t>(*v, kMaxCoords)));
    }
    return n;
  }

  // levels = [{fanout = 16, uplinks = 8}, {fanout = 8}], lowest first. A
  // level's uplinks default to one per node below it (full bisection).
  void read_levels(const toml::table& t, Network& net) {
    const toml::node* n = t.get("levels");
    const toml::array* levels = n ? n->as_array() : nullptr;
    if (!levels || levels->empty())
      fail(n ? line_of(*n) : line_of(t),
           "a fattree needs 'levels', e.g. levels = [{fanout = 16, uplinks = 8}, {fanout = 8}]");
    if (levels->size() > kMaxDims - 1)
      fail(line_of(*levels),
           "'levels' may list 1 to " + std::to_string(kMaxDims - 1) + " levels (one more is kept for [hosts])");
    std::size_t below = 1;
    for (std::size_t i = 0; i < levels->size(); ++i) {
      const toml::table* lt = (*levels)[i].as_table();
      if (!lt) fail(line_of((*levels)[i]), "each of 'levels' must be a table, e.g. {fanout = 16, uplinks = 8}");
      reject_unknown(*lt, {"fanout", "uplinks", "t_ns", "gbps"}, "a level");
      TreeLevel level;
      const toml::node* f = lt->get("fanout");
      if (!f) fail(line_of(*lt), "each level needs 'fanout' (its switches' children)");
      level.fanout = count(*f, "fanout", 1'000'000);
      below *= static_cast<std::size_t>(level.fanout);
      if (below > kMaxCoords) fail(line_of(*f), "the levels hold more than " + std::to_string(kMaxCoords) + " nodes");
      const bool top = i + 1 == levels->size();
      if (const toml::node* u = lt->get("uplinks")) {
        if (top) fail(line_of(*u), "the top level has no parent for 'uplinks'");
        // A route takes the uplink its destination picks (mod uplinks):
        // more uplinks than the tree's nodes would never carry a byte.
        level.uplinks = count(*u, "uplinks", static_cast<std::int64_t>(capacity(*levels)));
      } else {
        level.uplinks = top ? 1 : static_cast<int>(below);
      }
      read_level_times(*lt, level);
      net.levels.push_back(level);
    }
  }

  // [hosts]: the nodes are VMs, vms_per_host to a physical host, below
  // the network's lowest level.
  void add_host_level(const toml::node& n, Network& net) {
    const toml::table* t = n.as_table();
    if (!t) fail(line_of(n), "'hosts' must be a table: [hosts] vms_per_host = 2");
    reject_unknown(*t, {"vms_per_host", "uplinks", "t_ns", "gbps"}, "[hosts]");
    if (!net.is_tree())
      fail(line_of(*t), "[hosts] needs a switch or fattree network (VMs on torus nodes are not supported)");
    if (net.levels.size() >= kMaxDims) fail(line_of(*t), "too many levels with [hosts]");
    TreeLevel host;
    host.host = true;
    const toml::node* v = t->get("vms_per_host");
    if (!v) fail(line_of(*t), "[hosts] needs 'vms_per_host'");
    host.fanout = count(*v, "vms_per_host", 4096);
    if (const toml::node* u = t->get("uplinks")) host.uplinks = count(*u, "uplinks", 4096);
    read_level_times(*t, host);
    net.levels.insert(net.levels.begin(), host);
    net.dims.insert(net.dims.begin(), host.fanout);
    net.wrap.push_back(false);
  }

  void read_nodes(const toml::array& groups, Machine& m) {
    Network& net = m.network;
    // A switch's fan-out is the number of hosts; until they are read, 1.
    const bool switch_ports_open = net.is_tree() && net.levels.back().fanout == 0;
    if (switch_ports_open) net.levels.back().fanout = net.dims.back() = 1;
    std::vector<char> taken(net.is_tree() ? 0 : net.num_coords(), 0);
    std::map<std::string, int> type_of_spec;
    struct Pending {
      std::size_t node;
      std::size_t line;
    };
    std::vector<Pending> without_coords;

    for (const auto& g : groups) {
      const toml::table* group = g.as_table();
      if (!group) fail(line_of(g), "each [[nodes]] entry must be a table");
      reject_unknown(*group, {"hosts", "hwloc", "hwloc_xml", "coords"}, "[[nodes]]");
      const std::size_t gline = line_of(*group);

      const toml::node* hosts_node = group->get("hosts");
      if (!hosts_node) fail(gline, "[[nodes]] needs 'hosts', e.g. hosts = \"node[00-31]\"");
      // A torus or fat tree has room for so many hosts: a list past it is
      // refused before its hosts are made (a switch's ports are its hosts).
      const std::size_t room = switch_ports_open ? kMaxHostlistHosts : net.num_coords();
      auto expand = [&](const toml::node& h, std::size_t listed) {
        return expand_hostlist(string(h, "hosts"), source(), line_of(h), room > listed ? room - listed : 0);
      };
      std::vector<std::string> hosts;
      if (const toml::array* list = hosts_node->as_array()) {
        for (const auto& h : *list) {
          auto more = expand(h, m.nodes.size() + hosts.size());
          hosts.insert(hosts.end(), more.begin(), more.end());
        }
      } else {
        hosts = expand(*hosts_node, m.nodes.size());
      }

      const int type = node_type(*group, m, type_of_spec);

      const toml::array* coords = group->get_as<toml::array>("coords");
      if (group->get("coords") && !coords) fail(gline, "'coords' must be a list of coordinate lists");
      if (coords && net.is_tree())
        fail(line_of(*coords), "'coords' is for tori and meshes; a " + net.kind_name() +
                                   " takes its hosts in the order listed, lowest level's ports first");
      if (coords && coords->size() != hosts.size())
        fail(line_of(*coords), "'coords' has " + std::to_string(coords->size()) + " entries for " +
                                   std::to_string(hosts.size()) + " hosts");
      for (std::size_t i = 0; i < hosts.size(); ++i) {
        Node node;
        node.host = hosts[i];
        node.type = type;
        if (coords) {
          node.coord = read_coord((*coords)[i], m.network);
          node.coord_index = m.network.coord_index_of(node.coord);
          if (taken[node.coord_index]) fail(line_of((*coords)[i]), "coordinates of '" + node.host + "' are used twice");
          taken[node.coord_index] = 1;
        } else {
          without_coords.push_back({m.nodes.size(), gline});
        }
        m.nodes.push_back(std::move(node));
      }
    }

    if (switch_ports_open) {
      const std::size_t per_port = net.tree_span(net.num_dims() - 1);
      if (m.nodes.size() % per_port != 0)
        fail(line_of(groups), "the [[nodes]] groups list " + std::to_string(m.nodes.size()) +
                                  " hosts, not a multiple of vms_per_host (" + std::to_string(per_port) + ")");
      net.levels.back().fanout = net.dims.back() = static_cast<int>(m.nodes.size() / per_port);
    }
    const std::size_t ncoords = net.num_coords();
    if (m.nodes.size() != ncoords)
      fail(line_of(groups), "the [[nodes]] groups list " + std::to_string(m.nodes.size()) + " hosts but the " +
                                (net.is_tree() ? "levels hold " + std::to_string(ncoords) + " nodes"
                                               : "network has " + std::to_string(ncoords) + " coordinates") +
                                "; every " + (net.is_tree() ? "port" : "coordinate") + " needs exactly one host");
    if (taken.empty()) taken.assign(ncoords, 0);
    // Hosts without explicit coordinates fill the free ones in order, X fastest.
    std::size_t cursor = 0;
    for (const Pending& p : without_coords) {
      while (taken[cursor]) ++cursor;
      taken[cursor] = 1;
      Node& node = m.nodes[p.node];
      node.coord_index = cursor;
      node.coord = coord_of(cursor, m.network);
    }
  }

  std::vector<int> read_coord(const toml::node& n, const Network& net) {
    const toml::array* a = n.as_array();
    if (!a || a->size() != net.dims.size())
      fail(line_of(n), "each coordinate must list " + std::to_string(net.dims.size()) + " numbers");
    std::vector<int> c;
    for (std::size_t d = 0; d < a->size(); ++d) {
      auto v = detail::toml_integer((*a)[d]);
      if (!(*a)[d].is_integer() || !v || *v < 0 || *v >= net.dims[d])
        fail(line_of((*a)[d]),
             "coordinate " + std::to_string(d) + " must be from 0 to " + std::to_string(net.dims[d] - 1));
      c.push_back(static_cast<int>(*v));
    }
    return c;
  }

  static std::vector<int> coord_of(std::size_t idx, const Network& net) {
    std::vector<int> c(net.dims.size());
    for (int d = 0; d < net.num_dims(); ++d) {
      c[d] = static_cast<int>(idx % net.dims[d]);
      idx /= net.dims[d];
    }
    return c;
  }

  std::filesystem::path base_dir_;
  bool site_ = false;  // kind = "tree": the shape is in [[switches]]
  detail::NameBudget site_names_;
  std::vector<TreeLevel> site_levels_;
  std::size_t site_levels_line_ = 0;
};

}  // namespace

// Relative hwloc_xml paths are taken from the directory of `source`.
Machine parse_machine(std::string_view toml_text, const std::string& source) {
  Reader reader(source, std::filesystem::path(source).parent_path());
  return reader.read(reader.parse(toml_text));
}

Machine load_machine(const std::filesystem::path& path) {
  Machine m = parse_machine(read_text_file(path), path.string());
  m.files.insert(m.files.begin(), path);
  return m;
}

}  // namespace rankmap
