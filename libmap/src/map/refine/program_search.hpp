// The program search: rank swaps judged by the exchange program's time
// (score/exchange_program.hpp), not by hop-bytes. With compute between
// exchanges the ranks drift apart, and what paces the run is no longer the
// busiest link of a phase; on SMPI's irregular app on the 4x4x4 torus at
// 20 us an iteration every candidate of the engine was behind KaHIP's and
// Mt-KaHyPar's mappings, by that reading and by SMPI alike
// (bench/RESULTS.md, issue 55, seventeenth session).
#pragma once

#include <cstdint>

#include "rankmap/allocation.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/mapping.hpp"

namespace rankmap::detail {

struct ProgramSearch {
  Mapping mapping;
  double ns = 0;      // its program time, every iteration
  int improved = 0;   // swaps kept
  bool timed = true;  // false: the work budget ran out on the whole run at the end
};

// From `start`: up to `trials` swaps of two ranks on different nodes (the
// seed's draws: one in two, at random, takes its first rank from the
// latest quarter of the ranks, by when each ended the last run), each
// judged by the program's time with its first kProgramProbe iterations
// run and the rest extrapolated (exchange_program_ns); a swap that
// shortens it is kept (first improvement; kProgramBatch judged side by
// side). The search stops once its simulations pass trials x
// kProgramTrialWork steps, so that a large graph or a long probe runs
// fewer trials. The result is then timed over every iteration. The same
// for any number of threads.
//
// The probe is the whole run of SMPI's irregular app, 20 iterations.
// Judged on 8 extrapolated, the search kept swaps that the whole run then
// undid (a METIS start went from 564.4 to 573.0 us in 11 swaps kept); with
// seeds 1-4 on the 4x4x4 torus it ended between 537.7 and 556.3 us, and
// between 537.7 and 541.9 judged on all 20 in the same budget, with fewer
// trials. The late ranks are where the run waits: drawing from them, it
// ended between 526.8 and 539.3, and on a graph of degree 8 it was not
// tuned on at 568.9 us where random pairs stopped at 589.7, behind
// Scotch's mapping (586.9) (bench/RESULTS.md, issue 55, eighteenth
// session). On 4 iterations alone, with no extrapolation, it kept swaps
// that help only while the ranks drift apart.
inline constexpr int kProgramBatch = 4;
inline constexpr std::uint64_t kProgramProbe = 20;
inline constexpr std::uint64_t kProgramTrialWork = std::uint64_t{1} << 24;
ProgramSearch program_search(const Graph& p2p, const Machine& machine, const Allocation& allocation,
                             const Mapping& start, double compute_ns, int trials, std::uint64_t seed);

}  // namespace rankmap::detail
