#include "launcher_options.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "job.hpp"
#include "rankmap/error.hpp"

namespace rankmap::cli {
namespace {

// A positive count, or 0.
int count_of(std::string_view text) {
  int v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && p == text.data() + text.size() && v > 0 ? v : 0;
}

// Calls `f` with each '|'-separated alias until it returns true.
template <typename F>
bool any_alias(std::string_view names, F f) {
  for (std::size_t at = 0; at <= names.size();) {
    const std::size_t end = std::min(names.find('|', at), names.size());
    if (f(names.substr(at, end - at))) return true;
    at = end + 1;
  }
  return false;
}

std::string_view without_dashes(std::string_view word) {
  while (word.starts_with('-')) word.remove_prefix(1);
  return word;
}

bool alias_matches(Launcher launcher, std::string_view option, std::string_view alias) {
  if (option == alias) return true;
  switch (launcher) {
    // Hydra strips an option's dashes, one or two.
    case Launcher::mpich: return option.starts_with('-') && without_dashes(option) == without_dashes(alias);
    // Open MPI takes a long option with one dash or two (-map-by, --map-by);
    // a one-letter option is only ever itself.
    case Launcher::openmpi:
      return option.starts_with('-') && without_dashes(alias).size() > 1 &&
             without_dashes(option) == without_dashes(alias);
    case Launcher::slurm: break;
  }
  return false;  // srun: getopt's exact names
}

// srun's "-n4": a one-letter option that takes a value, with it joined.
bool joined_short(Launcher launcher, const std::string& word) {
  if (launcher != Launcher::slurm || word.size() <= 2 || word[0] != '-' || word[1] == '-') return false;
  return launcher_option_values(launcher, word.substr(0, 2)) > 0;
}

// The words before `program` that are options, with their values skipped:
// calls f(index) on each option.
template <typename F>
void each_option(const std::vector<std::string>& command, std::size_t program, Launcher launcher, F f) {
  for (std::size_t i = 1; i < program; ++i) {
    f(i);
    if (command[i].find('=') == std::string::npos) i += launcher_option_values(launcher, command[i]);
  }
}

}  // namespace

Launcher launcher_of_command(const std::string& program) {
  if (std::filesystem::path(program).filename() == "srun") return Launcher::slurm;
  return launcher_mpi(program) == "mpich" ? Launcher::mpich : Launcher::openmpi;
}

std::string_view launcher_count_options(Launcher launcher) {
  // srun's -c is --cpus-per-task, mpirun's a rank count.
  return launcher == Launcher::openmpi ? "-c|-np|--np|-n|--n" : launcher == Launcher::mpich ? "-n|-np" : "-n|--ntasks";
}

std::string launcher_option_name(Launcher launcher, const std::string& word) {
  if (const std::size_t eq = word.find('='); eq != std::string::npos) return word.substr(0, eq);
  return joined_short(launcher, word) ? word.substr(0, 2) : word;
}

bool launcher_option_is(Launcher launcher, const std::string& option, std::string_view names) {
  return any_alias(names, [&](std::string_view alias) { return alias_matches(launcher, option, alias); });
}

std::size_t launcher_option_values(Launcher launcher, const std::string& option) {
  if (!option.starts_with('-') || option.find('=') != std::string::npos || joined_short(launcher, option)) return 0;
  for (const LauncherOption& o : launcher_option_table(launcher))
    if (launcher_option_is(launcher, option, o.names)) return o.values;
  return 0;
}

std::size_t launcher_program_index(const std::vector<std::string>& command) {
  if (command.empty()) return 0;
  const Launcher launcher = launcher_of_command(command[0]);
  for (std::size_t i = 1; i < command.size(); ++i) {
    if (!command[i].starts_with('-')) return i;
    if (command[i].find('=') == std::string::npos) i += launcher_option_values(launcher, command[i]);
  }
  return command.size();
}

std::size_t launcher_ranks(const std::vector<std::string>& command) {
  if (command.empty()) return 0;
  const Launcher launcher = launcher_of_command(command[0]);
  const std::string_view counts = launcher_count_options(launcher);
  const std::size_t program = launcher_program_index(command);
  std::size_t ranks = 0;
  each_option(command, program, launcher, [&](std::size_t i) {
    const std::string& word = command[i];
    const std::string name = launcher_option_name(launcher, word);
    // Joined ("--ntasks=4", "-n4") or the next word.
    const std::string value = name.size() < word.size() ? word.substr(name.size() + (word[name.size()] == '='))
                              : i + 1 < program         ? command[i + 1]
                                                        : "";
    if (!launcher_option_is(launcher, name, counts)) return;
    const int v = count_of(value);
    if (!v) throw Error(name, 0, "expected a positive count of ranks, got '" + value + "'");
    ranks = static_cast<std::size_t>(v);  // the last one given, as the launchers read them
  });
  return ranks;
}

std::optional<BatchAllocation> read_launcher_hosts(const std::vector<std::string>& command) {
  if (command.empty()) return std::nullopt;
  const Launcher launcher = launcher_of_command(command[0]);
  const std::string_view files = launcher == Launcher::openmpi
                                     ? "-hostfile|--hostfile|-machinefile|--machinefile|-default-hostfile"
                                     : "-f|-hostfile|-machinefile|-machine|-machines|-machinelist";
  const std::string_view lists = launcher == Launcher::openmpi ? "-H|-host|--host" : "-hosts|-hostlist";
  if (launcher == Launcher::slurm) return std::nullopt;  // srun's hosts are the job's
  const std::size_t program = launcher_program_index(command);
  std::optional<BatchAllocation> found;
  each_option(command, program, launcher, [&](std::size_t i) {
    const std::string& word = command[i];
    if (found || i + 1 >= program) return;
    if (launcher_option_is(launcher, word, files)) {
      found = read_host_file(command[i + 1]);
      found->source = word + " " + command[i + 1];
    } else if (launcher_option_is(launcher, word, lists)) {
      found = parse_host_slots(command[i + 1], word);
    }
  });
  return found;
}

}  // namespace rankmap::cli
