// Allocations from Slurm's and PBS's environments, host files and host
// lists with slots (rankmap/batch.hpp).
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string_view>
#include <unordered_map>

#include "core/text_scanner.hpp"
#include "rankmap/batch.hpp"
#include "rankmap/error.hpp"
#include "rankmap/hostlist.hpp"
#include "rankmap/io.hpp"

namespace rankmap {
namespace {

// More slots on one host than any node has: a typo.
constexpr int kMaxSlotsPerHost = 1 << 20;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// A positive count, or nothing.
std::optional<int> count_of(std::string_view text) {
  int v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v < 1 || v > kMaxSlotsPerHost) return std::nullopt;
  return v;
}

// A host name as launchers and DNS take them: letters, digits, '-', '.'
// and '_', starting with a letter or digit. A host file's "@/etc/hostname"
// is no host ("@file" is a hostlist argument's form, not a host's).
bool is_host_name(std::string_view host) {
  auto fits = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_';
  };
  return !host.empty() && fits(host.front()) && host.front() != '-' && host.front() != '.' && host.front() != '_' &&
         std::all_of(host.begin(), host.end(), fits);
}

// Hosts in order of first appearance, their slots added up.
class HostTally {
 public:
  void add(const std::string& host, int slots) {
    auto [it, fresh] = index_.try_emplace(host, hosts_.size());
    if (fresh) {
      hosts_.push_back(host);
      slots_.push_back(0);
    }
    slots_[it->second] = std::min(slots_[it->second] + slots, kMaxSlotsPerHost);
  }
  BatchAllocation result(const std::string& source) const {
    BatchAllocation a{source, hosts_, slots_, 0, 0, source, 0};
    for (int s : slots_) a.ranks_per_node = std::max(a.ranks_per_node, s), a.ranks += static_cast<std::size_t>(s);
    return a;
  }
  bool empty() const { return hosts_.empty(); }

 private:
  std::vector<std::string> hosts_;
  std::vector<int> slots_;
  std::unordered_map<std::string, std::size_t> index_;
};

std::optional<BatchAllocation> from_slurm(const Environment& env) {
  const char* name = "SLURM_JOB_NODELIST";
  const char* list = env(name);
  if (!list || !*list) list = env(name = "SLURM_NODELIST");
  if (!list || !*list) return std::nullopt;
  BatchAllocation a;
  a.source = name;
  a.hosts = expand_hostlist(list, name);
  a.slots.assign(a.hosts.size(), 0);
  const char* n = env("SLURM_NTASKS");
  if (n && *n) {
    const std::optional<int> v = count_of(n);
    if (!v) throw Error("SLURM_NTASKS", 0, "expected a positive count of tasks, got '" + std::string(n) + "'");
    a.ranks = static_cast<std::size_t>(*v);
  }
  // Slurm writes task counts for every job, but a job that asked for no
  // task count (sbatch -N2) gets its CPUs there: they are ranks only when
  // a count was asked (SLURM_NTASKS, SLURM_NTASKS_PER_NODE). Uneven counts
  // (salloc -n3 -N2: "2,1") then give each host its own.
  const char* per_node = env("SLURM_NTASKS_PER_NODE");
  if (const char* t = env("SLURM_TASKS_PER_NODE"); t && *t && ((n && *n) || (per_node && *per_node))) {
    const std::vector<int> per = expand_tasks_per_node(t, "SLURM_TASKS_PER_NODE");
    if (per.size() == a.hosts.size()) a.slots = per;
    a.ranks_per_node = *std::max_element(per.begin(), per.end());
    a.ranks_source = "SLURM_TASKS_PER_NODE";
  }
  if (per_node && *per_node) {
    const std::optional<int> v = count_of(per_node);
    if (!v) throw Error("SLURM_NTASKS_PER_NODE", 0, "expected a positive count, got '" + std::string(per_node) + "'");
    a.ranks_per_node = *v;
    a.ranks_source = "SLURM_NTASKS_PER_NODE";
  }
  if (const char* c = env("SLURM_CPUS_PER_TASK"); c && *c) {
    const std::optional<int> v = count_of(c);
    if (!v) throw Error("SLURM_CPUS_PER_TASK", 0, "expected a positive count of CPUs, got '" + std::string(c) + "'");
    a.cpus_per_task = *v;
  }
  return a;
}

std::optional<BatchAllocation> from_pbs(const Environment& env) {
  const char* path = env("PBS_NODEFILE");
  if (!path || !*path) return std::nullopt;
  std::string text;
  try {
    text = read_text_file(path);
  } catch (const Error& e) {
    throw Error("PBS_NODEFILE", 0, e.what(), e.kind());  // which variable named the file
  }
  HostTally tally;
  detail::LineScanner lines(text, path);
  for (std::string_view line; lines.next(line);) {
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    if (line.find_first_of(" \t") != std::string_view::npos)
      lines.fail("expected one host name a line, got '" + std::string(line) + "'");
    if (!is_host_name(line)) lines.fail("expected a host name, got '" + std::string(line) + "'");
    tally.add(std::string(line), 1);
  }
  if (tally.empty()) throw Error(path, 0, "names no host (PBS_NODEFILE: a host a line, once per slot)");
  return tally.result("PBS_NODEFILE " + std::string(path));
}

}  // namespace

BatchAllocation parse_host_slots(const std::string& value, const std::string& source) {
  HostTally tally;
  std::size_t at = 0;
  while (at <= value.size()) {
    // Commas split hosts, but not inside a hostlist's brackets.
    std::size_t end = at;
    for (int depth = 0; end < value.size() && (depth > 0 || value[end] != ','); ++end)
      depth += value[end] == '[' ? 1 : value[end] == ']' ? -1 : 0;
    const std::string_view item = trim(std::string_view(value).substr(at, end - at));
    at = end + 1;
    if (item.empty()) throw Error(source, 0, "expected host names separated by commas, got '" + value + "'");
    const std::size_t colon = item.rfind(':');
    int slots = 1;
    if (colon != std::string_view::npos) {
      const std::optional<int> v = count_of(item.substr(colon + 1));
      if (!v) throw Error(source, 0, "expected HOST or HOST:SLOTS, got '" + std::string(item) + "'");
      slots = *v;
    }
    for (const std::string& host : expand_hostlist(item.substr(0, colon), source)) {
      if (!is_host_name(host)) throw Error(source, 0, "expected a host name, got '" + host + "'");
      tally.add(host, slots);
    }
  }
  return tally.result(source + " " + value);
}

BatchAllocation read_host_file(const std::string& path) {
  const std::string text = read_text_file(path);
  HostTally tally;
  detail::LineScanner lines(text, path);
  for (std::string_view line; lines.next(line);) {
    detail::Fields words(line.substr(0, line.find('#')));
    std::string_view host;
    if (!words.next(host)) continue;
    int slots = 1;
    if (const std::size_t colon = host.find(':'); colon != std::string_view::npos) {
      const std::optional<int> v = count_of(host.substr(colon + 1));
      if (!v) lines.fail("expected HOST:SLOTS with a positive count, got '" + std::string(host) + "'");
      slots = *v, host = host.substr(0, colon);
    }
    for (std::string_view word; words.next(word);) {
      if (!word.starts_with("slots=")) continue;  // max_slots=, binding=, ... do not change where ranks go
      const std::optional<int> v = count_of(word.substr(6));
      if (!v) lines.fail("expected slots=N with a positive N, got '" + std::string(word) + "'");
      slots = *v;
    }
    if (!is_host_name(host)) lines.fail("expected a host name, got '" + std::string(host) + "'");
    tally.add(std::string(host), slots);
  }
  if (tally.empty()) throw Error(path, 0, "names no host (a host a line: 'host slots=N' or 'host:N')");
  return tally.result(path);
}

Environment process_environment() {
  return [](const char* name) { return static_cast<const char*>(std::getenv(name)); };
}

std::vector<int> expand_tasks_per_node(const std::string& text, const std::string& name) {
  std::vector<int> counts;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t end = std::min(text.find(',', at), text.size());
    const std::string_view item = std::string_view(text).substr(at, end - at);
    at = end + 1;
    int repeat = 1;
    std::string_view count = item;
    if (const std::size_t open = item.find("(x"); open != std::string_view::npos) {
      const std::optional<int> r =
          item.back() == ')' ? count_of(item.substr(open + 2, item.size() - open - 3)) : std::nullopt;
      if (!r) throw Error(name, 0, "expected counts like 4(x2),3, got '" + text + "'");
      repeat = *r, count = item.substr(0, open);
    }
    const std::optional<int> v = count_of(count);
    if (!v || counts.size() + static_cast<std::size_t>(repeat) > kMaxHostlistHosts)
      throw Error(name, 0, "expected counts like 4(x2),3, got '" + text + "'");
    counts.insert(counts.end(), static_cast<std::size_t>(repeat), *v);
  }
  return counts;
}

std::optional<BatchAllocation> read_batch_allocation(const Environment& env) {
  if (auto slurm = from_slurm(env)) return slurm;
  return from_pbs(env);
}

}  // namespace rankmap
