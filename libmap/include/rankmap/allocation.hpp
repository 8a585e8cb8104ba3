// The nodes the scheduler gave a job, and the slots (places for one rank)
// on each of them.
#pragma once

#include <string>
#include <vector>

#include "rankmap/machine.hpp"

namespace rankmap {

// A place for one rank: a set of PUs of one node. Without `hwthreads` a
// slot is one core (or, with `ppn` below the core count, a block of
// consecutive cores); with `hwthreads` it is one PU (or a block of PUs).
// With `cpus_per_rank` N, a slot is N cores (N PUs with `hwthreads`) for a
// rank's threads, inside one package wherever N fits in one.
struct Slot {
  std::vector<int> pus;  // indices in NodeType::pus, ascending
  int package = 0;       // package of the first PU
};

// Where a host was given: a nodes @file and its line (line 0 and an
// empty file: on the command line).
struct HostOrigin {
  std::string file;
  std::size_t line = 0;
};

struct AllocationOptions {
  std::vector<std::string> hosts;        // empty: every node of the machine
  int ppn = 0;                           // ranks per node; 0: one per core (or PU)
  bool hwthreads = false;                // slots are PUs rather than cores
  std::vector<HostOrigin> origins = {};  // per host, for messages; empty: the hostlist itself
  int cpus_per_rank = 0;                 // cores (PUs) each rank's slot holds; 0: ppn's balanced blocks
  // Per host of `hosts` (a batch job that shares nodes, or gives them
  // uneven task counts): the CPUs (OS numbers) the job holds there, empty
  // for all; and the ranks it takes, 0 for ppn. Slots are made of held
  // units only (cores all of whose PUs are held; held PUs when no core is
  // whole), so that nothing binds outside the job.
  std::vector<std::vector<unsigned>> held_cpus = {};
  std::vector<int> ranks_per_host = {};
  // Where ppn and ranks_per_host came from when a batch job gave them
  // ("PBS_NODEFILE /path", "SLURM_TASKS_PER_NODE"): a count that does not
  // fit is blamed on it rather than on the ranks_per_node parameter.
  std::string counts_source = {};
};

struct Allocation {
  std::vector<int> nodes;                  // machine node indices, in order given
  std::vector<int> layout_of;              // per allocated node: index in layouts
  std::vector<std::vector<Slot>> layouts;  // distinct slot layouts
  bool hwthreads = false;
  int cpus_per_rank = 0;  // as asked; 0: not asked

  std::size_t size() const { return nodes.size(); }
  const std::vector<Slot>& slots(std::size_t k) const { return layouts[layout_of[k]]; }
  std::size_t total_slots() const;
  // Position of a machine node in `nodes`, or -1.
  int position_of(int machine_node) const;

 private:
  friend Allocation make_allocation(const Machine&, const AllocationOptions&);
  std::vector<int> position_;  // machine node -> position, or -1
};

// Throws an input Error about Parameter "nodes" (or the host's @file and
// line) for an unknown or repeated host, and a fit Error about
// "ranks_per_node" when ppn exceeds a node's cores (or PUs), or about
// "cpus_per_rank" when ppn blocks of cpus_per_rank do not fit a node.
// Without ppn, cpus_per_rank gives each node as many blocks as fit.
Allocation make_allocation(const Machine& machine, const AllocationOptions& options);

// Reads a "nodes" value: a hostlist, or "@file" with one host (or
// hostlist) per line; '#' starts a comment. `origins`, when given, gets
// each host's file and line (for make_allocation's messages).
std::vector<std::string> read_nodes_argument(const std::string& value, std::vector<HostOrigin>* origins = nullptr);

}  // namespace rankmap
