// rankmap machine new: a machine file without writing TOML by hand. The
// network from the command line, the nodes' tree from an hwloc synthetic
// string, an hwloc XML, or this node read through hwloc (kept as XML
// beside the file, so that OS CPU numbers stay the real ones).
#include <charconv>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "common.hpp"
#include "rankmap/error.hpp"
#include "rankmap/hostlist.hpp"
#include "rankmap/io.hpp"
#include "rankmap/machine.hpp"
#include "standard_output.hpp"

namespace rankmap::cli {
namespace {

struct NewMachineOptions {
  std::string output, name, hosts, dims, fattree, hwloc, hwloc_xml;
  bool mesh = false, as_switch = false, this_node = false, force = false;
  double t_hop_ns = 100, t_inj_ns = 500, t_ej_ns = 500;
  bool t_hop_given = false, t_inj_given = false, t_ej_given = false;  // a default is marked in the file
  std::optional<double> t_local_ns, link_gbps;
};

constexpr const char* kXmlSuffix = ".node.xml";

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

// The flag behind line `line` of the text machine new wrote (an error in
// the file is an error in the flags it was written from): by the key the
// line sets; the [network] table stands for the network's shape.
std::string flag_of_line(const std::string& text, std::size_t line) {
  std::istringstream in(text);
  std::string row;
  for (std::size_t n = 1; n <= line && std::getline(in, row); ++n) {
  }
  if (line == 0 || !in) return "machine new";
  const std::string key = row.substr(0, row.find_first_of(" =["));
  const std::pair<const char*, const char*> flags[] = {{"levels", "--fattree"},
                                                       {"dims", "--dims"},
                                                       {"hosts", "--hosts"},
                                                       {"hwloc", "--hwloc"},
                                                       {"hwloc_xml", "--hwloc-xml"},
                                                       {"link_gbps", "--link-gbps"},
                                                       {"t_hop_ns", "--t-hop-ns"},
                                                       {"t_inj_ns", "--t-inj-ns"},
                                                       {"t_ej_ns", "--t-ej-ns"},
                                                       {"t_local_ns", "--t-local-ns"},
                                                       {"name", "--name"}};
  for (const auto& [k, flag] : flags)
    if (key == k) return flag;
  if (row.rfind("[network]", 0) == 0) return "--dims, --fattree or --hosts";
  return "machine new";
}

// Whether `s` is UTF-8, which is all TOML holds.
bool is_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
    i += n;
  }
  return true;
}

// A TOML basic string: quotes and backslashes escaped, control bytes (a
// newline in a file name) as \u00XX.
std::string toml_string(const std::string& s) {
  if (!is_utf8(s))
    throw Error("machine new", 0, "'" + s + "' is not UTF-8, and a machine file (TOML) holds UTF-8 only");
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      q += '\\', q += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      q += escaped;
    } else {
      q += c;
    }
  }
  return q + "\"";
}

int run_machine_new(const NewMachineOptions& o) {
  const int shapes = !o.dims.empty() + o.as_switch + !o.fattree.empty();
  if (shapes != 1)
    throw Error("machine new", 0, "give the network once: --dims 4x2x2 (torus), --switch or --fattree 16:8,8");
  const int trees = !o.hwloc.empty() + !o.hwloc_xml.empty() + o.this_node;
  if (trees != 1) throw Error("machine new", 0, "give the nodes' tree once: --hwloc, --hwloc-xml or --this-node");
  const std::vector<std::string> hosts = expand_hostlist(o.hosts, "--hosts");
  StandardOutput standard;
  const std::filesystem::path out = std::filesystem::absolute(standard.path_for(o.output, "machine.toml", "output"));
  const bool to_pipe = out != std::filesystem::absolute(o.output);
  if (to_pipe && o.this_node)
    throw Error(ErrorKind::argument, Parameter{"output"},
                "--this-node writes an hwloc XML file beside the machine file; name a file, not standard output");
  // Where paths in the file are relative to: its folder, or for standard
  // output the folder the command runs in.
  const std::filesystem::path folder = to_pipe ? std::filesystem::current_path() : out.parent_path();

  std::ostringstream t;
  t << "# Written by: rankmap machine new. Check the latencies (osu_latency between\n"
       "# neighbours, 1 and more hops apart) and the link rate before trusting\n"
       "# predicted gains: defaults are marked below.\n"
    << "name = " << toml_string(o.name.empty() ? out.stem().string() : o.name) << "\n\n[network]\n";
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
  } else if (o.as_switch) {
    t << "kind = \"switch\"                # every node on one crossbar\n";
  } else {
    t << "kind = \"fattree\"\nlevels = " << fattree_levels(o.fattree) << "   # lowest first\n";
  }
  // One comment a line: what the value is, and whether it is only a default.
  auto time = [&](const char* key, double v, bool given, const char* what) {
    t << key << " = " << v << "   # " << what << (given ? "" : "; a default: measure it") << "\n";
  };
  time("t_hop_ns", o.t_hop_ns, o.t_hop_given, "a hop (router and link)");
  time("t_inj_ns", o.t_inj_ns, o.t_inj_given, "injection, sender's NIC");
  time("t_ej_ns", o.t_ej_ns, o.t_ej_given, "ejection, receiver's NIC");
  if (o.t_local_ns) t << "t_local_ns = " << *o.t_local_ns << "   # a message inside a node\n";
  if (o.link_gbps)
    t << "link_gbps = " << *o.link_gbps << "   # each link, each way\n";
  else
    t << "# Each link's rate, each way: give it for the flow model's bandwidth terms.\n# link_gbps = 100\n";
  // The hostlist as given (h[1-16] stays so), a file's hosts compressed.
  t << "\n[[nodes]]\nhosts = " << toml_string(o.hosts.starts_with('@') ? compress_hostlist(hosts) : o.hosts) << "\n";

  std::vector<FilePart> parts;
  std::string xml_name;
  if (!o.hwloc.empty()) {
    load_node_type(o.hwloc, "--hwloc", 0);  // refuses a bad string before anything is written
    t << "hwloc = " << toml_string(o.hwloc) << "\n";
  } else if (!o.hwloc_xml.empty()) {
    const std::filesystem::path xml = std::filesystem::absolute(o.hwloc_xml);
    note_input(xml);
    load_node_type("xml:" + xml.string(), o.hwloc_xml, 0);
    t << "hwloc_xml = " << toml_string(std::filesystem::relative(xml, folder).string())
      << "   # relative to this file\n";
  } else {
    xml_name = out.filename().string() + kXmlSuffix;
    parts.push_back({kXmlSuffix, this_node_xml()});
    t << "hwloc_xml = " << toml_string(xml_name) << "   # this node, read by hwloc (rankmap machine new --this-node)\n";
  }
  const std::string text = t.str();
  parts.insert(parts.begin(), {"", text});
  check_outputs({out, xml_name.empty() ? std::filesystem::path() : out.parent_path() / xml_name});
  // A machine file is written by hand as often as by this command: it is
  // replaced only when asked to (after the check that it is no input).
  std::error_code exists_error;
  if (!to_pipe && !o.force && std::filesystem::exists(std::filesystem::symlink_status(out, exists_error)))
    throw Error(o.output, 0, "exists; rankmap machine new replaces it only with --force", ErrorKind::io);
  // The file must read back (once: 10^7 hosts take seconds); the XML
  // companion under its temporary name. What the reader refuses, the flags
  // asked for: its error names the flag, not the hidden temporary file.
  Machine m;
  write_files_atomically(out, parts, [&](const std::filesystem::path& temp) {
    std::string probe = text;
    if (!xml_name.empty()) {
      const std::string temp_xml = temp.filename().string() + kXmlSuffix;
      probe.replace(probe.find(toml_string(xml_name)), toml_string(xml_name).size(), toml_string(temp_xml));
    }
    try {
      m = parse_machine(probe, temp.string());
    } catch (const Error& e) {
      throw Error(flag_of_line(probe, e.line()), 0, e.message(), e.kind());
    }
  });
  standard.flush();
  standard.lines() << "wrote " << printable(to_pipe ? std::string("standard output") : o.output)
                   << (xml_name.empty() ? "" : " and " + printable(xml_name)) << ": " << m.network.kind_name() << ", "
                   << m.nodes.size() << " nodes of " << m.node_types[0].cores << " cores\n";
  return 0;
}

}  // namespace

void add_machine(Command& app, Action& action) {
  Command machine = app.subcommand("machine", "Machine descriptions");
  machine.require_subcommand();
  auto o = std::make_shared<NewMachineOptions>();
  Command cmd = machine.subcommand("new", "Write a machine file (.toml) that 'rankmap inspect' reads back");
  cmd.option("--output,-o", o->output, "Machine file to write (.toml)").required();
  cmd.option("--hosts", o->hosts, "The nodes, Slurm hostlist syntax: 'node[00-31]'").required();
  cmd.option("--dims", o->dims, "A torus of these sizes, X fastest: 4x2x2x2");
  cmd.flag("--mesh", o->mesh, "With --dims: no wrap-around (a mesh)");
  cmd.flag("--switch", o->as_switch, "Every node on one switch");
  cmd.option("--fattree", o->fattree, "A fat tree: FANOUT[:UPLINKS] per level, lowest first: 16:8,8");
  cmd.option("--hwloc", o->hwloc, "The nodes' tree as an hwloc synthetic string: 'package:2 core:8 pu:2'");
  cmd.option("--hwloc-xml", o->hwloc_xml, "The nodes' tree from an hwloc XML (lstopo node.xml)");
  cmd.flag("--force", o->force, "Replace the output when it exists");
  cmd.flag("--this-node", o->this_node, "The nodes are like this one: read it through hwloc (kept as XML)");
  cmd.option("--name", o->name, "The machine's name (default: the file's)");
  // The ranges a machine file takes (machine.hpp, docs/formats.md).
  const Check latency = number_from(0, kMaxLatencyNs, "ns");
  Option hop = cmd.option("--t-hop-ns", o->t_hop_ns, "Per hop").show_default().check(latency);
  Option inj = cmd.option("--t-inj-ns", o->t_inj_ns, "Injection").show_default().check(latency);
  Option ej = cmd.option("--t-ej-ns", o->t_ej_ns, "Ejection").show_default().check(latency);
  cmd.option("--t-local-ns", o->t_local_ns, "A message inside a node").check(latency);
  cmd.option("--link-gbps", o->link_gbps, "Each link's rate, each way")
      .check(number_from(kMinGbps, kMaxGbps, "Gbit/s"));
  cmd.footer(
      "Example: rankmap machine new -o desmos.toml --dims 4x2x2x2 --hosts 'node[00-31]' --hwloc 'package:1 core:6 "
      "pu:2'");
  cmd.on_chosen([o, hop, inj, ej, &action] {
    o->t_hop_given = hop.given(), o->t_inj_given = inj.given(), o->t_ej_given = ej.given();
    action = [o] { return run_machine_new(*o); };
  });
}

}  // namespace rankmap::cli
