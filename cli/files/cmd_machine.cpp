// rankmap machine new: a machine file without writing TOML by hand. The
// network from the command line, the nodes' tree from an hwloc synthetic
// string, an hwloc XML, or this node read through hwloc (kept as XML
// beside the file, so that OS CPU numbers stay the real ones).
#include <charconv>
#include <sstream>

#include "commands.hpp"
#include "common.hpp"
#include "files/machine_file.hpp"
#include "rankmap/error.hpp"
#include "rankmap/hostlist.hpp"
#include "rankmap/machine.hpp"

namespace rankmap::cli {
namespace {

struct NewMachineOptions : MachineFileOptions {
  std::string hosts, dims, fattree, dragonfly, dragonfly_plus;
  bool mesh = false, as_switch = false, simgrid_wiring = false;
};

std::string join(const std::vector<int>& v, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

// "16:8,8" -> levels, lowest first: fan-out, then uplinks where given.
std::string fattree_levels(const std::string& text) {
  auto fail = [&] {
    throw Error("--fattree", 0,
                "expected FANOUT[:UPLINKS] per level, lowest first, each a whole number from 1 to 1000000, e.g. "
                "16:8,8; got '" +
                    text + "'");
  };
  auto number = [&](const std::string& field) {
    int v = 0;
    auto [p, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (ec != std::errc() || p != field.data() + field.size() || v < 1 || v > 1'000'000) fail();
    return v;
  };
  std::string out;
  std::stringstream in(text);
  std::string level;
  while (std::getline(in, level, ',')) {
    const auto colon = level.find(':');
    out += std::string(out.empty() ? "" : ", ") + "{fanout = " + std::to_string(number(level.substr(0, colon)));
    if (colon != std::string::npos) out += ", uplinks = " + std::to_string(number(level.substr(colon + 1)));
    out += "}";
  }
  if (out.empty() || text.back() == ',') fail();
  return "[" + out + "]";
}

// "74,4;1,1;32,1;4" (SimGrid's topo_parameters: groups,cables;
// chassis,cables;routers,cables;nodes) or, for a Dragonfly+,
// "27,16;15,16;16" (groups,cables;leaves,spines;nodes a leaf): the
// [network] lines and the node count.
std::pair<std::string, std::size_t> dragonfly_network(const std::string& text, bool plus) {
  const char* flag = plus ? "--dragonfly-plus" : "--dragonfly";
  const char* example = plus ? "27,16;15,16;16 (groups,cables;leaves,spines;nodes a leaf)"
                             : "74,4;1,1;32,1;4 (groups,cables;chassis,cables;routers,cables;nodes a router)";
  std::vector<std::vector<int>> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ';')) {
    parts.emplace_back();
    std::stringstream fields(part);
    std::string field;
    while (std::getline(fields, field, ',')) {
      int v = 0;
      auto [p, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
      if (ec != std::errc() || p != field.data() + field.size() || v < 1 || v > 65536)
        throw Error(flag, 0,
                    "expected whole numbers from 1 to 65536, e.g. " + std::string(example) + "; got '" + text + "'");
      parts.back().push_back(v);
    }
  }
  const std::vector<std::size_t> shape =
      plus ? std::vector<std::size_t>{2, 2, 1} : std::vector<std::size_t>{2, 2, 2, 1};
  bool ok = parts.size() == shape.size();
  for (std::size_t i = 0; ok && i < shape.size(); ++i) ok = parts[i].size() == shape[i];
  if (!ok) throw Error(flag, 0, "expected " + std::string(example) + "; got '" + text + "'");
  // Each factor is at most 2^16: the product of four is checked against
  // the machine file's 2^24 nodes before it could overflow.
  std::size_t nodes = 1;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) nodes *= static_cast<std::size_t>(parts[i][0]);
  if (nodes > (std::size_t{1} << 24) / static_cast<std::size_t>(parts.back()[0]))
    throw Error(flag, 0, "'" + text + "' makes more than 16777216 nodes");
  nodes *= static_cast<std::size_t>(parts.back()[0]);
  std::ostringstream t;
  if (plus) {
    t << "kind = \"dragonfly+\"\ngroups = " << parts[0][0] << "\nglobal_links = " << parts[0][1]
      << "            # cables between two groups\nleaves = " << parts[1][0] << "\nspines = " << parts[1][1]
      << "\nnodes_per_leaf = " << parts[2][0] << "\n";
  } else {
    t << "kind = \"dragonfly\"\ngroups = " << parts[0][0] << "\nglobal_links = " << parts[0][1]
      << "            # cables between two groups\nchassis = " << parts[1][0] << "\nchassis_links = " << parts[1][1]
      << "\nrouters = " << parts[2][0] << "            # a chassis\nrouter_links = " << parts[2][1]
      << "\nnodes_per_router = " << parts[3][0] << "\n";
  }
  return {t.str(), nodes};
}

int run_machine_new(const NewMachineOptions& o) {
  const int shapes =
      !o.dims.empty() + o.as_switch + !o.fattree.empty() + !o.dragonfly.empty() + !o.dragonfly_plus.empty();
  if (shapes != 1)
    throw Error("machine new", 0,
                "give the network once: --dims 4x2x2 (torus), --switch, --fattree 16:8,8, --dragonfly or "
                "--dragonfly-plus");
  if (o.simgrid_wiring && o.dragonfly.empty()) throw Error("--simgrid-wiring", 0, "is for --dragonfly");
  const int trees = !o.hwloc.empty() + !o.hwloc_xml.empty() + o.this_node;
  if (trees != 1) throw Error("machine new", 0, "give the nodes' tree once: --hwloc, --hwloc-xml or --this-node");
  const std::vector<std::string> hosts = expand_hostlist(o.hosts, "--hosts");
  MachineText text;
  text.command = "machine new";
  text.written_by =
      "# Written by: rankmap machine new. Check the latencies (osu_latency between\n"
      "# neighbours, 1 and more hops apart) and the link rate before trusting\n"
      "# predicted gains: defaults are marked below.\n";
  std::ostringstream t;
  if (!o.dims.empty()) {
    const std::vector<int> dims = parse_dims(o.dims, "--dims");
    std::size_t nodes = 1;
    for (int d : dims) nodes *= static_cast<std::size_t>(d);
    if (nodes != hosts.size())
      throw Error("--hosts", 0,
                  "lists " + std::to_string(hosts.size()) + " hosts, but --dims " + o.dims + " has " +
                      std::to_string(nodes) + " nodes");
    t << "kind = \"" << (o.mesh ? "mesh" : "torus") << "\"\n"
      << "dims = [" << join(dims, ", ") << "]            # X Y Z ...; hosts fill coordinates, X fastest\n";
  } else if (!o.dragonfly.empty() || !o.dragonfly_plus.empty()) {
    const bool plus = o.dragonfly.empty();
    const auto [network, nodes] = dragonfly_network(plus ? o.dragonfly_plus : o.dragonfly, plus);
    if (nodes != hosts.size())
      throw Error("--hosts", 0,
                  "lists " + std::to_string(hosts.size()) + " hosts, but the " + (plus ? "dragonfly+" : "dragonfly") +
                      " has " + std::to_string(nodes) + " nodes");
    t << network;
    if (o.simgrid_wiring)
      t << "wiring = \"simgrid\"             # SimGrid's DragonflyZone: group h's link on router h of chassis 0\n";
  } else if (o.as_switch) {
    t << "kind = \"switch\"                # every node on one crossbar\n";
  } else {
    t << "kind = \"fattree\"\nlevels = " << fattree_levels(o.fattree) << "   # lowest first\n";
  }
  text.network = t.str();
  // The hostlist as given (h[1-16] stays so), a file's hosts compressed.
  text.hosts = o.hosts.starts_with('@') ? compress_hostlist(hosts) : o.hosts;
  text.flag_of_key = [](const std::string& key) -> std::string {
    if (key == "levels") return "--fattree";
    if (key == "dims") return "--dims";
    if (key == "[network]") return "--dims, --fattree, --dragonfly, --dragonfly-plus or --hosts";
    if (key == "groups" || key == "routers" || key == "chassis") return "--dragonfly";
    if (key == "leaves" || key == "spines") return "--dragonfly-plus";
    if (key == "wiring") return "--simgrid-wiring";
    return "";
  };
  return write_machine_file(o, text);
}

}  // namespace

void add_machine(Command& app, Action& action) {
  Command machine = app.subcommand("machine", "Machine descriptions");
  machine.require_subcommand();
  auto o = std::make_shared<NewMachineOptions>();
  Command cmd = machine.subcommand("new", "Write a machine file (.toml) that 'rankmap inspect' reads back");
  cmd.option("--hosts", o->hosts, "The nodes, Slurm hostlist syntax: 'node[00-31]'").required();
  cmd.option("--dims", o->dims, "A torus of these sizes, X fastest: 4x2x2x2");
  cmd.flag("--mesh", o->mesh, "With --dims: no wrap-around (a mesh)");
  cmd.flag("--switch", o->as_switch, "Every node on one switch");
  cmd.option("--fattree", o->fattree, "A fat tree: FANOUT[:UPLINKS] per level, lowest first: 16:8,8");
  cmd.option("--dragonfly", o->dragonfly,
             "A dragonfly in SimGrid's terms, groups,cables;chassis,cables;routers,cables;nodes: 74,4;1,1;32,1;4 "
             "(hosts fill routers, then chassis, then groups)");
  cmd.option("--dragonfly-plus", o->dragonfly_plus,
             "A Dragonfly+: groups,cables;leaves,spines;nodes a leaf: 27,16;15,16;16");
  cmd.flag("--simgrid-wiring", o->simgrid_wiring,
           "With --dragonfly: SimGrid's wiring and route (to compare with its DragonflyZone)");
  auto given = add_machine_file_options(cmd, *o);
  cmd.footer(
      "Example: rankmap machine new -o desmos.toml --dims 4x2x2x2 --hosts 'node[00-31]' --hwloc 'package:1 core:6 "
      "pu:2'\nA tree a site already describes (Slurm's topology.conf, ...): rankmap machine import");
  cmd.on_chosen([o, given, &action] {
    given();
    action = [o] { return run_machine_new(*o); };
  });
  add_machine_import(machine, action);
}

}  // namespace rankmap::cli
