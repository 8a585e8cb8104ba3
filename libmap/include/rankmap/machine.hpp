// The machine: a network whose vertices are nodes, each node a tree of
// packages, cores and hardware threads (PUs). Networks come in kinds:
//  - torus / mesh of 1 to 6 dimensions (network.cpp, detail/route.hpp);
//  - switch and fat tree: levels of switches (tree_network.cpp), the
//    lowest of which may be physical hosts holding the nodes as VMs;
//  - a tree as a site wired it (kind "tree": switches, their children and
//    cables, import/site_tree.cpp): the regular skeleton of `levels` with
//    the ports and cables the site has (TreeWiring).
// Every kind defines the hops between two nodes, the route of a message
// and the directed links it loads (Network::hops, for_each_link,
// num_links, link_gbps_of, message_ns); scores and the gain model use only
// these, and the engine too, but for the choices that follow the network's
// shape (libmap/src/map/kinds/network_kind.hpp, a file per kind). Read from the
// TOML format of README.md, "Inputs".
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rankmap {

inline constexpr int kMaxDims = 6;  // Tofu (Fugaku) has 6

// What a machine file may hold, checked when it is read, so that a file
// that reads also maps (docs/formats.md). Directed links in all: each
// costs the engine and the scores about 70 bytes (36M links took 2.5 GB),
// so 2^26 stay within 5 GB.
inline constexpr std::size_t kMaxLinks = std::size_t{1} << 26;
// Latencies from 0 to a second, in ns; link rates from 1 Mbit/s to
// 1 Pbit/s, in Gbit/s (0: not given).
inline constexpr double kMaxLatencyNs = 1e9;
inline constexpr double kMinGbps = 1e-3, kMaxGbps = 1e6;

// One move of the routing order: all hops of dimension `dim` in direction
// `sign` (+1 or -1) are taken together.
struct RouteStep {
  int dim = 0;
  int sign = +1;
};

enum class NetworkKind { torus, tree, dragonfly };

// One level of a tree network, from the nodes up. A switch of the level
// joins `fanout` children (nodes, for the lowest level; switches of the
// level below, above it).
struct TreeLevel {
  int fanout = 0;
  int uplinks = 1;    // parallel links from one switch of this level to its parent (the top has none)
  double t_ns = -1;   // a message between nodes that meet here; < 0: T(hops) of the network
  double gbps = 0;    // each link into this level's switches, each way; 0: the network's link_gbps
  bool host = false;  // a physical host whose VMs are the nodes (its "switch" is the host's bridge)
};

// The switches of a tree as a site wired it. Switches that share children
// (a leaf's spines) act as one switch of `levels` whose uplinks are all
// their members' cables; its ports are its children in the order
// the site listed them. Each level of `levels` has the most children and
// cables any of its switches has: what a switch lacks are empty ports and
// absent cables, which carry nothing.
struct TreeWiring {
  // Per tier (0: the nodes' own cables), per vertex of the tier in
  // coordinate order: its cables up, 0 on an empty port. Empty when the
  // site's tree is regular (then `levels` says it all).
  std::vector<std::vector<int>> uplinks;
  // Per cable (tree link id / 2): its rate each way in Gbit/s, 0 where no
  // cable is or no rate was given (then the level's or link_gbps).
  std::vector<double> gbps;
  // The site's switch names, and per cable the switches at its lower and
  // upper end (indices into `switches`; the lower is -1 on a node's cable).
  std::vector<std::string> switches;
  std::vector<std::pair<int, int>> ends;
  // Per level (1 = lowest, index 0), per vertex: its switch, for naming.
  std::vector<std::vector<int>> level_switch;
};

// A dragonfly: groups of routers, each router holding `nodes` nodes, and
// cables between every two groups. In a group (kind "dragonfly"), routers
// stand in `chassis` rows of `routers`, all-to-all along a row (SimGrid's
// green links) and along a column (black links): Cray's Cascade, and with
// one chassis Slingshot's all-to-all group. In a Dragonfly+ group
// ("dragonfly+") `routers` leaves hold the nodes and each is cabled to
// every one of `spines` spines, which hold the global cables. Parallel
// cables inside a group are one link of their summed rate (as SimGrid
// has them); between groups each cable is a link of its own.
struct DragonflyShape {
  int groups = 1;
  int chassis = 1;              // rows of routers a group (Dragonfly+: 1)
  int routers = 1;              // routers a chassis (Dragonfly+: leaves a group)
  int nodes = 1;                // nodes a router (leaf)
  int spines = 0;               // Dragonfly+: spines a group; 0 for a dragonfly
  int global_links = 1;         // cables between two groups
  int chassis_links = 1;        // cables between two routers of a column (black)
  int router_links = 1;         // cables between two routers of a row (green); Dragonfly+: leaf to spine
  bool simgrid_wiring = false;  // SimGrid 3.32's DragonflyZone: see dragonfly_network.cpp
  double local_gbps = 0;        // each cable inside a group, each way; 0: link_gbps
  double global_gbps = 0;       // each cable between groups; 0: link_gbps
  // The share of a group pair's bytes the adaptive reading leaves on the
  // minimal route; the rest goes through the other groups (docs/design.md).
  double adaptive_minimal_share = 0.5;

  bool plus() const { return spines > 0; }
  int routers_per_group() const { return chassis * routers; }
  // Routers holding a group's global cables: all of them, or the spines.
  int global_routers() const { return plus() ? spines : routers_per_group(); }
  // Links a directed group pair has: SimGrid's one of summed rate, else each cable.
  int pair_links() const { return simgrid_wiring ? 1 : global_links; }
};

struct Network {
  NetworkKind kind = NetworkKind::torus;
  // Torus: nodes along X, Y, Z, W, V, U. Tree: the levels' fan-outs, lowest
  // first, so that a node's coordinates are its port on each level (and
  // its coordinate index its position, leaves in order).
  std::vector<int> dims;
  std::vector<bool> wrap;                    // per dimension: ring (true) or line (false); trees: all false
  std::vector<TreeLevel> levels;             // trees only, lowest first
  double t_hop_ns = 0;                       // router + link, per hop
  double t_inj_ns = 0;                       // injection (sender NIC)
  double t_ej_ns = 0;                        // ejection (receiver NIC)
  double t_local_ns = -1;                    // a message between ranks of one node; < 0: t_inj + t_ej
  double link_gbps = 0;                      // 0 when the description gives none
  std::vector<RouteStep> routing;            // torus: 2 * dims.size() steps; trees: none
  std::shared_ptr<const TreeWiring> wiring;  // a site's tree (kind "tree"); null otherwise
  DragonflyShape dragonfly;                  // kind dragonfly: dims are {nodes, routers, chassis, groups}

  // A tree with empty ports or switches of unlike cables (TreeWiring).
  bool irregular() const { return wiring && !wiring->uplinks.empty(); }
  // Whether a link exists: on an irregular tree, not an empty port's or
  // an absent cable's.
  bool has_link(std::size_t link) const;
  // Cables up from vertex `vertex` of tree tier `tier` (0: the nodes).
  int uplinks_of(int tier, std::size_t vertex) const {
    if (irregular()) return wiring->uplinks[static_cast<std::size_t>(tier)][vertex];
    return tier == 0 ? 1 : levels[static_cast<std::size_t>(tier) - 1].uplinks;
  }

  bool is_tree() const { return kind == NetworkKind::tree; }
  bool is_dragonfly() const { return kind == NetworkKind::dragonfly; }
  // A dragonfly's link between two groups: its group pair.
  std::pair<int, int> global_link_groups(std::size_t link) const;
  // The group of a coordinate index (0 on other kinds).
  int group_of(std::size_t coord) const {
    return is_dragonfly() ? static_cast<int>(coord / (num_coords() / static_cast<std::size_t>(dragonfly.groups))) : 0;
  }
  int num_dims() const { return static_cast<int>(dims.size()); }
  // Hops between two nodes' coordinates (kMaxDims entries each). Torus:
  // the shortest path's links between routers. Tree: the links up to the
  // lowest switch the two share and down again, 2 per level climbed (a
  // host's bridge counts as a level). Dragonfly: the links of the route,
  // the nodes' own two included.
  template <class Coords>
  int hops(const Coords& a, const Coords& b) const {
    if (is_dragonfly()) return dragonfly_hops(coord_index_of(a), coord_index_of(b));
    if (is_tree()) {
      for (int d = num_dims() - 1; d >= 0; --d)
        if (a[d] != b[d]) return 2 * (d + 1);
      return 0;
    }
    int h = 0;
    for (int d = 0; d < num_dims(); ++d) h += hops_1d(d, a[d], b[d]);
    return h;
  }
  template <class Coords>
  std::size_t coord_index_of(const Coords& c) const {
    std::size_t idx = 0;
    for (int d = num_dims() - 1; d >= 0; --d)
      idx = idx * static_cast<std::size_t>(dims[d]) + static_cast<std::size_t>(c[d]);
    return idx;
  }
  int dragonfly_hops(std::size_t a, std::size_t b) const;
  // The time of a message inside a node: t_local_ns when given, else the
  // seed model's T(0) = t_inj + t_ej.
  double local_ns() const { return t_local_ns >= 0 ? t_local_ns : t_inj_ns + t_ej_ns; }
  std::size_t num_coords() const;
  // Hops along one dimension from a to b (shortest, with wrap).
  int hops_1d(int dim, int a, int b) const {
    const int delta = a > b ? a - b : b - a;
    return wrap[dim] && dims[dim] - delta < delta ? dims[dim] - delta : delta;
  }
  // Largest shortest-path distance between two coordinates.
  int diameter() const;
  // Directed links. Torus: one per coordinate, dimension and direction; see
  // link_id(). On a size-2 ring the single cable is the `+` link of each
  // end. Tree: see tree_link_id().
  std::size_t num_links() const;
  std::size_t link_id(std::size_t coord, int dim, int sign) const {
    return (coord * dims.size() + static_cast<std::size_t>(dim)) * 2 + (sign < 0 ? 1 : 0);
  }
  // Tree links by tier: tier 0 joins each node to its lowest switch, tier t
  // each switch of level t to its parent, `uplinks` parallel links; each
  // link has an up and a down direction. `vertex` counts the tier's
  // children left to right.
  std::size_t tree_link_id(int tier, std::size_t vertex, int parallel, bool down) const;
  // Each way, in Gbit/s: the link's level's rate, else link_gbps.
  double link_gbps_of(std::size_t link) const;
  // The zero-byte time of a message over `hops` (gain.hpp's T(d)): t_inj +
  // t_ej + t_hop * hops, or on a tree the level's own latency if it has one.
  double message_ns(double hops) const;
  // Whether message_ns is that linear form everywhere.
  bool linear_times() const {
    for (const TreeLevel& l : levels)
      if (l.t_ns >= 0) return false;
    return true;
  }
  // The mean shortest-path distance in hops between two distinct nodes.
  double mean_distance() const;
  // Whether routes begin and end on the nodes' own links (a tree's or a
  // dragonfly's: a node's cable to its switch is its NIC); a torus's routes run between
  // routers, and the NICs are resources of their own.
  bool routes_include_nics() const { return kind != NetworkKind::torus; }
  // "+X at (1,0,2)", "node 5 up to level-1 switch", ...: for reports. A
  // tree's node is named by `node(position)` when given (Machine::link_name
  // gives its host), else "node <position>".
  std::string link_name(std::size_t link, const std::function<std::string(std::size_t)>& node = {}) const;
  // Nodes one switch of `level` (1 = lowest) holds: the product of the fan-outs up to it.
  std::size_t tree_span(int level) const;
  std::string routing_string() const;  // "+X+Y+Z-X-Y-Z"; trees: "up*/down*"
  std::string kind_name() const;       // "torus", "mesh", "switch", "fattree", "tree", "dragonfly", "dragonfly+"
};

// Parses "+X+Y+Z+W-X-Y-Z-W" (spaces allowed) for a network of `ndims`.
// Every dimension must appear once with each sign.
std::vector<RouteStep> parse_routing(std::string_view text, int ndims, const std::string& source = "routing",
                                     std::size_t line = 0);
std::vector<RouteStep> default_routing(int ndims);

// A hardware thread inside a node, in hwloc's logical order.
struct Pu {
  int package = 0;          // logical package index in the node
  int core = 0;             // logical core index in the node
  int core_in_package = 0;  // logical core index inside its package
  int pu_in_package = 0;    // logical PU index inside its package
  unsigned os_index = 0;    // the CPU number the OS (and binding) uses
};

// The inside of one kind of node, read once through hwloc.
struct NodeType {
  std::string hwloc;  // the synthetic string or "xml:" + path it came from
  int packages = 0;
  int cores = 0;
  std::vector<Pu> pus;                     // logical order
  std::vector<std::vector<int>> core_pus;  // core -> its PUs (indices in pus)
};

struct Node {
  std::string host;
  int type = 0;                 // index in Machine::node_types
  std::vector<int> coord;       // one value per network dimension
  std::size_t coord_index = 0;  // X fastest
};

struct Machine {
  std::string name;
  Network network;
  std::vector<NodeType> node_types;
  std::vector<Node> nodes;  // in description order
  // The files it was read from: the machine file and its hwloc_xml files
  // (a command must not write over them).
  std::vector<std::filesystem::path> files;

  // Index in `nodes`, or -1.
  int find_host(std::string_view host) const;
  // Index in `nodes` of the node at a coordinate index, or -1.
  int node_at(std::size_t coord_index) const { return node_at_coord_[coord_index]; }
  // Network::link_name with a tree's nodes by their hosts ("n01 up to s0").
  std::string link_name(std::size_t link) const;

  // Builds the lookup tables after nodes are set; checks that hosts are
  // unique and every coordinate holds exactly one node.
  void index(const std::string& source);

 private:
  // Hosts by name: open addressing over node indices (-1 empty), at most
  // half full, looked up by string_view without a copy. A million-line
  // rankfile is read back a host per line, and 10^7 hosts are indexed
  // with no allocation a host.
  std::vector<int> host_slots_;
  std::vector<int> node_at_coord_;
};

// Throws Error naming the file and line on any malformed or inconsistent
// description (unknown key types, a hostlist that does not parse, a host
// count that does not fill the torus, duplicate coordinates...).
Machine load_machine(const std::filesystem::path& path);
Machine parse_machine(std::string_view toml_text, const std::string& source);

// Reads a node's tree from an hwloc synthetic string ("package:2 core:6
// pu:2") or, with the "xml:" prefix, an hwloc XML file.
NodeType load_node_type(const std::string& hwloc_spec, const std::string& source, std::size_t line);

// The node this process runs on, read by hwloc, as hwloc XML: a machine
// file's hwloc_xml keeps its real OS CPU numbering.
std::string this_node_xml();

}  // namespace rankmap
