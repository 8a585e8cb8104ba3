// rankmap::map: the mapping engine (docs/design.md, "The engine").
//  1. Between nodes: partition the ranks into one part per node, each the
//     size of its node's slots (METIS k-way, recursive bisection with the
//     torus, or Scotch).
//  2. Onto the torus: place the parts on nodes from several starts, improve
//     the best by swaps on hop-bytes, then on the most loaded link.
//  3. Inside each node: split its ranks over packages and cores, heaviest
//     pairs closest.
// Grids (in rank order or renumbered) are also laid out box by box, and the
// launcher's block mapping is always a candidate.
// Pure: the same inputs and Context give the same Mapping.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "rankmap/context.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/mapping.hpp"
#include "rankmap/profile.hpp"

namespace rankmap {

// Called between stages with a short description; may be empty.
using StageCallback = std::function<void(std::string_view stage)>;

// A profile's traffic kinds apart, for the flow model (gain.hpp) that the
// engine weighs candidates with: point-to-point (and one-sided) traffic and
// collective traffic. p2p null or empty (0 ranks): no profile, nothing
// timed. collective null or empty: none. calls: the profile's call records
// (profile.hpp) when complete, else null.
struct TrafficKinds {
  const Graph* p2p = nullptr;
  const Graph* collective = nullptr;
  const std::vector<CollectiveCalls>* calls = nullptr;
  // The run's share of time in MPI, when known: a pipeline's compute time
  // between stages, and the exchange programs' between iterations, are
  // solved from it (gain.hpp, pipeline_times, exchange_program_times).
  std::optional<double> p_mpi;
};

// Throws Error when the ranks do not fit the allocation (unless
// context.oversubscribe) or the graph is unusable. Never worse than the
// launcher's block mapping (when the ranks fit the slots), in every preset:
// never more hop-bytes; or, when `kinds` holds a profile's traffic that
// the flow model can time (link_gbps set, at most kEngineFlowPairs
// communicating pairs; one-way pipeline traffic by the pipeline model,
// with the compute time p_mpi gives, else none; exchanges with
// collectives only around the loop, when p_mpi is known, by the program
// model, then the program search), never a longer predicted
// time (gain.hpp, flow_times, pipeline_times, exchange_program_times): the mapping written is one
// the model predicts fastest of every candidate it
// timed (block, a spread over every allocated node and, on a dragonfly,
// ranks dealt over each group's routers among them), with
// hop-bytes deciding between equal times. With a profile's traffic the
// flow model cannot time, never a longer mean message time (the report's
// "messages" model): a candidate with fewer hop-bytes but more hops a
// message is out.
Mapping map(const Graph& graph, const Machine& machine, const Allocation& allocation, const Context& context,
            const StageCallback& on_stage = {}, const TrafficKinds& kinds = {});
// The flow model's work budget bounds each candidate's timing to about two
// seconds; a 64-rank LAMMPS profile takes 0.1 s a candidate.
inline constexpr std::size_t kEngineFlowPairs = std::size_t{1} << 14;

// The same mapping, with which candidate it is and, when it is block's,
// why the engine's own were not kept.
struct MapResult {
  Mapping mapping;
  std::string kept;  // "Cartesian", "METIS k-way", "recursive bisection on block's nodes", ..., "block"
  std::string why;   // one line when kept == "block", else empty
  // When the mapping uses another number of nodes than block: why (the
  // flow model's times, or the hop-bytes), else empty.
  std::string nodes_why;
  // The flow model's times of `mapping` and of block, when the engine timed
  // them to the end (a profile's traffic), else not computed. The model
  // sees each rank's node only: they hold for any mapping on the same nodes
  // (same_nodes), so a report need not run the model on them again.
  FlowTimes mapping_flow{}, block_flow{};
  // The program model's times of `mapping` and of block, with the compute
  // it solved from the p_mpi given, when the engine ranked its candidates
  // by that model (exchanges_as_programs), else not computed: what
  // exchange_program_times() gives for them.
  ExchangeProgramTimes program{};
};
// Inside nodes only, for a layout fixed elsewhere (srun's, when a
// scheduler plugin may bind tasks but not move them): node_of_rank[r] is
// rank r's node (an allocation position). Each node's ranks go on its
// slots as the engine's stage 3 puts them, heaviest pairs closest; kept
// only when it splits fewer bytes across sockets than the ranks in order
// on the slots in order (the launcher's binding), else that. Throws an
// argument Error when a node gets more ranks than slots.
Mapping map_within_nodes(const Graph& graph, const Machine& machine, const Allocation& allocation,
                         const std::vector<int>& node_of_rank);

MapResult map_explained(const Graph& graph, const Machine& machine, const Allocation& allocation,
                        const Context& context, const StageCallback& on_stage = {}, const TrafficKinds& kinds = {});

}  // namespace rankmap
