// The nodes a batch system (or a launcher's host file) gave the job, read
// where the job runs, so that no command asks for them again.
//
//   Slurm   SLURM_JOB_NODELIST (a hostlist; SLURM_NODELIST in old
//           versions); ranks per node from SLURM_NTASKS_PER_NODE, else,
//           when SLURM_NTASKS is set, the most of SLURM_TASKS_PER_NODE
//           ("4(x2),3"); ranks from SLURM_NTASKS.
//   PBS     PBS_NODEFILE: a host a line, repeated once per slot; the
//           hosts in order of first appearance, ranks per node the most
//           lines of one host, ranks the lines.
//   Open MPI, after the launcher's name: --hostfile/--machinefile/-hostfile
//           FILE ("host slots=N", '#' comments) or --host/-H "a,b:2"
//           (host:slots); -np/-n N.
//   MPICH   -f/-machinefile FILE ("host:N") or -hosts "a,b:2"; -n/-np N.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rankmap {

struct BatchAllocation {
  std::string source;              // where it was read: "SLURM_JOB_NODELIST", "PBS_NODEFILE /path", "--hostfile F"
  std::vector<std::string> hosts;  // in the order the batch system gave them, each once
  std::vector<int> slots;          // per host, the ranks it takes when the source says (else 0)
  int ranks_per_node = 0;          // 0: the source does not say
  std::size_t ranks = 0;           // 0: the source does not say
};

// An environment lookup: the value of a variable, or nullptr when unset.
using Environment = std::function<const char*(const char*)>;
// The process's own environment (getenv).
Environment process_environment();

// The allocation of the batch job this process runs in (Slurm, then PBS),
// or nothing outside one. Throws an input Error naming the variable (or
// PBS_NODEFILE's path and line) when it is set but malformed.
std::optional<BatchAllocation> read_batch_allocation(const Environment& env);

// The hosts a launcher's command line names (`command[0]` is the launcher;
// options are read up to the program), or nothing when it names none.
// Throws an input Error naming the host file and line, or the option.
std::optional<BatchAllocation> read_launcher_hosts(const std::vector<std::string>& command);

// The ranks a launcher's command line asks for (-np/-n N), or 0.
std::size_t launcher_ranks(const std::vector<std::string>& command);

// Where the program starts in a launcher's command line: the first word
// after command[0] that is neither an option nor an option's value
// (command.size() when there is none).
std::size_t launcher_program_index(const std::vector<std::string>& command);

// How many of the next words an option of mpirun, mpiexec or srun takes as
// its values: 1 for "-np" and "--host", 2 for "--mca KEY VALUE" and
// "-genv NAME VALUE", 0 for flags and "--ntasks=4".
std::size_t launcher_option_values(const std::string& option);

// Slurm's task counts per node: "4(x2),3" -> {4, 4, 3}. Throws an input
// Error about `name` when malformed.
std::vector<int> expand_tasks_per_node(const std::string& text, const std::string& name);

}  // namespace rankmap
