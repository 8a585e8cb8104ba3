// The command lines `rankmap run` starts: the user's job split into its
// launcher and application, then the launcher's default run (to profile)
// and the mapped run with a launch file, in each launcher's own syntax.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "launcher_options.hpp"
#include "rankmap/launch.hpp"

namespace rankmap::cli {

struct JobCommand {
  Launcher launcher = Launcher::openmpi;
  std::string program;                   // "mpirun", "mpiexec.mpich", "srun"
  std::vector<std::string> options;      // the launcher's options as the user gave them
  std::vector<std::string> application;  // the program and its arguments
};

// Splits the words after `--`: a launcher (mpirun, mpiexec, srun and their
// Debian names) with its options and the application, or the application
// alone, for which the launcher is chosen: srun inside a Slurm job, else
// the launcher of `mpi` (openmpi or mpich). Throws an argument Error when
// the launcher's MPI cannot be told (`mpi` empty and a plain name).
JobCommand split_job_command(const std::vector<std::string>& command, const std::string& mpi, bool in_slurm);

// A command and what it adds to the environment.
struct CommandLine {
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> argv;
  std::vector<std::string> dropped = {};  // the user's placement options the launch file replaces
};

// The launcher's own placement of `ranks` ranks (for the profiling run).
// `hosts`, when not empty, are named with their slots (host:slots), for a
// launcher that would otherwise start every rank here.
CommandLine default_run(const JobCommand& job, std::size_t ranks,
                        const std::vector<std::pair<std::string, int>>& hosts);

// The run placed by `launch_file` (with `env_text`, its .env companion's
// NAME=VALUE lines, for srun): the user's options that would place ranks
// otherwise (-np, --map-by, --bind-to, -f, --distribution, ...) are left out.
CommandLine mapped_run(const JobCommand& job, std::size_t ranks, const std::string& launch_file,
                       const std::string& env_text);

// The launch file format and file name each launcher reads.
LaunchFormat launch_format_of(Launcher launcher);
std::string launch_file_name(Launcher launcher);

// The command as a shell would take it: NAME='value' ... argv, each word
// quoted where it needs to be.
std::string shell_line(const CommandLine& line);

}  // namespace rankmap::cli
