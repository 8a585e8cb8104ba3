// rankmap bind-task FILE -- PROGRAM ARGS: run by srun in each task of a
// `rankmap run` inside Slurm whose nodes differ (the CPUs the job holds
// there, their task counts, or the mapping's own placement), where srun's
// one --cpu-bind list for every node cannot bind each task. It binds this
// task (SLURM_PROCID) to the CPUs FILE gives its rank, then becomes the
// program (execvp). It never fails the task for the binding: a line it
// cannot read, another host, or CPUs the task may not use keep Slurm's
// binding, and one line on stderr says why.
//
// FILE: one line a rank, "RANK HOST CPUS" (CPUS: the OS's CPU numbers,
// "0-3,8").
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "rankmap/error.hpp"
#include "slurm_job.hpp"

namespace rankmap::cli {
namespace {

struct BindTaskOptions {
  std::string file;
  std::vector<std::string> command;
};

bool number(std::string_view text, long& v) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

// CPUS as a set; false when it does not read or names a CPU past the set.
bool parse_cpus(std::string_view text, cpu_set_t& set) {
  std::vector<unsigned> cpus;
  if (!parse_cpu_list(text, cpus) || cpus.empty()) return false;
  CPU_ZERO(&set);
  for (unsigned c : cpus) {
    if (c >= CPU_SETSIZE) return false;
    CPU_SET(c, &set);
  }
  return true;
}

// Binds this task, or says why not (empty: bound).
std::string bind_this_task(const std::string& file) {
  const char* procid = std::getenv("SLURM_PROCID");
  long rank = -1;
  if (!procid || !number(procid, rank)) return "no SLURM_PROCID: not a task of srun";
  std::ifstream in(file);
  if (!in) return file + ": cannot open";
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string rank_word, host, cpus;
    long r = -1;
    if (!(words >> rank_word >> host >> cpus) || !number(rank_word, r) || r != rank) continue;
    const char* here = std::getenv("SLURMD_NODENAME");
    if (here && *here && host != here)
      return "rank " + std::to_string(rank) + " is mapped to " + host + " but runs on " + here;
    cpu_set_t want, allowed;
    if (!parse_cpus(cpus, want)) return file + ": rank " + std::to_string(rank) + ": expected CPUs like 0-3,8";
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
      return std::string("sched_getaffinity: ") + strerror(errno);
    cpu_set_t outside;
    CPU_XOR(&outside, &want, &allowed);
    CPU_AND(&outside, &outside, &want);
    if (CPU_COUNT(&outside) > 0) return "CPUs " + cpus + " are not all the job's on this node";
    if (sched_setaffinity(0, sizeof want, &want) != 0) return std::string("sched_setaffinity: ") + strerror(errno);
    return "";
  }
  return file + " has no line for rank " + std::to_string(rank);
}

int run_bind_task(const BindTaskOptions& o) {
  if (const std::string why = bind_this_task(o.file); !why.empty())
    std::cerr << "rankmap bind-task: " << why << "; the task keeps Slurm's binding\n";
  std::vector<char*> argv;
  for (const std::string& word : o.command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  throw Error(o.command[0], 0, std::string("cannot be run: ") + strerror(errno), ErrorKind::io);
}

}  // namespace

void add_bind_task(Command& app, Action& action) {
  auto o = std::make_shared<BindTaskOptions>();
  Command cmd = app.subcommand(
      "bind-task", "Bind this srun task where FILE maps its rank, then run the program (rankmap run uses it in Slurm)");
  cmd.option("file", o->file, "One line a rank: RANK HOST CPUS (the OS's CPU numbers, 0-3,8)").required();
  cmd.option("command", o->command, "The program and its arguments, after '--'").required();
  cmd.footer("Example: srun -n 4 rankmap bind-task bind.txt -- ./app");
  cmd.on_chosen([o, &action] { action = [o] { return run_bind_task(*o); }; });
}

}  // namespace rankmap::cli
