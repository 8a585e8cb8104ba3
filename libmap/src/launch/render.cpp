// Writers of every launch format (the formats are described in launch.hpp).
#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <sstream>

#include "launch/ranges.hpp"
#include "launch/slot_lookup.hpp"
#include "rankmap/error.hpp"
#include "rankmap/launch.hpp"

namespace rankmap {
namespace {

using detail::format_ranges;

const NodeType& type_of(const Machine& m, const Allocation& a, int node) {
  return m.node_types[m.nodes[a.nodes[node]].type];
}
const std::string& host_of(const Machine& m, const Allocation& a, int node) { return m.nodes[a.nodes[node]].host; }

// "S:a-b[,S:c-d]": logical cores (PUs with hwthreads) inside each socket.
std::string openmpi_slot(const NodeType& type, const Slot& slot, bool hwthreads) {
  std::map<int, std::vector<int>> by_package;
  for (int p : slot.pus) {
    const Pu& pu = type.pus[p];
    auto& v = by_package[pu.package];
    const int unit = hwthreads ? pu.pu_in_package : pu.core_in_package;
    if (v.empty() || v.back() != unit) v.push_back(unit);
  }
  std::string out;
  for (const auto& [package, units] : by_package)
    for (const auto& range : detail::range_items(units))
      out += (out.empty() ? "" : ",") + std::to_string(package) + ":" + range;
  return out;
}

std::string render_openmpi(const Machine& m, const Allocation& a, const Mapping& map) {
  std::string out;
  for (std::size_t r = 0; r < map.size(); ++r) {
    const Placement p = map.ranks[r];
    out += "rank " + std::to_string(r) + "=" + host_of(m, a, p.node) +
           " slot=" + openmpi_slot(type_of(m, a, p.node), a.slots(p.node)[p.slot], a.hwthreads) + "\n";
  }
  return out;
}

// Hydra machinefile lines, "HOST:N" for each run of consecutive ranks on one
// host, with MPICH's "binding=user:" list when `binding`.
std::string render_hydra(const Machine& m, const Allocation& a, const Mapping& map, bool binding) {
  std::string out;
  for (std::size_t r = 0; r < map.size();) {
    const int node = map.ranks[r].node;
    std::size_t end = r;
    std::string cpus;
    while (end < map.size() && map.ranks[end].node == node) {
      if (end > r) cpus += ',';
      cpus += detail::os_cpu_list(type_of(m, a, node), a.slots(node)[map.ranks[end].slot], '+');
      ++end;
    }
    out += host_of(m, a, node) + ":" + std::to_string(end - r) + (binding ? " binding=user:" + cpus : "") + "\n";
    r = end;
  }
  return out;
}

// One CPU list per local rank: the one every node has, or (local rank i
// on different CPUs on different nodes) nothing, with `why` saying where.
std::optional<std::vector<std::string>> per_local_rank_cpus(const Machine& m, const Allocation& a, const Mapping& map,
                                                            char sep, const char* format, std::string* why = nullptr) {
  std::vector<std::vector<std::string>> local(a.size());
  for (const Placement& p : map.ranks)
    local[p.node].push_back(detail::os_cpu_list(type_of(m, a, p.node), a.slots(p.node)[p.slot], sep));
  std::vector<std::string> common;
  for (std::size_t k = 0; k < a.size(); ++k)
    for (std::size_t i = 0; i < local[k].size(); ++i) {
      if (i == common.size()) common.push_back(local[k][i]);
      if (common[i] != local[k][i]) {
        if (why)
          *why = std::string(format) + " binds local rank " + std::to_string(i) +
                 " to the same CPUs on every node, but this mapping puts it on CPU " + common[i] + " on one node and " +
                 local[k][i] + " on host " + host_of(m, a, static_cast<int>(k));
        return std::nullopt;
      }
    }
  return common;
}

// The same, or an Error for the formats that have no other way to bind.
std::vector<std::string> common_local_rank_cpus(const Machine& m, const Allocation& a, const Mapping& map, char sep,
                                                const char* format) {
  std::string why;
  if (auto cpus = per_local_rank_cpus(m, a, map, sep, format, &why)) return *cpus;
  throw Error(ErrorKind::argument, Parameter{"format"},
              why + "; the openmpi, mpich and slurm formats bind each rank apart");
}

std::string hosts_per_rank(const Machine& m, const Allocation& a, const Mapping& map) {
  std::string out;
  for (const Placement& p : map.ranks) out += host_of(m, a, p.node) + "\n";
  return out;
}

// "0x..": the hexadecimal mask of a ',' list of CPUs.
std::string cpu_mask(const std::string& cpus) {
  std::vector<int> bits;
  std::istringstream in(cpus);
  for (std::string s; std::getline(in, s, ',');) {
    int cpu = 0;  // rankmap's own list of CPU numbers, but checked all the same
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), cpu);
    if (ec != std::errc() || end != s.data() + s.size() || cpu < 0 || cpu > (1 << 20))
      throw Error("launch file", 0, "a CPU list holds '" + s + "'", ErrorKind::internal);
    bits.push_back(cpu);
  }
  std::string hex;
  const int top = *std::max_element(bits.begin(), bits.end());
  for (int nib = top / 4; nib >= 0; --nib) {
    int v = 0;
    for (int b : bits)
      if (b / 4 == nib) v |= 1 << (b % 4);
    hex += "0123456789abcdef"[v];
  }
  return "0x" + hex;
}

// The local ranks' CPUs as one ',' list of single CPUs, or (any rank with
// several) as a ',' list of masks; `single` says which.
std::string local_rank_list(const std::vector<std::string>& cpus, bool& single) {
  single = true;
  for (const auto& c : cpus) single = single && c.find(',') == std::string::npos;
  std::string list;
  for (const auto& c : cpus) list += (list.empty() ? "" : ",") + (single ? c : cpu_mask(c));
  return list;
}

// With --cpus-per-rank, srun must also give each task its CPUs: srun reads
// SRUN_CPUS_PER_TASK (since Slurm 22.05 no longer SLURM_CPUS_PER_TASK),
// counted as the CPUs of each rank's mask. Where local rank i has
// different CPUs on different nodes, srun's one list cannot bind them:
// srun binds nothing, and each task is bound by FILE.bind (rankmap
// bind-task, or the SPANK plugin).
std::string render_slurm_env(const Machine& m, const Allocation& a, const Mapping& map) {
  bool single = true;
  const std::optional<std::vector<std::string>> cpus = per_local_rank_cpus(m, a, map, ',', "slurm");
  std::string env = "SLURM_DISTRIBUTION=arbitrary\nSLURM_CPU_BIND=";
  if (cpus) {
    const std::string list = local_rank_list(*cpus, single);
    env += std::string(single ? "map_cpu:" : "mask_cpu:") + list + "\n";
  } else {
    env += "none\n";
  }
  if (a.cpus_per_rank > 0 && !map.ranks.empty())
    env += "SRUN_CPUS_PER_TASK=" + std::to_string(a.slots(map.ranks[0].node)[map.ranks[0].slot].pus.size()) + "\n";
  return env;
}

// "RANK HOST CPUS" a rank, CPUS the OS's numbers as ranges ("0-3,8"): what
// rankmap bind-task reads in each task.
std::string render_task_cpus(const Machine& m, const Allocation& a, const Mapping& map) {
  std::string out;
  for (std::size_t r = 0; r < map.size(); ++r) {
    const Placement p = map.ranks[r];
    const NodeType& type = type_of(m, a, p.node);
    std::vector<int> cpus;
    for (int pu : a.slots(p.node)[p.slot].pus) cpus.push_back(static_cast<int>(type.pus[pu].os_index));
    std::sort(cpus.begin(), cpus.end());
    out += std::to_string(r) + " " + host_of(m, a, p.node) + " " + format_ranges(cpus, ',') + "\n";
  }
  return out;
}

// Intel MPI pins the i-th rank of a node to the i-th CPU of the list, or to
// the i-th mask of an explicit domain list.
std::string render_intelmpi_env(const Machine& m, const Allocation& a, const Mapping& map) {
  bool single = true;
  const std::string list = local_rank_list(common_local_rank_cpus(m, a, map, ',', "intelmpi"), single);
  return single ? "I_MPI_PIN_PROCESSOR_LIST=" + list + "\n" : "I_MPI_PIN_DOMAIN=[" + list + "]\n";
}

std::string render_mvapich_env(const Machine& m, const Allocation& a, const Mapping& map) {
  const auto cpus = common_local_rank_cpus(m, a, map, ',', "mvapich");
  std::string list;
  for (const auto& c : cpus) list += (list.empty() ? "" : ":") + c;
  return "MV2_CPU_MAPPING=" + list + "\n";
}

std::string render_csv(const Machine& m, const Allocation& a, const Mapping& map) {
  std::string out = "rank,host,socket,core,pu\n";
  for (std::size_t r = 0; r < map.size(); ++r) {
    const Placement p = map.ranks[r];
    const NodeType& type = type_of(m, a, p.node);
    const Slot& slot = a.slots(p.node)[p.slot];
    std::vector<int> cores;
    for (int pu : slot.pus)
      if (cores.empty() || cores.back() != type.pus[pu].core) cores.push_back(type.pus[pu].core);
    out += std::to_string(r) + "," + host_of(m, a, p.node) + "," + std::to_string(slot.package) + "," +
           format_ranges(cores, ';') + "," + (a.hwthreads ? format_ranges(slot.pus, ';') : "") + "\n";
  }
  return out;
}

}  // namespace

bool one_cpu_list_binds(const Machine& machine, const Allocation& allocation, const Mapping& mapping) {
  return per_local_rank_cpus(machine, allocation, mapping, ',', "slurm").has_value();
}

std::vector<FilePart> render_launch_files(LaunchFormat format, const Machine& machine, const Allocation& allocation,
                                          const Mapping& mapping) {
  switch (format) {
    case LaunchFormat::openmpi: return {{"", render_openmpi(machine, allocation, mapping)}};
    case LaunchFormat::mpich: return {{"", render_hydra(machine, allocation, mapping, true)}};
    case LaunchFormat::slurm:
      return {{"", hosts_per_rank(machine, allocation, mapping)},
              {".env", render_slurm_env(machine, allocation, mapping)},
              {".bind", render_task_cpus(machine, allocation, mapping)}};
    case LaunchFormat::mvapich:
      return {{"", hosts_per_rank(machine, allocation, mapping)},
              {".env", render_mvapich_env(machine, allocation, mapping)}};
    case LaunchFormat::intelmpi:
      return {{"", render_hydra(machine, allocation, mapping, false)},
              {".env", render_intelmpi_env(machine, allocation, mapping)}};
    case LaunchFormat::csv: return {{"", render_csv(machine, allocation, mapping)}};
  }
  throw Error("unknown launch format", ErrorKind::internal);
}

}  // namespace rankmap
