// Renumbering the processes of a running job's communicator by the
// machine: what MPI's topology calls may do when asked with reorder = 1
// (MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create*). The
// processes stay where they run; only which one gets which rank of the new
// communicator changes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rankmap/context.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/mapping.hpp"

namespace rankmap {

// The traffic of a Cartesian topology: each pair of grid neighbours
// (periods[d]: dimension d wraps) exchanges one byte in one message each
// way, as a halo unit does (two in a periodic dimension of 2, where the
// neighbour is on both sides); ranks in row-major order, as MPI_Cart_rank
// numbers them (the last dimension fastest). Throws an argument Error for
// no dimension, a size below 1 or more than 2^31 ranks.
Graph cartesian_graph(const std::vector<int>& dims, const std::vector<char>& periods);

// Where a process runs: its node (a position in the allocation) and the
// first OS CPU of its binding, or -1 when it is not bound (node level).
struct ProcessPlace {
  int node = -1;
  int cpu = -1;
};

struct Reordering {
  // New rank r is process process_of_rank[r] (its rank in the old
  // communicator).
  std::vector<std::uint32_t> process_of_rank;
  bool identity = true;                  // the old order was kept
  std::uint64_t hop_bytes = 0;           // the topology's hop-bytes in the chosen order
  std::uint64_t identity_hop_bytes = 0;  // ... and in the old order
  std::string why;                       // when the identity was kept: why
};

// The engine's mapping of `topology` onto exactly the places the processes
// occupy (as many ranks on a node as it has processes, stand-in ranks
// filling nodes with fewer; inside a node, the engine's slot order onto
// the processes by CPU), kept only when its
// hop-bytes are below the identity's. Deterministic: every process that
// calls it with the same arguments gets the same answer. Throws an argument
// Error when the counts disagree or a place is not in the allocation.
Reordering reorder_processes(const Graph& topology, const Machine& machine, const Allocation& allocation,
                             const std::vector<ProcessPlace>& places, const Context& context);

}  // namespace rankmap
