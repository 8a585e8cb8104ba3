// Readers of every launch format. They share no code with the writers, so
// that re-reading a written file checks the writer.
#include <filesystem>
#include <utility>

#include "core/mapped_file.hpp"
#include "launch/ranges.hpp"
#include "launch/slot_lookup.hpp"
#include "rankmap/error.hpp"
#include "rankmap/io.hpp"
#include "rankmap/launch.hpp"

namespace rankmap {
namespace {

using detail::Fields;
using detail::LineScanner;
using detail::parse_count;
using detail::SlotLookup;

std::string_view trim(std::string_view s) {
  const auto a = s.find_first_not_of(" \t");
  if (a == std::string_view::npos) return {};
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

bool skip(std::string_view line) {
  const auto t = trim(line);
  return t.empty() || t[0] == '#';
}

void place(Mapping& m, std::uint64_t rank, Placement p, const LineScanner& at) {
  if (rank > 0x7fffffff) at.fail("rank " + std::to_string(rank) + " is too large");
  if (rank >= m.size()) m.ranks.resize(rank + 1);
  if (m.ranks[rank].node >= 0) at.fail("rank " + std::to_string(rank) + " is placed twice");
  m.ranks[rank] = p;
}

// A rank the file numbers itself (rankfile, csv): every rank below it
// needs a line of its own, so a file this small cannot hold them, and the
// table is not grown to gigabytes on its word.
void place_numbered(Mapping& m, std::uint64_t rank, Placement p, const LineScanner& at) {
  if (rank >= at.text_size())
    at.fail("rank " + std::to_string(rank) + " in a file of " + std::to_string(at.text_size()) +
            " bytes: the ranks below it cannot all be listed");
  place(m, rank, p, at);
}

// Ranks placed in file order without binding get the node's slots in order.
struct LocalOrder {
  std::vector<int> next;
  explicit LocalOrder(const Allocation& a) : next(a.size(), 0) {}
  int take(int node, const Allocation& a, const SlotLookup& look, const LineScanner& at) {
    if (next[node] >= static_cast<int>(a.slots(node).size()))
      at.fail("host '" + look.host(node) + "' gets more ranks than its " + std::to_string(a.slots(node).size()) +
              " slots");
    return next[node]++;
  }
};

// PUs of "S:range" / "range" items: cores (or PUs with hwthreads).
std::vector<int> openmpi_pus(std::string_view spec, int node, const SlotLookup& look, bool hwthreads,
                             const LineScanner& at) {
  const NodeType& type = look.type(node);
  std::vector<int> pus;
  Fields items(spec, ",");
  std::string_view item;
  while (items.next(item)) {
    const auto colon = item.find(':');
    const bool socketed = colon != std::string_view::npos;
    const std::uint64_t socket = socketed ? parse_count(item.substr(0, colon), at, "a socket number") : 0;
    if (socketed && socket >= static_cast<std::uint64_t>(type.packages))  // before any cast: 2^32 is no socket 0
      at.fail("socket " + std::to_string(socket) + " does not exist on host '" + look.host(node) + "' (" +
              std::to_string(type.packages) + " sockets)");
    const int package = socketed ? static_cast<int>(socket) : -1;
    for (int unit : detail::parse_ranges(socketed ? item.substr(colon + 1) : item, ';', at,
                                         hwthreads ? "hardware thread numbers" : "core numbers")) {
      bool found = false;
      for (int p = 0; p < static_cast<int>(type.pus.size()); ++p) {
        const Pu& pu = type.pus[p];
        const int u = socketed ? (hwthreads ? pu.pu_in_package : pu.core_in_package) : (hwthreads ? p : pu.core);
        if ((!socketed || pu.package == package) && u == unit) {
          pus.push_back(p);
          found = true;
        }
      }
      if (!found)
        at.fail(std::string(hwthreads ? "hardware thread " : "core ") + std::to_string(unit) +
                (socketed ? " of socket " + std::to_string(package) : "") + " does not exist on host '" +
                look.host(node) + "'");
    }
  }
  return pus;
}

Mapping read_openmpi(std::string_view text, const std::string& source, const Allocation& a, const SlotLookup& look) {
  LineScanner in(text, source);
  Mapping m;
  std::string_view line;
  while (in.next(line)) {
    if (skip(line)) continue;
    std::string_view rest = trim(line);
    if (rest.rfind("rank", 0) != 0) in.fail("expected 'rank R=HOST slot=S:C'");
    rest.remove_prefix(4);
    const auto eq = rest.find('=');
    const auto slot_at = rest.find("slot=");
    if (eq == std::string_view::npos || slot_at == std::string_view::npos || slot_at < eq)
      in.fail("expected 'rank R=HOST slot=S:C'");
    const std::uint64_t rank = parse_count(trim(rest.substr(0, eq)), in, "a rank number");
    const std::string_view host = trim(rest.substr(eq + 1, slot_at - eq - 1));
    int node;
    if (host.rfind("+n", 0) == 0) {  // +nK: the K-th allocated node
      const auto k = parse_count(host.substr(2), in, "a node number after '+n'");
      if (k >= a.size())
        in.fail("'" + std::string(host) + "' is beyond the " + std::to_string(a.size()) + " allocated nodes");
      node = static_cast<int>(k);
    } else {
      node = look.node(host, in);
    }
    const std::string_view spec = trim(rest.substr(slot_at + 5));
    const int slot = look.slot(node, openmpi_pus(spec, node, look, a.hwthreads, in), in, "slot=" + std::string(spec));
    place_numbered(m, rank, {node, slot}, in);
  }
  return m;
}

// One local rank's CPUs in OS numbers ("0+1" or "0,1") as a slot.
int slot_of_os_cpus(std::string_view cpus, char sep, int node, const SlotLookup& look, const LineScanner& at) {
  std::vector<int> pus;
  for (int os : detail::parse_ranges(cpus, sep, at, "CPU numbers")) {
    const int p = look.pu_of_os(node, static_cast<unsigned>(os));
    if (p < 0) at.fail("CPU " + std::to_string(os) + " does not exist on host '" + look.host(node) + "'");
    pus.push_back(p);
  }
  return look.slot(node, pus, at, std::string(cpus));
}

// A Hydra machinefile entry, "HOST:N" or "HOST" (one rank).
struct HostCount {
  int node;
  std::uint64_t count;
};
HostCount hydra_host(std::string_view entry, const SlotLookup& look, const LineScanner& in) {
  const auto colon = entry.find(':');
  const int node = look.node(entry.substr(0, colon), in);
  const std::uint64_t count =
      colon == std::string_view::npos ? 1 : parse_count(entry.substr(colon + 1), in, "a rank count after ':'");
  if (count == 0) in.fail("expected a rank count of at least 1 after ':'");
  return {node, count};
}

Mapping read_mpich(std::string_view text, const std::string& source, const Allocation& a, const SlotLookup& look) {
  LineScanner in(text, source);
  Mapping m;
  LocalOrder order(a);
  std::string_view line;
  while (in.next(line)) {
    if (skip(line)) continue;
    Fields f(line);
    std::string_view first, option;
    f.next(first);
    const auto [node, count] = hydra_host(first, look, in);
    std::vector<std::string_view> binding;
    while (f.next(option)) {
      if (option.rfind("binding=user:", 0) != 0)
        in.fail("expected 'binding=user:CPU,...', got '" + std::string(option) + "'");
      Fields sets(option.substr(13), ",");
      for (std::string_view s; sets.next(s);) binding.push_back(s);
      if (binding.size() != count)
        in.fail("binding lists " + std::to_string(binding.size()) + " CPU sets for " + std::to_string(count) +
                " ranks");
    }
    for (std::uint64_t i = 0; i < count; ++i) {
      const int slot =
          binding.empty() ? order.take(node, a, look, in) : slot_of_os_cpus(binding[i], '+', node, look, in);
      place(m, m.size(), {node, slot}, in);
    }
  }
  return m;
}

// A hexadecimal mask ("0xc") as a ',' list of CPUs ("2,3").
std::string cpus_of_mask(std::string_view item, const LineScanner& at) {
  std::string_view hex = item.rfind("0x", 0) == 0 ? item.substr(2) : item;
  std::string list;
  for (std::size_t i = 0; i < hex.size(); ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(hex[i])));
    const int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (v < 0) at.fail("expected a hexadecimal CPU mask, got '" + std::string(item) + "'");
    for (int b = 0; b < 4; ++b)
      if (v >> b & 1) list = std::to_string((hex.size() - 1 - i) * 4 + b) + (list.empty() ? "" : "," + list);
  }
  if (list.empty()) at.fail("expected a CPU mask with at least one CPU, got '" + std::string(item) + "'");
  return list;
}

// Files that bind by local rank (FILE.env lists CPUs for local rank 0, 1,
// ...; the same on every node): each rank's slot from the list, or, with
// no list, the node's next slot.
class LocalRankCpus {
 public:
  LocalRankCpus(std::vector<std::string> cpus, std::filesystem::path env_path, const Allocation& a)
      : cpus_(std::move(cpus)), env_path_(std::move(env_path)), local_(a.size(), 0), order_(a) {}
  int slot(int node, const Allocation& a, const SlotLookup& look, const LineScanner& in) {
    const int i = local_[node]++;
    if (cpus_.empty()) return order_.take(node, a, look, in);
    if (i >= static_cast<int>(cpus_.size()))
      in.fail("local rank " + std::to_string(i) + " on '" + look.host(node) + "' has no CPU in " + env_path_.string());
    return slot_of_os_cpus(cpus_[i], ',', node, look, in);
  }

 private:
  std::vector<std::string> cpus_;  // ',' lists of OS CPU numbers
  std::filesystem::path env_path_;
  std::vector<int> local_;
  LocalOrder order_;
};

// Intel MPI's FILE.env: the CPUs of each local rank, from
// I_MPI_PIN_PROCESSOR_LIST (one CPU each, "l-m" ranges giving one a rank)
// or I_MPI_PIN_DOMAIN=[mask,...]; empty when neither is set.
std::vector<std::string> intelmpi_cpus(const std::filesystem::path& env_path) {
  std::vector<std::string> cpus;
  if (!std::filesystem::exists(env_path)) return cpus;
  const std::string env = read_text_file(env_path);
  LineScanner in(env, env_path.string());
  std::string_view line;
  while (in.next(line)) {
    line = trim(line);
    if (line.rfind("I_MPI_PIN_DOMAIN=", 0) == 0) {
      std::string_view value = line.substr(17);
      if (value.size() < 2 || value.front() != '[' || value.back() != ']')
        in.fail("expected I_MPI_PIN_DOMAIN=[mask,...], got '" + std::string(value) + "'");
      cpus.clear();
      Fields f(value.substr(1, value.size() - 2), ",");
      for (std::string_view item; f.next(item);) cpus.push_back(cpus_of_mask(trim(item), in));
      return cpus;  // a domain list overrides the processor list
    }
    if (line.rfind("I_MPI_PIN_PROCESSOR_LIST=", 0) == 0)
      for (int cpu : detail::parse_ranges(line.substr(25), ',', in, "CPU numbers")) cpus.push_back(std::to_string(cpu));
  }
  return cpus;
}

// FILE: "HOST:N" lines; FILE.env: Intel MPI's pinning by local rank.
Mapping read_intelmpi(std::string_view text, const std::filesystem::path& path, const Allocation& a,
                      const SlotLookup& look) {
  const auto env_path = std::filesystem::path(path.string() + ".env");
  LocalRankCpus binding(intelmpi_cpus(env_path), env_path, a);
  LineScanner in(text, path.string());
  Mapping m;
  std::string_view line;
  while (in.next(line)) {
    if (skip(line)) continue;
    Fields f(line);
    std::string_view first, extra;
    f.next(first);
    if (f.next(extra)) in.fail("expected 'HOST:N', got '" + std::string(trim(line)) + "'");
    const auto [node, count] = hydra_host(first, look, in);
    for (std::uint64_t k = 0; k < count; ++k) place(m, m.size(), {node, binding.slot(node, a, look, in)}, in);
  }
  return m;
}

// FILE.bind: "RANK HOST CPUS" a rank (CPUS the OS's numbers, "0-3,8"), as
// rankmap bind-task reads it.
Mapping read_task_cpus(const std::filesystem::path& path, const SlotLookup& look) {
  const detail::MappedFile file(path);
  LineScanner in(file.text(), path.string());
  Mapping m;
  std::string_view line;
  while (in.next(line)) {
    if (skip(line)) continue;
    Fields f(line);
    std::string_view rank, host, cpus, extra;
    if (!f.next(rank) || !f.next(host) || !f.next(cpus) || f.next(extra))
      in.fail("expected 'RANK HOST CPUS' (CPUS like 0-3,8)");
    const int node = look.node(host, in);
    std::vector<int> pus;
    for (int os : detail::parse_ranges(cpus, ',', in, "CPU numbers")) {
      const int p = look.pu_of_os(node, static_cast<unsigned>(os));
      if (p < 0) in.fail("CPU " + std::to_string(os) + " does not exist on host '" + look.host(node) + "'");
      pus.push_back(p);
    }
    place_numbered(m, parse_count(rank, in, "a rank number"), {node, look.slot(node, pus, in, std::string(cpus))}, in);
  }
  return m;
}

// FILE: a host per line; FILE.env: KEY=map_cpu/mask_cpu list or MV2 list;
// with SLURM_CPU_BIND=none, each rank's CPUs from FILE.bind.
Mapping read_host_per_line(std::string_view text, const std::filesystem::path& path, LaunchFormat format,
                           const Allocation& a, const SlotLookup& look) {
  std::vector<std::string> cpus;  // per local rank; empty: no binding
  bool mask = false, each_task = false;
  const auto env_path = std::filesystem::path(path.string() + ".env");
  if (std::filesystem::exists(env_path)) {
    const std::string env = read_text_file(env_path);
    LineScanner ein(env, env_path.string());
    std::string_view line;
    const std::string key = format == LaunchFormat::slurm ? "SLURM_CPU_BIND=" : "MV2_CPU_MAPPING=";
    while (ein.next(line)) {
      line = trim(line);
      if (line.rfind(key, 0) != 0) continue;
      std::string_view value = line.substr(key.size());
      char sep = ':';
      if (format == LaunchFormat::slurm && value == "none") {
        each_task = true;
        continue;
      }
      if (format == LaunchFormat::slurm) {
        mask = value.rfind("mask_cpu:", 0) == 0;
        if (!mask && value.rfind("map_cpu:", 0) != 0) ein.fail("expected map_cpu:, mask_cpu: or none after " + key);
        value.remove_prefix(mask ? 9 : 8);
        sep = ',';
      }
      Fields f(value, std::string_view(&sep, 1));
      for (std::string_view item; f.next(item);) cpus.push_back(mask ? cpus_of_mask(item, ein) : std::string(item));
    }
  }
  const auto bind_path = std::filesystem::path(path.string() + ".bind");
  const Mapping bound = each_task && std::filesystem::exists(bind_path) ? read_task_cpus(bind_path, look) : Mapping{};
  LocalRankCpus binding(std::move(cpus), env_path, a);
  LineScanner in(text, path.string());
  Mapping m;
  std::string_view line;
  while (in.next(line)) {
    if (skip(line)) continue;
    const int node = look.node(trim(line), in);
    const std::size_t rank = m.size();
    if (!each_task || bound.ranks.empty()) {
      place(m, rank, {node, binding.slot(node, a, look, in)}, in);
      continue;
    }
    if (rank >= bound.size() || bound.ranks[rank].node < 0)
      in.fail("rank " + std::to_string(rank) + " has no line in " + bind_path.string());
    if (bound.ranks[rank].node != node)
      in.fail("rank " + std::to_string(rank) + " is on host '" + look.host(node) + "' here but on '" +
              look.host(bound.ranks[rank].node) + "' in " + bind_path.string());
    place(m, rank, bound.ranks[rank], in);
  }
  if (each_task && m.size() < bound.size())
    throw Error(bind_path.string(), 0,
                "binds " + std::to_string(bound.size()) + " ranks, but " + path.string() + " lists " +
                    std::to_string(m.size()));
  return m;
}

Mapping read_csv_mapping(std::string_view text, const std::string& source, const SlotLookup& look) {
  LineScanner in(text, source);
  std::string_view line;
  while (in.next(line) && skip(line)) {
  }
  if (trim(line) != "rank,host,socket,core,pu") in.fail("expected the header 'rank,host,socket,core,pu'");
  Mapping m;
  while (in.next(line)) {
    if (skip(line)) continue;
    std::vector<std::string_view> cells;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= line.size(); ++i)
      if (i == line.size() || line[i] == ',') {
        cells.push_back(trim(line.substr(start, i - start)));
        start = i + 1;
      }
    if (cells.size() != 5)
      in.fail("expected 5 fields 'rank,host,socket,core,pu', found " + std::to_string(cells.size()));
    const std::uint64_t rank = parse_count(cells[0], in, "a rank number");
    const int node = look.node(cells[1], in);
    const NodeType& type = look.type(node);
    const auto socket = parse_count(cells[2], in, "a socket number");
    if (socket >= static_cast<std::uint64_t>(type.packages))
      in.fail("socket " + std::to_string(socket) + " does not exist on host '" + look.host(node) + "' (" +
              std::to_string(type.packages) + " socket(s))");
    std::vector<int> pus;
    if (!cells[4].empty()) {
      pus = detail::parse_ranges(cells[4], ';', in, "PU numbers");
      for (int p : pus)
        if (p >= static_cast<int>(type.pus.size()))
          in.fail("PU " + std::to_string(p) + " does not exist on host '" + look.host(node) + "'");
    } else {
      for (int c : detail::parse_ranges(cells[3], ';', in, "core numbers")) {
        if (c >= type.cores) in.fail("core " + std::to_string(c) + " does not exist on host '" + look.host(node) + "'");
        pus.insert(pus.end(), type.core_pus[c].begin(), type.core_pus[c].end());
      }
    }
    if (type.pus[pus.front()].package != static_cast<int>(socket))
      in.fail("socket " + std::to_string(socket) + " does not hold those CPUs (they are in socket " +
              std::to_string(type.pus[pus.front()].package) + ")");
    place_numbered(m, rank, {node, look.slot(node, pus, in, std::string(line))}, in);
  }
  return m;
}

}  // namespace

Mapping read_launch_file(const std::filesystem::path& path, LaunchFormat format, const Machine& machine,
                         const Allocation& allocation) {
  const detail::MappedFile file(path);
  const std::string_view text = file.text();
  const SlotLookup look(machine, allocation);
  switch (format) {
    case LaunchFormat::openmpi: return read_openmpi(text, path.string(), allocation, look);
    case LaunchFormat::mpich: return read_mpich(text, path.string(), allocation, look);
    case LaunchFormat::slurm:
    case LaunchFormat::mvapich: return read_host_per_line(text, path, format, allocation, look);
    case LaunchFormat::intelmpi: return read_intelmpi(text, path, allocation, look);
    case LaunchFormat::csv: return read_csv_mapping(text, path.string(), look);
  }
  throw Error("unknown launch format", ErrorKind::internal);
}

}  // namespace rankmap
