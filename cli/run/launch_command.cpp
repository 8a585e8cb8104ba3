#include "launch_command.hpp"

#include <algorithm>
#include <filesystem>
#include <string_view>

#include "job.hpp"
#include "launcher_options.hpp"
#include "rankmap/batch.hpp"
#include "rankmap/error.hpp"

namespace rankmap::cli {
namespace {

bool one_of(std::string_view word, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), word) != names.end();
}

// The launcher a program name is, by its file name (mpirun, mpiexec.hydra,
// /usr/bin/srun), or nothing.
bool is_launcher(const std::string& program) {
  const std::string name = std::filesystem::path(program).filename().string();
  return one_of(name, {"mpirun", "mpiexec", "orterun", "prterun", "mpirun.openmpi", "mpiexec.openmpi", "mpirun.mpich",
                       "mpiexec.mpich", "mpiexec.hydra", "srun"});
}

// The launcher of an MPI on this machine: Debian's suffixed name when it
// is there (mpirun may be the other MPI's through alternatives).
std::string launcher_of(const std::string& mpi) {
  const std::string suffixed = mpi == "openmpi" ? "mpirun.openmpi" : "mpiexec.mpich";
  return resolve(suffixed) != suffixed ? suffixed : mpi == "openmpi" ? "mpirun" : "mpiexec";
}

// The user's options without those among `names` ('|'-separated aliases)
// and their values; each option's values go with it, and `dropped`, when
// given, gets those left out.
std::vector<std::string> without(const std::vector<std::string>& options, Launcher launcher, std::string_view names,
                                 std::vector<std::string>* dropped = nullptr) {
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < options.size(); ++i) {
    const std::string& word = options[i];
    const std::size_t values = launcher_option_values(launcher, word);  // 0 for joined forms
    const bool keep = !launcher_option_is(launcher, launcher_option_name(launcher, word), names);
    std::vector<std::string>* into = keep ? &kept : dropped;
    if (into)
      for (std::size_t k = 0; k <= values && i + k < options.size(); ++k) into->push_back(options[i + k]);
    i += values;
  }
  return kept;
}

// Without the rank count: rankmap gives it.
std::vector<std::string> without_count(const std::vector<std::string>& options, Launcher launcher) {
  return without(options, launcher, launcher_count_options(launcher));
}

// Without what places ranks otherwise: the launch file places them now.
// `dropped` gets the options left out (the rank count is rankmap's own).
std::vector<std::string> without_placement(const std::vector<std::string>& options, Launcher launcher,
                                           std::vector<std::string>* dropped) {
  switch (launcher) {
    case Launcher::openmpi:
      return without(without_count(options, launcher), launcher,
                     "-rf|--rankfile|--map-by|--bind-to|--rank-by|-N|-npernode|--npernode|-npersocket|--npersocket|"
                     "--ppr|-pernode|--pernode|-bynode|--bynode|-byslot|--byslot|-bycore|--bycore|-bind-to-core|"
                     "--bind-to-core|-bind-to-socket|--bind-to-socket|-cpus-per-proc|--cpus-per-proc|"
                     "-cpus-per-rank|--cpus-per-rank|-cpu-list|--cpu-list|-cpu-set|--cpu-set",
                     dropped);
    case Launcher::mpich:
      // The machinefile takes the place of every host file or list (Hydra
      // refuses two).
      return without(without_count(options, launcher), launcher,
                     "-f|-hostfile|-machinefile|-machine|-machines|-machinelist|-hosts|-hostlist|-bind-to|-map-by|"
                     "-ppn",
                     dropped);
    case Launcher::slurm: break;
  }
  return without(without_count(options, launcher), launcher,
                 "-m|--distribution|--cpu-bind|--cpu_bind|-w|--nodelist|--ntasks-per-node", dropped);
}

std::string value_of(const std::string& env_text, const std::string& name) {
  for (std::size_t at = 0; at < env_text.size();) {
    const std::size_t end = std::min(env_text.find('\n', at), env_text.size());
    const std::string_view line = std::string_view(env_text).substr(at, end - at);
    if (line.starts_with(name + "=")) return std::string(line.substr(name.size() + 1));
    at = end + 1;
  }
  return "";
}

std::vector<std::string> joined(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

JobCommand split_job_command(const std::vector<std::string>& command, const std::string& mpi, bool in_slurm) {
  if (command.empty())
    throw Error(ErrorKind::argument, Parameter{"command"},
                "expected the job after '--', e.g. -- ./app or -- mpirun ./app");
  JobCommand job;
  if (is_launcher(command[0])) {
    const std::size_t program = launcher_program_index(command);
    if (program == command.size())
      throw Error(ErrorKind::argument, Parameter{"command"},
                  "'" + command[0] + "' is given no program to launch, e.g. -- " + command[0] + " ./app");
    job.program = command[0];
    job.options.assign(command.begin() + 1, command.begin() + static_cast<std::ptrdiff_t>(program));
    job.application.assign(command.begin() + static_cast<std::ptrdiff_t>(program), command.end());
    if (std::filesystem::path(command[0]).filename() == "srun") {
      job.launcher = Launcher::slurm;
      return job;
    }
    std::string which = launcher_mpi(command[0]);
    if (which.empty()) which = mpi;
    if (which.empty())
      throw Error(ErrorKind::argument, Parameter{"mpi"},
                  "cannot tell which MPI '" + command[0] + "' is; pass --mpi openmpi or --mpi mpich");
    job.launcher = which == "openmpi" ? Launcher::openmpi : Launcher::mpich;
    return job;
  }
  job.application = command;
  if (in_slurm) {
    job.launcher = Launcher::slurm;
    job.program = "srun";
    return job;
  }
  if (mpi.empty())
    throw Error(ErrorKind::argument, Parameter{"mpi"},
                "cannot tell which MPI '" + command[0] +
                    "' links; name the launcher (-- mpirun ./app) or pass --mpi openmpi or --mpi mpich");
  job.launcher = mpi == "openmpi" ? Launcher::openmpi : Launcher::mpich;
  job.program = launcher_of(mpi);
  return job;
}

CommandLine default_run(const JobCommand& job, std::size_t ranks,
                        const std::vector<std::pair<std::string, int>>& hosts) {
  std::string list;
  for (const auto& [host, slots] : hosts) list += (list.empty() ? "" : ",") + host + ":" + std::to_string(slots);
  // The run the user would have made: their options but the rank count,
  // and the hosts when neither they nor a batch job name any.
  CommandLine line;
  line.argv = joined({job.program}, without_count(job.options, job.launcher));
  const bool own_hosts = read_launcher_hosts(joined({job.program}, job.options)).has_value();
  const std::string n = std::to_string(ranks);
  switch (job.launcher) {
    case Launcher::openmpi:
      line.argv.insert(line.argv.end(), {"-np", n});
      if (!list.empty() && !own_hosts) line.argv.insert(line.argv.end(), {"--host", list});
      break;
    case Launcher::mpich:
      line.argv.insert(line.argv.end(), {"-n", n});
      if (!list.empty() && !own_hosts) line.argv.insert(line.argv.end(), {"-hosts", list});
      break;
    case Launcher::slurm: line.argv.insert(line.argv.end(), {"-n", n}); break;
  }
  line.argv = joined(line.argv, job.application);
  return line;
}

CommandLine mapped_run(const JobCommand& job, std::size_t ranks, const std::string& launch_file,
                       const std::string& env_text) {
  CommandLine line;
  // The launch file's CPUs a rank (--cpus-per-rank) replace the user's own.
  const std::string cpus = value_of(env_text, "SRUN_CPUS_PER_TASK");
  const std::vector<std::string> placed = without_placement(job.options, job.launcher, &line.dropped);
  line.argv =
      joined({job.program}, cpus.empty() ? placed : without(placed, job.launcher, "-c|--cpus-per-task", &line.dropped));
  const std::string n = std::to_string(ranks);
  switch (job.launcher) {
    case Launcher::openmpi: line.argv.insert(line.argv.end(), {"-np", n, "--rankfile", launch_file}); break;
    case Launcher::mpich:
      // The machinefile's binding=user: lists bind each host's ranks.
      line.argv.insert(line.argv.end(), {"-f", launch_file, "-n", n});
      break;
    case Launcher::slurm:
      line.env.emplace_back("SLURM_HOSTFILE", launch_file);
      line.argv.insert(line.argv.end(),
                       {"-n", n, "--distribution=arbitrary", "--cpu-bind=" + value_of(env_text, "SLURM_CPU_BIND")});
      if (!cpus.empty()) line.argv.push_back("--cpus-per-task=" + cpus);
      break;
  }
  line.argv = joined(line.argv, job.application);
  return line;
}

LaunchFormat launch_format_of(Launcher launcher) {
  return launcher == Launcher::openmpi ? LaunchFormat::openmpi
         : launcher == Launcher::mpich ? LaunchFormat::mpich
                                       : LaunchFormat::slurm;
}

std::string launch_file_name(Launcher launcher) {
  return launcher == Launcher::openmpi ? "rankfile" : launcher == Launcher::mpich ? "machinefile" : "hostfile";
}

std::string shell_line(const CommandLine& line) {
  auto quoted = [](const std::string& word) {
    if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                "_-./:=,+@%") == std::string::npos)
      return word;
    std::string q = "'";
    for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  std::string text;
  for (const auto& [name, value] : line.env) text += name + "=" + quoted(value) + " ";
  for (std::size_t i = 0; i < line.argv.size(); ++i) text += (i ? " " : "") + quoted(line.argv[i]);
  return text;
}

}  // namespace rankmap::cli
