#include "rankmap/allocation.hpp"

#include "rankmap/error.hpp"
#include "rankmap/hostlist.hpp"
#include "rankmap/io.hpp"

namespace rankmap {
namespace {

// The slots of one node type: `ppn` balanced blocks of its cores (or PUs).
std::vector<Slot> slot_layout(const NodeType& type, int ppn, bool hwthreads) {
  std::vector<std::vector<int>> units;  // each unit: PU indices
  if (hwthreads) {
    for (int p = 0; p < static_cast<int>(type.pus.size()); ++p) units.push_back({p});
  } else {
    units = type.core_pus;
  }
  const int nunits = static_cast<int>(units.size());
  const int nslots = ppn > 0 ? ppn : nunits;
  std::vector<Slot> slots(nslots);
  for (int s = 0; s < nslots; ++s) {
    const int first = static_cast<int>(static_cast<long long>(s) * nunits / nslots);
    const int last = static_cast<int>(static_cast<long long>(s + 1) * nunits / nslots);
    for (int u = first; u < last; ++u) slots[s].pus.insert(slots[s].pus.end(), units[u].begin(), units[u].end());
    slots[s].package = type.pus[slots[s].pus.front()].package;
  }
  return slots;
}

}  // namespace

std::size_t Allocation::total_slots() const {
  std::size_t n = 0;
  for (std::size_t k = 0; k < nodes.size(); ++k) n += slots(k).size();
  return n;
}

int Allocation::position_of(int machine_node) const {
  if (machine_node < 0 || machine_node >= static_cast<int>(position_.size())) return -1;
  return position_[machine_node];
}

Allocation make_allocation(const Machine& machine, const AllocationOptions& options) {
  Allocation a;
  a.hwthreads = options.hwthreads;
  a.position_.assign(machine.nodes.size(), -1);
  if (options.hosts.empty()) {
    for (int i = 0; i < static_cast<int>(machine.nodes.size()); ++i) a.nodes.push_back(i);
  } else {
    for (std::size_t k = 0; k < options.hosts.size(); ++k) {
      const std::string& host = options.hosts[k];
      // An @file's host is blamed on its file and line, not on the list.
      const bool known = k < options.origins.size() && !options.origins[k].file.empty();
      auto fail = [&](const std::string& message) -> Error {
        if (known) return Error(options.origins[k].file, options.origins[k].line, message);
        return Error(ErrorKind::input, Parameter{"nodes"}, message);
      };
      const int i = machine.find_host(host);
      if (i < 0) throw fail("unknown host '" + host + "' (not in machine '" + machine.name + "')");
      if (a.position_[i] >= 0) throw fail("host '" + host + "' is given twice");
      a.position_[i] = static_cast<int>(a.nodes.size());
      a.nodes.push_back(i);
    }
  }
  for (std::size_t k = 0; k < a.nodes.size(); ++k) a.position_[a.nodes[k]] = static_cast<int>(k);

  if (options.ppn < 0)
    throw Error(ErrorKind::argument, Parameter{"ranks_per_node"},
                "expected 0 (one rank per core) or more, got " + std::to_string(options.ppn));
  std::vector<int> layout_of_type(machine.node_types.size(), -1);
  for (int node : a.nodes) {
    const int t = machine.nodes[node].type;
    if (layout_of_type[t] < 0) {
      const NodeType& type = machine.node_types[t];
      const int units = options.hwthreads ? static_cast<int>(type.pus.size()) : type.cores;
      if (options.ppn > units)
        throw Error(ErrorKind::fit, Parameter{"ranks_per_node"},
                    std::to_string(options.ppn) + " ranks per node do not fit host '" + machine.nodes[node].host +
                        "', which has " + std::to_string(units) +
                        (options.hwthreads ? " hardware threads"
                                           : " cores and " + std::to_string(type.pus.size()) + " hardware threads"));
      layout_of_type[t] = static_cast<int>(a.layouts.size());
      a.layouts.push_back(slot_layout(type, options.ppn, options.hwthreads));
    }
    a.layout_of.push_back(layout_of_type[t]);
  }
  return a;
}

std::vector<std::string> read_nodes_argument(const std::string& value, std::vector<HostOrigin>* origins) {
  if (value.empty() || value[0] != '@') {
    try {
      return expand_hostlist(value, "nodes");
    } catch (const Error& e) {  // the list is a parameter's value, not a file
      throw Error(e.kind(), Parameter{"nodes"}, e.message());
    }
  }
  const std::string path = value.substr(1);
  const std::string text = read_text_file(path);
  std::vector<std::string> hosts;
  std::size_t line = 0, pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string entry = text.substr(pos, end - pos);
    ++line;
    pos = end + 1;
    if (auto hash = entry.find('#'); hash != std::string::npos) entry.resize(hash);
    const auto first = entry.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    entry = entry.substr(first, entry.find_last_not_of(" \t\r") - first + 1);
    auto more = expand_hostlist(entry, path, line);
    if (origins) origins->resize(hosts.size() + more.size(), HostOrigin{path, line});
    hosts.insert(hosts.end(), more.begin(), more.end());
  }
  if (hosts.empty()) throw Error(path, 0, "no hosts listed (expected one host or hostlist per line)");
  return hosts;
}

}  // namespace rankmap
