// Slurm's descriptions of a tree network (site_import.hpp): topology.conf,
// `scontrol show topology` and the SLURM_TOPOLOGY_ADDR of each node.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <set>

#include "core/text_scanner.hpp"
#include "machine/import/name_budget.hpp"
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

using detail::trim_space;

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
    line = trim_space(line);
    if (pending.empty()) first_line = lines.line();
    const bool continued = !line.empty() && line.back() == '\\';
    if (continued) line.remove_suffix(1);
    pending += std::string(line) + " ";
    if (continued) continue;
    Record r;
    r.line = first_line;
    detail::Fields tokens(pending);
    for (std::string_view token; tokens.next(token);) {
      const std::size_t eq = token.find('=');
      if (eq == std::string_view::npos || eq == 0 || eq + 1 == token.size())
        throw Error(source, r.line, "expected Key=Value, got '" + std::string(token) + "'");
      r.fields.emplace_back(lower(token.substr(0, eq)), std::string(token.substr(eq + 1)));
    }
    pending.clear();
    if (!r.fields.empty()) out.push_back(std::move(r));
  }
  if (!pending.empty() && !trim_space(pending).empty())
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

// topology/block's lines (topology.conf(5), Slurm 23.11+): BlockName= with
// Nodes=, and BlockSizes=.
SiteTree read_block_records(const std::vector<Record>& lines, const std::string& source) {
  detail::NameBudget budget;
  std::vector<SlurmBlock> blocks;
  std::vector<std::size_t> sizes;
  std::size_t sizes_line = 0;
  for (const Record& r : lines) {
    const std::string& first = r.fields.front().first;
    if (first == "blocksizes") {
      if (sizes_line)
        throw Error(source, r.line, "BlockSizes appears twice (first on line " + std::to_string(sizes_line) + ")");
      if (r.fields.size() > 1) throw Error(source, r.line, "BlockSizes= stands alone on its line");
      sizes_line = r.line;
      std::string_view list = r.fields.front().second;
      while (!list.empty()) {
        const std::string_view item = list.substr(0, list.find(','));
        std::size_t v = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (ec != std::errc() || end != item.data() + item.size() || v == 0 || v > kMaxHostlistHosts)
          throw Error(source, r.line,
                      "BlockSizes must list node counts such as 30,120, not '" + std::string(item) + "'");
        sizes.push_back(v);
        list.remove_prefix(std::min(list.size(), item.size() + 1));
      }
      continue;
    }
    if (first == "switchname")
      throw Error(source, r.line, "a topology/tree line among topology/block's BlockName lines");
    if (first != "blockname")
      throw Error(source, r.line, "expected a line starting BlockName= or BlockSizes=, got '" + first + "='");
    SlurmBlock b;
    b.name = r.fields.front().second;
    b.line = r.line;
    for (std::size_t i = 1; i < r.fields.size(); ++i) {
      if (r.fields[i].first != "nodes")
        throw Error(source, r.line, "unknown key '" + r.fields[i].first + "'; expected BlockName, Nodes");
      if (!b.nodes.empty()) throw Error(source, r.line, "Nodes= appears twice on the line");
      b.nodes = budget.expand(r.fields[i].second, source, r.line);
    }
    if (b.nodes.empty()) throw Error(source, r.line, "block '" + b.name + "' has no Nodes=");
    blocks.push_back(std::move(b));
  }
  return slurm_blocks_tree(blocks, sizes, sizes_line, source);
}

SiteTree read_switch_records(std::string_view text, const std::string& source, double gbps_a_unit, bool scontrol) {
  detail::NameBudget budget;
  SiteTree tree;
  tree.source = source;
  const std::vector<Record> lines = records(text, source);
  // topology.conf holds topology/block's lines instead where a site uses it.
  if (!scontrol && !lines.empty() &&
      (lines.front().fields.front().first == "blockname" || lines.front().fields.front().first == "blocksizes"))
    return read_block_records(lines, source);
  for (const Record& r : lines) {
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
        s.switches = budget.expand(value, source, r.line);
      } else if (key == "nodes") {
        if (!s.nodes.empty()) throw Error(source, r.line, "Nodes= appears twice on the line");
        s.nodes = budget.expand(value, source, r.line);
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

// Slurm's blocks as a tree (topology_block's block_record.c): each block a
// switch of its nodes; then, per aggregation level, a switch over each run
// of that many consecutive blocks (in blocks: BlockSizes / the base size,
// each a power of two; without BlockSizes 2, 4, 8 and 16), up to the first
// that takes every block; and a top switch over what is left when that
// level has several. A last run shorter than its level is a smaller switch.
// Aggregates are named by their first and last block.
SiteTree slurm_blocks_tree(const std::vector<SlurmBlock>& blocks, const std::vector<std::size_t>& sizes,
                           std::size_t sizes_line, const std::string& source) {
  if (blocks.empty()) throw Error(source, sizes_line, "no BlockName line");
  const std::size_t base = sizes.empty() ? blocks.front().nodes.size() : sizes.front();
  std::vector<std::size_t> runs;  // blocks a switch of each aggregation level, from 1
  if (sizes.empty()) {
    for (std::size_t r = 1; r <= 16; r *= 2) runs.push_back(r);
  } else {
    for (std::size_t s : sizes) {
      const std::size_t r = s / base;
      if (s % base || (r & (r - 1)) || r > (std::size_t{1} << 15) || (!runs.empty() && r <= runs.back()))
        throw Error(source, sizes_line,
                    "BlockSizes: each size must be the first (" + std::to_string(base) +
                        ") times a larger power of two than the one before, not " + std::to_string(s));
      runs.push_back(r);
    }
    if (runs.front() != 1) throw Error(source, sizes_line, "BlockSizes must start with the base block size");
  }
  while (runs.size() > 1 && runs[runs.size() - 2] >= blocks.size()) runs.pop_back();
  SiteTree tree;
  tree.source = source;
  std::vector<std::string> below;  // the switches of the level below
  std::set<std::string> taken;
  for (const SlurmBlock& b : blocks) {
    taken.insert(b.name);
    if (b.nodes.size() < base)
      throw Error(source, b.line,
                  "block '" + b.name + "' has " + std::to_string(b.nodes.size()) +
                      " nodes, fewer than the base block size " + std::to_string(base));
    tree.switches.push_back({b.name, b.nodes, {}, 1, 0, b.line});
    below.push_back(b.name);
  }
  // An aggregate by its first and last block ("b1-b4"): Slurm's own name,
  // a hostlist ("b[1-4]"), would read back as the blocks themselves.
  auto names_of = [&](std::size_t first, std::size_t count) {
    const std::size_t last = std::min(blocks.size(), first + count) - 1;
    return last == first ? blocks[first].name : blocks[first].name + "-" + blocks[last].name;
  };
  for (std::size_t level = 1; level < runs.size() && below.size() > 1; ++level) {
    const std::size_t per = runs[level] / runs[level - 1];  // children a switch
    std::vector<std::string> here;
    for (std::size_t first = 0; first < below.size(); first += per) {
      SiteSwitch s;
      // A run of one block (the last) would take its block's name: the
      // level tells them apart.
      s.name = names_of(first * runs[level - 1], runs[level]);
      while (!taken.insert(s.name).second) s.name += "/" + std::to_string(level + 1);
      s.line = sizes_line;
      s.switches.assign(below.begin() + static_cast<std::ptrdiff_t>(first),
                        below.begin() + static_cast<std::ptrdiff_t>(std::min(below.size(), first + per)));
      here.push_back(s.name);
      tree.switches.push_back(std::move(s));
    }
    below = std::move(here);
  }
  if (below.size() > 1) {
    std::string top = names_of(0, blocks.size());
    while (!taken.insert(top).second) top += "/top";
    tree.switches.push_back({top, {}, below, 1, 0, sizes_line});
  }
  return tree;
}

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
    std::string_view line = trim_space(raw);
    if (line.empty() || line.front() == '#') continue;
    // "12: s3.s0.dev5" from srun -l: the task number goes.
    if (const std::size_t colon = line.find(':'); colon != std::string_view::npos) {
      const std::string_view task = trim_space(line.substr(0, colon));
      if (task.empty() ||
          !std::all_of(task.begin(), task.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        throw Error(source, lines.line(), "expected 'N: ADDR' or 'ADDR', got '" + std::string(line) + "'");
      line = trim_space(line.substr(colon + 1));
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
