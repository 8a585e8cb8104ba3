// rankmap machine import FORMAT FILE: a machine file from what the site
// already has (site_import.hpp): Slurm's topology.conf, `scontrol show
// topology`, the SLURM_TOPOLOGY_ADDR of each node, ibnetdiscover's cabling. The switches are
// written as [[switches]] of a kind = "tree" network; what the site's file
// does not say (link rates, latencies) comes from flags and is marked.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <unordered_set>

#include "commands.hpp"
#include "common.hpp"
#include "files/machine_file.hpp"
#include "rankmap/error.hpp"
#include "rankmap/hostlist.hpp"
#include "rankmap/io.hpp"
#include "rankmap/site_import.hpp"

namespace rankmap::cli {
namespace {

struct ImportOptions : MachineFileOptions {
  std::string format, file, level_gbps, pattern, topology;
  double linkspeed_gbps = 0;
};

// The formats, each with what it reads (for --help and errors).
const std::vector<std::pair<std::string, std::string>> kFormats = {
    {"slurm",
     "Slurm's topology.conf: topology/tree (SwitchName=, Switches=, Nodes=, LinkSpeed=) or topology/block "
     "(BlockName=, Nodes=, BlockSizes=)"},
    {"slurm-yaml",
     "Slurm's topology.yaml (25.05+): one tree or block topology, --topology NAME or the cluster default"},
    {"scontrol", "the output of 'scontrol show topology'"},
    {"ibnetdiscover",
     "InfiniBand's cabling: ibnetdiscover's output (its default text; --node-name-map names the hosts)"},
    {"slurm-addr",
     "SLURM_TOPOLOGY_ADDR of each node, one a line ('srun -l --ntasks-per-node=1 printenv "
     "SLURM_TOPOLOGY_ADDR')"},
};

// "100,200": Gbit/s per level, lowest first.
std::vector<double> parse_level_gbps(const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  std::string field;
  while (std::getline(in, field, ',')) {
    double v = 0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (ec != std::errc() || end != field.data() + field.size() || v < kMinGbps || v > kMaxGbps)
      throw Error("--level-gbps", 0,
                  "expected a rate in Gbit/s (0.001 to 1e6) per level, lowest first, e.g. 100,200; got '" + text + "'");
    out.push_back(v);
  }
  if (out.empty() || text.back() == ',') throw Error("--level-gbps", 0, "expected rates such as 100,200");
  return out;
}

// The name a message gives the site's file.
std::string source_of(const ImportOptions& o) { return o.file == "-" ? "standard input" : o.file; }

// The same in a TOML comment, which ends at a newline: control bytes as '?'.
std::string in_comment(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return text;
}

SiteTree read_site(const ImportOptions& o) {
  const std::string source = source_of(o);
  // "-": standard input (srun ... printenv SLURM_TOPOLOGY_ADDR | rankmap
  // machine import slurm-addr -), at most kMaxStandardInput bytes.
  std::string text;
  if (o.file == "-") {
    constexpr std::size_t kMaxStandardInput = std::size_t{256} << 20;
    char buffer[65536];
    while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
      text.append(buffer, static_cast<std::size_t>(std::cin.gcount()));
      if (text.size() > kMaxStandardInput) throw Error("standard input", 0, "more than 256 MiB; write it to a file");
    }
  } else {
    note_input(o.file);
    text = read_text_file(o.file);
  }
  if (o.format == "slurm") return read_slurm_topology_conf(text, source, o.linkspeed_gbps);
  if (o.format == "slurm-yaml") return read_slurm_topology_yaml(text, source, o.topology);
  if (o.format == "ibnetdiscover") return read_ibnetdiscover(text, source);
  if (o.format == "scontrol") return read_scontrol_topology(text, source, o.linkspeed_gbps);
  // Inside a job, Slurm's own pattern unless one is given.
  std::string pattern = o.pattern;
  if (const char* env = std::getenv("SLURM_TOPOLOGY_ADDR_PATTERN"); pattern.empty() && env) pattern = env;
  return read_slurm_topology_addr(text, source, pattern);
}

std::string number(double v) {
  std::ostringstream t;
  t << v;
  return t.str();
}

// The machine file lists names as hostlists: a name that hostlist syntax
// would split or change cannot be written (the site's file, its line).
void check_names(const SiteTree& tree) {
  auto check = [&](const std::string& name, std::size_t line) {
    for (char c : name)
      if (c == ',' || c == '[' || c == ']' || std::isspace(static_cast<unsigned char>(c)) ||
          static_cast<unsigned char>(c) < 0x20)
        throw Error(tree.source, line,
                    "the name '" + name + "' holds a character a hostlist cannot (',', '[', ']' or a space)");
  };
  for (const SiteSwitch& s : tree.switches) {
    check(s.name, s.line);
    for (const std::string& n : s.nodes) check(n, s.line);
    for (const std::string& n : s.switches) check(n, s.line);
  }
  for (const SiteCable& c : tree.cables) check(c.upper, c.line), check(c.lower, c.line);
}

int run_machine_import(const ImportOptions& o) {
  const SiteTree tree = read_site(o);
  check_names(tree);
  const std::vector<double> level_gbps = o.level_gbps.empty() ? std::vector<double>{} : parse_level_gbps(o.level_gbps);
  // Built here first, so that a loop or a node under two switches is
  // named by the site's file and line, not the file being written.
  const SiteNetwork built = build_site_tree(tree, level_gbps);
  const std::size_t levels = built.network.levels.size();
  if (level_gbps.size() > levels)
    throw Error("--level-gbps", 0,
                "gives " + std::to_string(level_gbps.size()) + " rates; " + source_of(o) + " makes " +
                    std::to_string(levels) + " levels");

  const std::string named = in_comment(source_of(o));
  MachineText text;
  text.command = "machine import";
  text.written_by = "# Written by: rankmap machine import " + o.format + " " + named +
                    ".\n# The switches are the site's; the rates and latencies are not in that file:\n"
                    "# each is marked below as given by a flag or a default. Measure them\n"
                    "# (osu_latency and osu_bw between nodes 1 and more levels apart).\n";
  std::ostringstream net;
  net << "kind = \"tree\"   # " << tree.switches.size() << " switches on " << levels << " level"
      << (levels == 1 ? "" : "s") << ", as " << named << " describes them ([[switches]])\n";
  if (!level_gbps.empty()) {
    net << "levels = [";
    for (std::size_t l = 0; l < level_gbps.size(); ++l) net << (l ? ", " : "") << "{gbps = " << level_gbps[l] << "}";
    net << "]   # each cable into a level's switches, lowest first: --level-gbps, assumed\n";
  }
  text.network = net.str();
  std::ostringstream sw;
  for (const SiteSwitch& s : tree.switches) {
    sw << "\n[[switches]]   # " << named << " line " << s.line << "\nname = " << toml_string(s.name) << "\n";
    if (!s.nodes.empty()) sw << "nodes = " << toml_string(compress_hostlist(s.nodes)) << "\n";
    if (!s.switches.empty()) sw << "switches = " << toml_string(compress_hostlist(s.switches)) << "\n";
    if (s.links != 1) sw << "links = " << s.links << "\n";
    if (s.gbps > 0)
      sw << "gbps = " << number(s.gbps) << "   # LinkSpeed x --linkspeed-gbps " << number(o.linkspeed_gbps)
         << ": assumed\n";
  }
  for (const SiteCable& c : tree.cables)
    sw << "\n[[cables]]   # " << named << " line " << c.line << "\nupper = " << toml_string(c.upper)
       << "\nlower = " << toml_string(c.lower) << "\n"
       << (c.links != 1 ? "links = " + std::to_string(c.links) + "\n" : "")
       << (c.gbps > 0 ? "gbps = " + number(c.gbps) + "\n" : "");
  text.after = sw.str();
  text.hosts = compress_hostlist(built.hosts);
  text.flag_of_key = [](const std::string& key) -> std::string {
    if (key == "levels") return "--level-gbps";
    return "";
  };
  // The flow model needs link_gbps: the nodes' own cables' rate, the
  // most common where the file gives them (ibnetdiscover).
  ImportOptions written = o;
  const std::unordered_set<std::string> hosts(built.hosts.begin(), built.hosts.end());
  std::map<double, std::size_t> host_rates;
  for (const SiteCable& c : tree.cables)
    if (c.gbps > 0 && hosts.count(c.lower)) ++host_rates[c.gbps];
  if (!written.link_gbps && !host_rates.empty()) {
    written.link_gbps = std::max_element(host_rates.begin(), host_rates.end(), [](const auto& a, const auto& b) {
                          return a.second < b.second;
                        })->first;
    text.link_gbps_comment = "the hosts' cables' most common rate in " + named + "; a cable's own rate comes first";
  } else if (!written.link_gbps && !level_gbps.empty()) {
    written.link_gbps = level_gbps[0];
    text.link_gbps_comment = "the lowest level's rate (--level-gbps), assumed";
  }
  return write_machine_file(written, text);
}

}  // namespace

void add_machine_import(Command& machine, Action& action) {
  auto o = std::make_shared<ImportOptions>();
  Command cmd = machine.subcommand("import", "Write a machine file from the site's own description of its network");
  std::vector<std::string> names;
  std::string list;
  for (const auto& [name, what] : kFormats) names.push_back(name), list += "\n  " + name + ": " + what;
  cmd.option("format", o->format, "What FILE is:" + list).required().check(one_of(names));
  cmd.option("file", o->file, "The site's file ('-': standard input)").required();
  cmd.option("--level-gbps", o->level_gbps,
             "Each level's cable rate in Gbit/s, lowest first (Slurm gives none): 100,200");
  cmd.option("--linkspeed-gbps", o->linkspeed_gbps,
             "Gbit/s per unit of Slurm's LinkSpeed= (Slurm gives it no unit; default: LinkSpeed unused)")
      .check(number_from(kMinGbps, kMaxGbps, "Gbit/s"));
  cmd.option("--pattern", o->pattern,
             "slurm-addr: SLURM_TOPOLOGY_ADDR_PATTERN, e.g. switch.switch.node (default: the variable, else every "
             "part but the last a switch)");
  cmd.option("--topology", o->topology, "slurm-yaml: the topology's name (default: the cluster_default one)");
  auto given = add_machine_file_options(cmd, *o);
  cmd.footer(
      "Example: rankmap machine import slurm /etc/slurm/topology.conf --level-gbps 100,200 --hwloc 'package:2 "
      "core:32' -o cluster.toml\n(inside a job: scontrol show topology > topo.txt; rankmap machine import scontrol "
      "topo.txt ...)");
  cmd.on_chosen([o, given, &action] {
    given();
    action = [o] { return run_machine_import(*o); };
  });
}

}  // namespace rankmap::cli
