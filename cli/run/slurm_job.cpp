#include "slurm_job.hpp"

#include <stdio.h>

#include <algorithm>
#include <charconv>
#include <sstream>
#include <string_view>

#include "rankmap/error.hpp"
#include "rankmap/hostlist.hpp"

namespace rankmap::cli {
namespace {

// The value of "KEY=" in a line of space-separated KEY=VALUE words.
std::string_view value_of(std::string_view line, std::string_view key) {
  for (std::size_t at = 0; at < line.size();) {
    while (at < line.size() && line[at] == ' ') ++at;
    const std::size_t end = std::min(line.find(' ', at), line.size());
    const std::string_view word = line.substr(at, end - at);
    if (word.size() > key.size() && word.substr(0, key.size()) == key && word[key.size()] == '=')
      return word.substr(key.size() + 1);
    at = end;
  }
  return {};
}

}  // namespace

bool parse_cpu_list(std::string_view text, std::vector<unsigned>& cpus) {
  constexpr unsigned kMostCpus = 1u << 20;  // no node has more: a longer list is not Slurm's
  auto number = [](std::string_view s, unsigned& v) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
  };
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t end = std::min(text.find(',', at), text.size());
    const std::string_view item = text.substr(at, end - at);
    const std::size_t dash = item.find('-');
    unsigned first = 0, last = 0;
    if (!number(item.substr(0, dash), first)) return false;
    last = first;
    if (dash != std::string_view::npos && !number(item.substr(dash + 1), last)) return false;
    if (last < first || last >= kMostCpus || cpus.size() + (last - first) >= kMostCpus) return false;
    for (unsigned c = first; c <= last; ++c) cpus.push_back(c);
    at = end + 1;
  }
  return true;
}

std::map<std::string, std::vector<unsigned>> parse_scontrol_cpu_ids(const std::string& text) {
  std::map<std::string, std::vector<unsigned>> held;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::string_view nodes = value_of(line, "Nodes"), ids = value_of(line, "CPU_IDs");
    if (nodes.empty() || ids.empty()) continue;
    std::vector<unsigned> cpus;
    if (!parse_cpu_list(ids, cpus)) continue;
    try {
      for (const std::string& host : expand_hostlist(std::string(nodes), "scontrol")) held[host] = cpus;
    } catch (const Error&) {
    }
  }
  return held;
}

std::map<std::string, std::vector<unsigned>> slurm_job_cpus(const std::string& job_id) {
  if (job_id.empty() || job_id.size() > 20 ||
      !std::all_of(job_id.begin(), job_id.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return {};
  // A controller that does not answer must not hold the job: timeout(1).
  FILE* out = ::popen(("timeout 10 scontrol show job -d " + job_id + " 2>/dev/null").c_str(), "r");
  if (!out) return {};
  std::string text;
  char buffer[4096];
  for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, out)) > 0 && text.size() < (64u << 20);)
    text.append(buffer, got);
  return ::pclose(out) == 0 ? parse_scontrol_cpu_ids(text) : std::map<std::string, std::vector<unsigned>>{};
}

}  // namespace rankmap::cli
