// Slurm's descriptions of a tree network (site_import.hpp): topology.conf,
// `scontrol show topology` and the SLURM_TOPOLOGY_ADDR of each node.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>

#include "core/text_scanner.hpp"
#include "rankmap/error.hpp"
#include "rankmap/hostlist.hpp"
#include "rankmap/site_import.hpp"

namespace rankmap {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// One record: its Key=Value pairs by lower-case key, in order, and the
// line it began on (a `\` at a line's end continues it on the next).
struct Record {
  std::size_t line = 0;
  std::vector<std::pair<std::string, std::string>> fields;
  const std::string* get(const std::string& key) const {
    for (const auto& [k, v] : fields)
      if (k == key) return &v;
    return nullptr;
  }
};

std::vector<Record> records(std::string_view text, const std::string& source) {
  std::vector<Record> out;
  detail::LineScanner lines(text, source);
  std::string_view raw;
  std::string pending;
  std::size_t first_line = 0;
  while (lines.next(raw)) {
    std::string_view line = raw.substr(0, raw.find('#'));
    line = trim(line);
    if (pending.empty()) first_line = lines.line();
    const bool continued = !line.empty() && line.back() == '\\';
    if (continued) line.remove_suffix(1);
    pending += std::string(line) + " ";
    if (continued) continue;
    Record r;
    r.line = first_line;
    std::string_view rest = pending;
    while (!(rest = trim(rest)).empty()) {
      const std::size_t end = std::min(rest.size(), rest.find_first_of(" \t"));
      const std::string_view token = rest.substr(0, end);
      rest.remove_prefix(end);
      const std::size_t eq = token.find('=');
      if (eq == std::string_view::npos || eq == 0 || eq + 1 == token.size())
        throw Error(source, r.line, "expected Key=Value, got '" + std::string(token) + "'");
      r.fields.emplace_back(lower(token.substr(0, eq)), std::string(token.substr(eq + 1)));
    }
    pending.clear();
    if (!r.fields.empty()) out.push_back(std::move(r));
  }
  if (!pending.empty() && !trim(pending).empty())
    throw Error(source, first_line, "the last line ends with '\\' and nothing continues it");
  return out;
}

// A LinkSpeed value in Gbit/s, or 0 when it is not to be used.
double link_speed(const Record& r, const std::string& source, double gbps_a_unit) {
  const std::string* v = r.get("linkspeed");
  if (!v || gbps_a_unit <= 0) return 0;
  double speed = 0;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), speed);
  if (ec != std::errc() || end != v->data() + v->size() || !(speed > 0))
    throw Error(source, r.line, "LinkSpeed must be a positive number, not '" + *v + "'");
  const double gbps = speed * gbps_a_unit;
  if (gbps < kMinGbps || gbps > kMaxGbps)
    throw Error(source, r.line, "LinkSpeed " + *v + " makes " + std::to_string(gbps) + " Gbit/s, outside 0.001 to 1e6");
  return gbps;
}

SiteTree read_switch_records(std::string_view text, const std::string& source, double gbps_a_unit, bool scontrol) {
  SiteTree tree;
  tree.source = source;
  for (const Record& r : records(text, source)) {
    if (r.fields.front().first == "blockname" || r.fields.front().first == "blocksizes")
      throw Error(source, r.line,
                  "a topology/block line (Slurm 23.11+); this reader takes topology/tree's SwitchName lines");
    if (r.fields.front().first != "switchname")
      throw Error(source, r.line, "expected a line starting SwitchName=, got '" + r.fields.front().first + "='");
    SiteSwitch s;
    s.line = r.line;
    s.name = r.fields.front().second;
    for (const auto& [key, value] : r.fields) {
      if (key == "switchname" && &value != &r.fields.front().second)
        throw Error(source, r.line, "SwitchName appears twice on the line");
      if (key == "switches") {
        if (!s.switches.empty()) throw Error(source, r.line, "Switches= appears twice on the line");
        s.switches = expand_hostlist(value, source, r.line);
      } else if (key == "nodes") {
        if (!s.nodes.empty()) throw Error(source, r.line, "Nodes= appears twice on the line");
        s.nodes = expand_hostlist(value, source, r.line);
      } else if (key != "switchname" && key != "linkspeed" && !(scontrol && key == "level")) {
        throw Error(
            source, r.line,
            "unknown key '" + key + "'; expected SwitchName, Switches, Nodes, LinkSpeed" + (scontrol ? ", Level" : ""));
      }
    }
    // scontrol lists every node below a switch of switches: the leaves say where each is.
    if (scontrol && !s.switches.empty()) s.nodes.clear();
    if (s.switches.empty() && s.nodes.empty())
      throw Error(source, r.line, "switch '" + s.name + "' has neither Switches= nor Nodes=");
    s.gbps = link_speed(r, source, gbps_a_unit);
    tree.switches.push_back(std::move(s));
  }
  if (tree.switches.empty()) throw Error(source, 0, "no SwitchName line");
  return tree;
}

}  // namespace

SiteTree read_slurm_topology_conf(std::string_view text, const std::string& source, double link_speed_gbps) {
  return read_switch_records(text, source, link_speed_gbps, false);
}

SiteTree read_scontrol_topology(std::string_view text, const std::string& source, double link_speed_gbps) {
  return read_switch_records(text, source, link_speed_gbps, true);
}

SiteTree read_slurm_topology_addr(std::string_view text, const std::string& source, const std::string& pattern) {
  std::vector<std::string> kinds;  // of each part, top first: "switch" or "node"
  if (!pattern.empty()) {
    std::string_view p = pattern;
    while (true) {
      const std::size_t dot = p.find('.');
      kinds.emplace_back(p.substr(0, dot));
      if (kinds.back() != "switch" && kinds.back() != "node")
        throw Error(source, 0,
                    "SLURM_TOPOLOGY_ADDR_PATTERN '" + pattern + "': expected parts 'switch' and a last 'node'");
      if (dot == std::string_view::npos) break;
      p.remove_prefix(dot + 1);
    }
    if (kinds.back() != "node" || std::count(kinds.begin(), kinds.end(), "node") != 1 || kinds.size() < 2)
      throw Error(source, 0, "SLURM_TOPOLOGY_ADDR_PATTERN '" + pattern + "': expected switches and then one node");
  }
  SiteTree tree;
  tree.source = source;
  std::map<std::string, std::size_t> index_of;                           // switch -> index in tree.switches
  std::map<std::string, std::pair<std::string, std::size_t>> parent_of;  // switch or node -> (parent, line)
  detail::LineScanner lines(text, source);
  std::string_view raw;
  while (lines.next(raw)) {
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    // "12: s3.s0.dev5" from srun -l: the task number goes.
    if (const std::size_t colon = line.find(':'); colon != std::string_view::npos) {
      const std::string_view task = trim(line.substr(0, colon));
      if (task.empty() ||
          !std::all_of(task.begin(), task.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        throw Error(source, lines.line(), "expected 'N: ADDR' or 'ADDR', got '" + std::string(line) + "'");
      line = trim(line.substr(colon + 1));
    }
    std::vector<std::string> parts;
    for (std::string_view p = line;;) {
      const std::size_t dot = p.find('.');
      parts.emplace_back(p.substr(0, dot));
      if (parts.back().empty()) throw Error(source, lines.line(), "an empty part in '" + std::string(line) + "'");
      if (dot == std::string_view::npos) break;
      p.remove_prefix(dot + 1);
    }
    if (parts.size() < 2)
      throw Error(source, lines.line(), "'" + std::string(line) + "' names no switch (expected switch.switch.node)");
    if (!kinds.empty() && parts.size() != kinds.size())
      throw Error(source, lines.line(),
                  "'" + std::string(line) + "' has " + std::to_string(parts.size()) + " parts; the pattern has " +
                      std::to_string(kinds.size()));
    for (std::size_t i = 0; i + 1 < parts.size(); ++i)
      if (index_of.try_emplace(parts[i], tree.switches.size()).second) {
        tree.switches.push_back({parts[i], {}, {}, 1, 0, lines.line()});
      }
    for (std::size_t i = 1; i < parts.size(); ++i) {
      auto [it, fresh] = parent_of.try_emplace(parts[i], parts[i - 1], lines.line());
      if (!fresh && it->second.first != parts[i - 1])
        throw Error(source, lines.line(),
                    "'" + parts[i] + "' is under '" + parts[i - 1] + "' here and under '" + it->second.first +
                        "' on line " + std::to_string(it->second.second));
      if (!fresh) continue;  // a node seen before (several tasks a node)
      SiteSwitch& parent = tree.switches[index_of[parts[i - 1]]];
      (i + 1 == parts.size() ? parent.nodes : parent.switches).push_back(parts[i]);
    }
  }
  if (tree.switches.empty()) throw Error(source, 0, "no SLURM_TOPOLOGY_ADDR line");
  return tree;
}

}  // namespace rankmap
