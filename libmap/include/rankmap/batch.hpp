// The nodes a batch system gave the job, read where the job runs, so that
// no command asks for them again.
//
//   Slurm   SLURM_JOB_NODELIST (a hostlist; SLURM_NODELIST in old
//           versions); ranks per node from SLURM_NTASKS_PER_NODE, else
//           the most of SLURM_TASKS_PER_NODE ("4(x2),3"), each host its
//           own, when the job asked for a task count (SLURM_NTASKS or
//           SLURM_NTASKS_PER_NODE: without one, Slurm counts CPUs there);
//           ranks from SLURM_NTASKS; CPUs a task from SLURM_CPUS_PER_TASK.
//   PBS     PBS_NODEFILE: a host a line, repeated once per slot; the
//           hosts in order of first appearance, ranks per node the most
//           lines of one host, ranks the lines.
// and, for the hosts a launcher is given (the CLI reads its options), the
// MPIs' host files and host lists with slots.
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
  std::string ranks_source;        // the variable ranks per node came from ("SLURM_NTASKS_PER_NODE"), or `source`
  int cpus_per_task = 0;           // SLURM_CPUS_PER_TASK; 0: not set
};

// An environment lookup: the value of a variable, or nullptr when unset.
using Environment = std::function<const char*(const char*)>;
// The process's own environment (getenv).
Environment process_environment();

// The allocation of the batch job this process runs in (Slurm, then PBS),
// or nothing outside one. Throws an input Error naming the variable (or
// PBS_NODEFILE's path and line) when it is set but malformed or, for a
// file, cannot be read.
std::optional<BatchAllocation> read_batch_allocation(const Environment& env);

// A host file as the MPIs read them: Open MPI's "host slots=N
// max_slots=M" and MPICH's "host:N" lines, '#' comments; a host named on
// several lines adds up its slots. Throws an input Error naming the file
// and line.
BatchAllocation read_host_file(const std::string& path);

// A comma list of hosts (or hostlists) with optional slots, "a,b:2,c[1-2]"
// (Open MPI's --host, MPICH's -hosts). Throws an input Error about `source`.
BatchAllocation parse_host_slots(const std::string& value, const std::string& source);

// Slurm's task counts per node: "4(x2),3" -> {4, 4, 3}. Throws an input
// Error about `name` when malformed.
std::vector<int> expand_tasks_per_node(const std::string& text, const std::string& name);

}  // namespace rankmap
