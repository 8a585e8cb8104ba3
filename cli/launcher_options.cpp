#include "launcher_options.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "rankmap/error.hpp"

namespace rankmap::cli {
namespace {

bool one_of(std::string_view word, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), word) != names.end();
}

// A positive count, or 0.
int count_of(std::string_view text) {
  int v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && p == text.data() + text.size() && v > 0 ? v : 0;
}

}  // namespace

std::size_t launcher_option_values(const std::string& option) {
  if (one_of(option, {"--mca", "-mca", "--gmca", "-gmca", "--omca", "-genv", "-env"})) return 2;
  // Open MPI's mpirun, MPICH's mpiexec and srun.
  return one_of(option, {"-np",
                         "-n",
                         "-c",
                         "--np",
                         "--n",
                         "-N",
                         "--npernode",
                         "-npernode",
                         "--map-by",
                         "-map-by",
                         "--bind-to",
                         "-bind-to",
                         "--rank-by",
                         "-x",
                         "--rankfile",
                         "-rf",
                         "--hostfile",
                         "-hostfile",
                         "--machinefile",
                         "-machinefile",
                         "-f",
                         "--host",
                         "-host",
                         "-H",
                         "-hosts",
                         "-launcher",
                         "-launcher-exec",
                         "-ppn",
                         "-wdir",
                         "--wdir",
                         "--prefix",
                         "--output-filename",
                         "-iface",
                         "--cpu-bind",
                         "--distribution",
                         "-m",
                         "--nodes",
                         "--ntasks",
                         "--ntasks-per-node",
                         "-w",
                         "--nodelist",
                         "--default-hostfile"})
             ? 1
             : 0;
}

std::size_t launcher_program_index(const std::vector<std::string>& command) {
  for (std::size_t i = 1; i < command.size(); ++i) {
    if (!command[i].starts_with('-')) return i;
    i += launcher_option_values(command[i]);
  }
  return command.size();
}

std::size_t launcher_ranks(const std::vector<std::string>& command) {
  const std::size_t program = launcher_program_index(command);
  for (std::size_t i = 1; i < program; ++i) {
    const std::string& word = command[i];
    for (std::string_view joined : {"--ntasks=", "--np=", "-np=", "--n="})
      if (word.starts_with(joined)) {
        if (const int v = count_of(std::string_view(word).substr(joined.size()))) return static_cast<std::size_t>(v);
        throw Error(std::string(joined.substr(0, joined.size() - 1)), 0,
                    "expected a positive count of ranks, got '" + word + "'");
      }
    if (one_of(word, {"-np", "-n", "--np", "-c", "--n", "--ntasks"}) && i + 1 < program) {
      if (const int v = count_of(command[i + 1])) return static_cast<std::size_t>(v);
      throw Error(word, 0, "expected a positive count of ranks, got '" + command[i + 1] + "'");
    }
    i += launcher_option_values(word);
  }
  return 0;
}

std::optional<BatchAllocation> read_launcher_hosts(const std::vector<std::string>& command) {
  const std::size_t program = launcher_program_index(command);
  for (std::size_t i = 1; i + 1 < program; ++i) {
    const std::string& word = command[i];
    if (one_of(word, {"--hostfile", "-hostfile", "--machinefile", "-machinefile", "-f", "--default-hostfile"})) {
      BatchAllocation a = read_host_file(command[i + 1]);
      a.source = word + " " + command[i + 1];
      return a;
    }
    if (one_of(word, {"--host", "-host", "-H", "-hosts"})) return parse_host_slots(command[i + 1], word);
    i += launcher_option_values(word);
  }
  return std::nullopt;
}

}  // namespace rankmap::cli
