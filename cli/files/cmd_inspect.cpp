// rankmap inspect FILE: a summary of a machine (.toml) or a graph.
#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "commands.hpp"
#include "common.hpp"
#include "rankmap/error.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/hostlist.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/profile.hpp"

namespace rankmap::cli {
namespace {

struct InspectOptions {
  std::string file;
  int top = 10;
};

// "4" or "2 to 8": the range of a count or rate over a level's switches.
std::string range(double lo, double hi) {
  std::ostringstream t;
  t << lo;
  if (hi > lo) t << " to " << hi;
  return t.str();
}

// A tree as a site wired it: per level its switches (switches that share
// children count as one group), their children, cables up and
// rates, each as the range over the level, since they may differ.
void inspect_site_tree(const Network& net) {
  const TreeWiring& w = *net.wiring;
  std::cout << "tree of " << w.switches.size() << " switches" << (net.irregular() ? " (irregular)" : " (regular)")
            << ", levels from the nodes up:";
  const std::size_t positions = net.num_coords();
  for (int l = 1; l <= net.num_dims(); ++l) {
    const std::size_t below = net.tree_span(l - 1), fanout = static_cast<std::size_t>(net.dims[l - 1]);
    std::set<int> members;  // the site's switches of this level: the upper ends of the cables into it
    double lo_rate = 0, hi_rate = 0;
    for (std::size_t v = 0; v < positions / below; ++v)
      for (int q = 0; q < net.uplinks_of(l - 1, v); ++q) {
        const std::size_t link = net.tree_link_id(l - 1, v, q, false);
        members.insert(w.ends[link / 2].second);
        const double rate = net.link_gbps_of(link);
        lo_rate = lo_rate > 0 ? std::min(lo_rate, rate) : rate, hi_rate = std::max(hi_rate, rate);
      }
    int groups = 0, lo_kids = 0, hi_kids = 0, lo_up = 0, hi_up = 0;
    for (std::size_t v = 0; v < positions / net.tree_span(l); ++v) {
      if (w.level_switch[l - 1][v] < 0) continue;
      int kids = 0;
      for (std::size_t c = v * fanout; c < (v + 1) * fanout; ++c) kids += net.uplinks_of(l - 1, c) > 0;
      const int up = l < net.num_dims() ? net.uplinks_of(l, v) : 0;
      lo_kids = groups ? std::min(lo_kids, kids) : kids, hi_kids = std::max(hi_kids, kids);
      lo_up = groups ? std::min(lo_up, up) : up, hi_up = std::max(hi_up, up);
      ++groups;
    }
    std::cout << "\n  level " << l << "  " << members.size() << " switch" << (members.size() == 1 ? "" : "es");
    if (static_cast<std::size_t>(groups) < members.size())
      std::cout << " in " << groups << " group" << (groups == 1 ? "" : "s") << " sharing children";
    std::cout << ", " << range(lo_kids, hi_kids) << (l == 1 ? " nodes" : " children") << " each";
    if (l < net.num_dims()) std::cout << ", " << range(lo_up, hi_up) << " cable(s) up";
    std::cout << ", T " << message_time_ns(net, 2 * l) << " ns";
    if (hi_rate > 0) std::cout << ", " << range(lo_rate, hi_rate) << " Gbit/s down to it";
  }
}

void inspect_dragonfly(const Network& net) {
  const DragonflyShape& s = net.dragonfly;
  auto rate = [&](double gbps, int cables) {
    const double each = gbps > 0 ? gbps : net.link_gbps;
    return each > 0 ? ", " + std::to_string(static_cast<long long>(each * cables)) + " Gbit/s" : std::string();
  };
  std::cout << net.kind_name() << ", " << s.groups << " group" << (s.groups == 1 ? "" : "s") << " of ";
  if (s.plus()) {
    std::cout << s.routers << " leaves (" << s.nodes << " nodes each) and " << s.spines
              << " spines, every leaf cabled to every spine" << rate(s.local_gbps, s.router_links);
  } else {
    if (s.chassis > 1) std::cout << s.chassis << " chassis of ";
    std::cout << s.routers << " routers (" << s.nodes << " nodes each), all-to-all"
              << (s.chassis > 1 ? " along rows and columns" : "") << rate(s.local_gbps, s.router_links);
  }
  const int ports = (s.global_links * (s.groups - 1) + s.global_routers() - 1) / s.global_routers();
  std::cout << "\n  global     " << s.global_links << " cable(s) between every two groups"
            << rate(s.global_gbps, s.simgrid_wiring ? s.global_links : 1)
            << (s.simgrid_wiring ? " (SimGrid's wiring: one link of their summed rate)" : "") << ", up to " << ports
            << " a " << (s.plus() ? "spine" : "router") << "\n  adaptive   the reading leaves "
            << s.adaptive_minimal_share * 100 << " % of a group pair's bytes on its minimal route";
}

void inspect_machine(const Machine& m) {
  const Network& net = m.network;
  std::cout << "machine    " << (m.name.empty() ? "(unnamed)" : m.name) << "\nnetwork    ";
  if (net.wiring) {
    inspect_site_tree(net);
  } else if (net.is_dragonfly()) {
    inspect_dragonfly(net);
  } else if (net.is_tree()) {
    std::cout << net.kind_name() << ", levels from the nodes up:";
    for (int l = 1; l <= net.num_dims(); ++l) {
      const TreeLevel& level = net.levels[l - 1];
      std::cout << "\n  level " << l << "  " << (level.host ? "host, " : "switch, ") << level.fanout
                << (l == 1 ? " nodes" : " children") << " each";
      if (l < net.num_dims()) std::cout << ", " << level.uplinks << " uplink(s)";
      std::cout << ", T " << message_time_ns(net, 2 * l) << " ns";
      if (level.gbps > 0) std::cout << ", " << level.gbps << " Gbit/s";
    }
  } else {
    for (int d = 0; d < net.num_dims(); ++d) std::cout << (d ? "x" : "") << net.dims[d];
    std::cout << (std::all_of(net.wrap.begin(), net.wrap.end(), [](bool w) { return w; })
                      ? " torus"
                      : " (mesh in some dimensions)")
              << ", wrap";
    for (bool w : net.wrap) std::cout << ' ' << (w ? "yes" : "no");
  }
  std::cout << "\nrouting    " << net.routing_string() << "\ndiameter   " << net.diameter()
            << " hops\nlatency    t_hop " << net.t_hop_ns << " ns, t_inj " << net.t_inj_ns << " ns, t_ej "
            << net.t_ej_ns << " ns, inside a node " << net.local_ns() << " ns"
            << (net.t_local_ns >= 0 ? " (t_local_ns)" : " (t_inj + t_ej: no t_local_ns)") << "\nlinks      ";
  if (net.link_gbps > 0)
    std::cout << net.link_gbps << " Gbit/s each way (link_gbps)\n";
  else
    std::cout << "no link_gbps: the flow model's bandwidth terms are off\n";
  std::size_t cores = 0, pus = 0;
  for (std::size_t t = 0; t < m.node_types.size(); ++t) {
    std::vector<std::string> hosts;
    for (const Node& n : m.nodes)
      if (n.type == static_cast<int>(t)) hosts.push_back(n.host);
    const NodeType& type = m.node_types[t];
    std::cout << "nodes      " << hosts.size() << " x [" << type.hwloc << "]: " << type.packages << " package(s), "
              << type.cores << " cores, " << type.pus.size() << " PUs  " << compress_hostlist(hosts) << "\n";
    cores += hosts.size() * type.cores;
    pus += hosts.size() * type.pus.size();
  }
  std::cout << "total      " << m.nodes.size() << " nodes, " << cores << " cores, " << pus << " PUs\n";
}

void inspect_graph(const Graph& g, int top) {
  std::uint64_t self = 0, asymmetric = 0;
  std::uint32_t max_degree = 0;
  struct Pair {
    std::uint32_t a, b;
    std::uint64_t bytes;
  };
  std::vector<Pair> pairs;
  auto bytes_between = [&](std::uint32_t a, std::uint32_t b) -> std::uint64_t {
    auto first = g.targets.begin() + static_cast<std::ptrdiff_t>(g.offsets[a]);
    auto last = g.targets.begin() + static_cast<std::ptrdiff_t>(g.offsets[a + 1]);
    auto it = std::lower_bound(first, last, b);
    return it != last && *it == b ? g.bytes[static_cast<std::size_t>(it - g.targets.begin())] : 0;
  };
  for (std::uint32_t r = 0; r < g.ranks; ++r) {
    max_degree = std::max<std::uint32_t>(max_degree, static_cast<std::uint32_t>(g.offsets[r + 1] - g.offsets[r]));
    for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e) {
      const std::uint32_t s = g.targets[e];
      if (s == r) {
        self += g.bytes[e];
        continue;
      }
      const std::uint64_t back = bytes_between(s, r);
      if (back != g.bytes[e]) ++asymmetric;
      if (r < s || back == 0) pairs.push_back({std::min(r, s), std::max(r, s), g.bytes[e] + (r < s ? back : 0)});
    }
  }
  const auto n = std::min<std::size_t>(pairs.size(), static_cast<std::size_t>(top));
  std::partial_sort(pairs.begin(), pairs.begin() + static_cast<std::ptrdiff_t>(n), pairs.end(),
                    [](const Pair& x, const Pair& y) {
                      return x.bytes != y.bytes ? x.bytes > y.bytes : std::tie(x.a, x.b) < std::tie(y.a, y.b);
                    });
  std::cout << "ranks      " << g.ranks << "\nedges      " << g.num_edges() << " directed, max out-degree "
            << max_degree << "\nbytes      " << g.total_bytes() << " in " << g.total_msgs() << " messages (" << self
            << " to self)\nsymmetric  "
            << (asymmetric ? "no (" + std::to_string(asymmetric) + " edges differ from their reverse)"
                           : std::string("yes"))
            << "\ntop pairs  (bytes both ways)\n";
  for (std::size_t i = 0; i < n; ++i)
    std::cout << "  " << pairs[i].a << " <-> " << pairs[i].b << "  " << pairs[i].bytes << "\n";
}

void inspect_profile(const Profile& p, int top) {
  std::vector<std::string> hosts;
  for (const ProfiledRank& r : p.ranks) hosts.push_back(r.host);
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  auto kind = [](const char* name, const Graph& g) {
    std::cout << name << g.total_bytes() << " bytes in " << g.total_msgs() << " messages\n";
  };
  std::cout << "profile    " << p.mpi_library << " (MPI " << p.mpi_version << ")\nhosts      " << hosts.size() << ": "
            << compress_hostlist(hosts) << "\nwall       " << p.wall_seconds << " s (longest rank)\np_mpi      "
            << p.p_mpi << " (share of time inside MPI)\n";
  kind("p2p        ", p.p2p);
  kind("collective ", p.collective);
  kind("one-sided  ", p.rma);
  if (p.incomplete_ranks)
    std::cout << "warning    " << p.incomplete_ranks << " rank(s) ran out of memory for their counts: totals are low\n";
  // Call records (version 2): each algorithm on each communicator slot,
  // with its ranks and the most calls one of them made.
  std::map<std::pair<std::uint32_t, std::string>, std::pair<std::size_t, std::uint64_t>> groups;
  for (const CollectiveCalls& c : p.calls) {
    auto& g = groups[{c.slot, c.algorithm}];
    ++g.first, g.second = std::max(g.second, c.calls);
  }
  std::cout << "calls      "
            << (p.calls.empty()     ? "no records (collectives timed as chains)"
                : !p.calls_complete ? "records incomplete (collectives timed as chains)"
                                    : "by algorithm and communicator slot (timed by rounds)")
            << "\n";
  for (const auto& [key, g] : groups)
    std::cout << "  slot " << key.first << "  " << key.second << "  " << g.first << " ranks, up to " << g.second
              << " calls\n";
  std::cout << "all traffic:\n";
  inspect_graph(p.total(), top);
}

int run_inspect(const InspectOptions& o) {
  const auto ext = std::filesystem::path(o.file).extension();
  if (ext == ".toml")
    inspect_machine(load_machine(o.file));
  else if (ext == ".rmp")
    inspect_profile(read_profile(o.file), o.top);
  else if (ext == ".mtx" || ext == ".graph" || ext == ".grf" || ext == ".csv")
    inspect_graph(read_graph(o.file), o.top);
  else
    throw Error(o.file, 0,
                "unknown format '" + ext.string() +
                    "': inspect reads a machine (.toml), a profile (.rmp) or a graph "
                    "(.mtx, .graph, .grf, .csv)" +
                    (ext == ".xml" ? "; an hwloc XML goes into a machine file as hwloc_xml" : ""));
  return 0;
}

}  // namespace

void add_inspect(Command& app, Action& action) {
  auto o = std::make_shared<InspectOptions>();
  Command cmd = app.subcommand("inspect", "Summarise a machine description (.toml), a profile (.rmp) or a graph");
  cmd.option("file", o->file, "Machine (.toml), profile (.rmp) or graph (.mtx .graph .grf .csv)").required();
  cmd.option("--top", o->top, "How many of the heaviest rank pairs to list")
      .show_default()
      .check(whole_number_from(0, 1'000'000'000, "pairs"));
  cmd.on_chosen([o, &action] { action = [o] { return run_inspect(*o); }; });
}

}  // namespace rankmap::cli
