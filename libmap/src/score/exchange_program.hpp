// The exchange program: point-to-point exchanges as each rank's program,
// for the engine when the profile's compute between exchanges is known.
// The flow model's phases start every message of a phase together; with
// compute between exchanges ranks drift apart, and a busy link's messages
// reach it at different times. On SMPI's irregular app on the 4x4x4 torus
// with 20 us an iteration, that put KaHIP's mapping 9.5 % behind ours by
// the phases where SMPI has it 1.6 % ahead; read as programs, the four
// mappings came out in SMPI's order (bench/RESULTS.md, issue 55,
// sixteenth session).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "rankmap/allocation.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/mapping.hpp"

namespace rankmap::detail {

// Collective calls a rank may make for its traffic to be read as exchange
// programs (exchanges_as_programs, gain.hpp): a barrier before and after
// the loop, a reduction of the result.
inline constexpr std::uint64_t kCallsAroundTheLoop = 4;

// K iterations (K and each pair's messages and bytes as flow_times() has
// them: a pair with m < K messages takes part in the first m). In each, a
// rank computes for compute_ns, posts every receive and send of the
// iteration, and waits for its receives and for its sends of
// kEagerLimitBytes or more (smaller ones are buffered). A message moves
// once both its ranks have posted it: its latency, then its bytes at a
// max-min fair share of its route, as in a phase. The time is the last
// rank's end of its last iteration. With `iterations` below K, the first
// that many are run, and the rest added at the pace of the second half of
// them (the ranks drift apart in the first few). nullopt where the flow
// model does not time the graph (more than kMaxFlowsPerPhase messages a
// phase) or its work budget runs out. `work`, when given: the
// simulator's steps (PhaseSimulator::work); `rank_ends`: when each rank
// ended the last iteration run (the program search's late ranks).
std::optional<double> exchange_program_ns(const Graph& p2p, const Machine& machine, const Allocation& allocation,
                                          const Mapping& mapping, double compute_ns,
                                          std::uint64_t iterations = std::numeric_limits<std::uint64_t>::max(),
                                          std::uint64_t* work = nullptr, std::vector<double>* rank_ends = nullptr);

// The compute time an iteration that gives `baseline`'s program the MPI
// share p_mpi: K c = (run(c) - K c) (1 - p_mpi) / p_mpi, solved by fixed
// point from c = 0 (three runs; the communication moves little with c).
// 0 when p_mpi is 1 or more; nullopt where exchange_program_ns() is.
std::optional<double> exchange_compute_ns(const Graph& p2p, const Machine& machine, const Allocation& allocation,
                                          const Mapping& baseline, double p_mpi);

}  // namespace rankmap::detail
