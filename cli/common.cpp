#include "common.hpp"

#include <cstdio>

namespace rankmap::cli {

void MachineOptions::add_to(CLI::App& cmd, bool required) {
  cmd.add_option("--machine,-m", machine, "Machine description (TOML)")->required(required);
  cmd.add_option("--nodes", nodes,
                 "Allocated nodes: a Slurm hostlist (node[00-07,12]) or @file, one host per line "
                 "(default: every node)");
  cmd.add_option("--ppn", ppn, "Ranks per node (default: one per core, or per PU with --hwthreads)")
      ->check(CLI::PositiveNumber);
  cmd.add_flag("--hwthreads", hwthreads, "Slots are hardware threads (PUs) rather than cores");
}

LoadedMachine load(const MachineOptions& o) {
  LoadedMachine l{load_machine(o.machine), {}};
  AllocationOptions a;
  if (!o.nodes.empty()) a.hosts = read_nodes_argument(o.nodes);
  a.ppn = o.ppn;
  a.hwthreads = o.hwthreads;
  l.allocation = make_allocation(l.machine, a);
  return l;
}

void Progress::done(const std::string& what) {
  const auto now = Clock::now();
  const double stage = std::chrono::duration<double>(now - stage_).count();
  stage_ = now;
  if (!quiet_ && (stage >= 1.0 || verbose_))
    std::fprintf(stderr, "rankmap: %s (%.1f s)\n", what.c_str(), stage);
}

double Progress::seconds_since_start() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

}  // namespace rankmap::cli
