#include "rankmap/allocation.hpp"

#include <algorithm>

#include "rankmap/error.hpp"
#include "rankmap/hostlist.hpp"
#include "rankmap/io.hpp"

namespace rankmap {
namespace {

// A node type's units for slots: its cores, or its PUs with `hwthreads`;
// each unit a list of PU indices.
std::vector<std::vector<int>> slot_units(const NodeType& type, bool hwthreads) {
  if (!hwthreads) return type.core_pus;
  std::vector<std::vector<int>> units;
  for (int p = 0; p < static_cast<int>(type.pus.size()); ++p) units.push_back({p});
  return units;
}

std::vector<Slot> slot_layout_of(const NodeType& type, const std::vector<std::vector<int>>& units, int ppn);

// The units a job holds: those all of whose PUs' OS numbers are in
// `held`; when no core is whole, the held PUs one by one.
std::vector<std::vector<int>> held_units(const NodeType& type, bool hwthreads, std::vector<unsigned> held) {
  std::sort(held.begin(), held.end());
  auto is_held = [&](int pu) { return std::binary_search(held.begin(), held.end(), type.pus[pu].os_index); };
  std::vector<std::vector<int>> units;
  for (const std::vector<int>& unit : slot_units(type, hwthreads))
    if (std::all_of(unit.begin(), unit.end(), is_held)) units.push_back(unit);
  if (units.empty())
    for (int p = 0; p < static_cast<int>(type.pus.size()); ++p)
      if (is_held(p)) units.push_back({p});
  return units;
}

// The slots of one node type: `ppn` balanced blocks of its cores (or PUs).
std::vector<Slot> slot_layout(const NodeType& type, int ppn, bool hwthreads) {
  return slot_layout_of(type, slot_units(type, hwthreads), ppn);
}

// `ppn` balanced blocks of `units` (0: one a unit).
std::vector<Slot> slot_layout_of(const NodeType& type, const std::vector<std::vector<int>>& units, int ppn) {
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

// `count` slots of `size` units each, a slot inside one package wherever
// `size` fits in one: as a hybrid rank's threads share their package's
// caches and memory. The packages take the in-package blocks in turn (two
// ranks on two packages: one each, as Open MPI's PE=N and Slurm's
// --cpus-per-task spread them); blocks that fit no package's rest are cut
// from the units left over, in order. Slots are in the order of their
// first unit.
std::vector<Slot> block_layout(const NodeType& type, const std::vector<std::vector<int>>& units, int count, int size) {
  std::vector<std::vector<int>> by_package(type.packages);  // unit indices
  for (int u = 0; u < static_cast<int>(units.size()); ++u) by_package[type.pus[units[u].front()].package].push_back(u);
  std::vector<int> blocks(type.packages, 0);
  for (int placed = 0, turn = 0, stuck = 0; placed < count && stuck < type.packages; turn = (turn + 1) % type.packages)
    if ((blocks[turn] + 1) * size <= static_cast<int>(by_package[turn].size()))
      ++blocks[turn], ++placed, stuck = 0;
    else
      ++stuck;
  std::vector<std::vector<int>> chosen;  // each block: unit indices
  std::vector<int> rest;
  const auto width = static_cast<std::ptrdiff_t>(size);
  for (int p = 0; p < type.packages; ++p) {
    for (std::ptrdiff_t b = 0; b < blocks[p]; ++b)
      chosen.emplace_back(by_package[p].begin() + b * width, by_package[p].begin() + (b + 1) * width);
    rest.insert(rest.end(), by_package[p].begin() + blocks[p] * width, by_package[p].end());
  }
  std::sort(rest.begin(), rest.end());
  for (std::size_t at = 0; chosen.size() < static_cast<std::size_t>(count); at += size)
    chosen.emplace_back(rest.begin() + static_cast<std::ptrdiff_t>(at),
                        rest.begin() + static_cast<std::ptrdiff_t>(at) + size);
  std::sort(chosen.begin(), chosen.end());
  std::vector<Slot> slots(chosen.size());
  for (std::size_t s = 0; s < chosen.size(); ++s) {
    for (int u : chosen[s]) slots[s].pus.insert(slots[s].pus.end(), units[u].begin(), units[u].end());
    std::sort(slots[s].pus.begin(), slots[s].pus.end());
    slots[s].package = type.pus[slots[s].pus.front()].package;
  }
  return slots;
}

// The slots of one node of a batch job that holds part of it (`held`
// CPUs, all when empty) or takes `ranks` ranks there (0: one a unit).
// `counted_by`: where a batch job's count came from (PBS_NODEFILE's
// lines), blamed instead of ranks_per_node when it does not fit.
std::vector<Slot> held_layout(const Machine& machine, int node, const AllocationOptions& options,
                              const std::vector<unsigned>& held, int ranks, const std::string& counted_by) {
  const NodeType& type = machine.node_types[machine.nodes[node].type];
  const std::vector<std::vector<int>> units =
      held.empty() ? slot_units(type, options.hwthreads) : held_units(type, options.hwthreads, held);
  const int n = options.cpus_per_rank;
  const int count = ranks > 0 ? ranks : n > 0 ? static_cast<int>(units.size()) / n : static_cast<int>(units.size());
  const long long needed = static_cast<long long>(count) * std::max(n, 1);
  if (units.empty() || count == 0 || needed > static_cast<long long>(units.size())) {
    const std::string unit = options.hwthreads ? " hardware thread" : held.empty() ? " core" : " CPU";
    const std::string where = held.empty()
                                  ? "host '" + machine.nodes[node].host + "', which has " +
                                        std::to_string(units.size()) + unit + (units.size() == 1 ? "" : "s")
                                  : "the " + std::to_string(units.size()) + unit + (units.size() == 1 ? "" : "s") +
                                        " the job holds on host '" + machine.nodes[node].host + "'";
    const std::string message =
        std::to_string(std::max(count, 1)) + (count > 1 ? " ranks" : " rank") +
        (n > 0 ? " of " + std::to_string(n) + (options.hwthreads ? " hardware threads" : " cores") : "") +
        (count > 1 ? " do" : " does") + " not fit " + where;
    if (n == 0 && !counted_by.empty()) throw Error(counted_by, 0, message, ErrorKind::fit);
    throw Error(ErrorKind::fit, Parameter{n > 0 ? "cpus_per_rank" : "ranks_per_node"}, message);
  }
  return n > 0 ? block_layout(type, units, count, n) : slot_layout_of(type, units, count);
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
  if (options.cpus_per_rank < 0)
    throw Error(ErrorKind::argument, Parameter{"cpus_per_rank"},
                "expected 0 (not asked) or more, got " + std::to_string(options.cpus_per_rank));
  a.cpus_per_rank = options.cpus_per_rank;
  std::vector<int> layout_of_type(machine.node_types.size(), -1);
  for (std::size_t k = 0; k < a.nodes.size(); ++k) {
    const int node = a.nodes[k];
    const int t = machine.nodes[node].type;
    const bool held = k < options.held_cpus.size() && !options.held_cpus[k].empty();
    const int ranks = k < options.ranks_per_host.size() ? options.ranks_per_host[k] : 0;
    if (held || ranks > 0) {  // this node's own layout
      a.layout_of.push_back(static_cast<int>(a.layouts.size()));
      a.layouts.push_back(held_layout(machine, node, options, held ? options.held_cpus[k] : std::vector<unsigned>{},
                                      ranks > 0 ? ranks : options.ppn, options.counts_source));
      continue;
    }
    if (layout_of_type[t] < 0) {
      const NodeType& type = machine.node_types[t];
      const int units = options.hwthreads ? static_cast<int>(type.pus.size()) : type.cores;
      if (options.ppn > units) {
        const std::string message =
            std::to_string(options.ppn) + " ranks per node do not fit host '" + machine.nodes[node].host +
            "', which has " + std::to_string(units) +
            (options.hwthreads ? " hardware threads"
                               : " cores and " + std::to_string(type.pus.size()) + " hardware threads");
        if (!options.counts_source.empty()) throw Error(options.counts_source, 0, message, ErrorKind::fit);
        throw Error(ErrorKind::fit, Parameter{"ranks_per_node"}, message);
      }
      layout_of_type[t] = static_cast<int>(a.layouts.size());
      if (options.cpus_per_rank > 0) {
        const int n = options.cpus_per_rank, count = options.ppn > 0 ? options.ppn : units / n;
        if (count == 0 || static_cast<long long>(count) * n > units)
          throw Error(ErrorKind::fit, Parameter{"cpus_per_rank"},
                      std::to_string(std::max(count, 1)) + (count > 1 ? " ranks" : " rank") + " of " +
                          std::to_string(n) + (options.hwthreads ? " hardware threads" : " cores") +
                          (count > 1 ? " do" : " does") + " not fit host '" + machine.nodes[node].host +
                          "', which has " + std::to_string(units) +
                          (options.hwthreads ? " hardware threads"
                                             : " cores and " + std::to_string(type.pus.size()) + " hardware threads"));
        a.layouts.push_back(block_layout(type, slot_units(type, options.hwthreads), count, n));
      } else {
        a.layouts.push_back(slot_layout(type, options.ppn, options.hwthreads));
      }
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
