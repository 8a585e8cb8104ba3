// rankmap::Context: every knob of the mapping engine, with named presets.
// dump_context() writes one as TOML and load_context() reads it back.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace rankmap {

struct Context {
  std::string preset = "default";
  std::uint64_t seed = 1;

  struct Partition {
    bool cartesian = true;            // a grid in rank order: boxes laid onto the torus
    bool metis_kway = true;           // METIS k-way into one part per node
    bool recursive_bisection = true;  // bisect graph and torus coordinates together
    bool scotch = false;              // Scotch static mapping onto the allocation
    int metis_cuts = 1;               // METIS ncuts for the k-way cut: tries, keeping the best
    // METIS ncuts for each bisection of recursive_bisection: cheap next to
    // the k-way cut's; 8, with METIS's vertex order drawn from the seed,
    // lowered hop-bytes 1.7 % (geometric mean of 8 irregular, partial and
    // all-to-all instances, bench/RESULTS.md, issue 33).
    int bisection_cuts = 8;
    // Large jobs (thousands of nodes): ranks are merged by heavy-edge
    // matching until at most this many vertices remain before cutting
    // (0: never merge).
    std::uint32_t coarsen_to = 262144;
    // When the Cartesian layout applies, keep it and skip the general
    // pipelines (they cost minutes on a million ranks and lose to it there).
    // Without it they still skip grids of over 2^16 edge ends, where they
    // took minutes and never beat the layout. On a dragonfly a smaller
    // grid's pipelines run (one trial) beside the layout all the same.
    bool grid_only = true;
    // Each partition pipeline runs with seeds seed, seed+1, ... and every
    // result is a candidate: partitions of irregular graphs vary by several
    // per cent with the seed. Large graphs run fewer (at most 2^24 / edges).
    int trials = 4;
    // Trials stop early once this many in a row found no candidate better
    // than the best so far (0: all of them run). Deterministic: it counts
    // trials, not seconds.
    int patience = 0;
    // Also run the default preset (same seed) and keep its mapping as a
    // candidate and a ceiling, as block's is: never worse than `default`.
    bool default_candidate = false;
  } partition;

  struct Placement {
    bool greedy = true;         // grow from the heaviest part, nearest free node
    bool cuthill_mckee = true;  // Boost.Graph RCM order along a snake of the torus
    bool rank_order = true;     // parts by their lowest rank onto nodes in allocation order
    int swap_passes = 8;        // part-swap passes on hop-bytes, then link load
  } placement;

  struct Refinement {
    int rank_swap_passes = 2;  // swap ranks between nodes (exact sizes kept)
    bool rank_moves = true;    // then move single ranks: round cycles of nodes, and freely then rebalanced
    // Where a profile's exchanges are timed as each rank's program (compute
    // between them known, collectives rare): rank swaps judged by that time,
    // from the fastest candidate (map/refine/program_search.hpp); 0: none.
    int program_swaps = 384;
  } refinement;

  bool within_node = true;     // split each node's ranks over its packages and cores
  bool oversubscribe = false;  // allow more ranks than slots (ranks share slots)
  // Threads the engine may use for its independent work (trials, passes
  // over large graphs); 0: the CPUs this process may run on. The mapping is
  // the same for any number.
  int threads = 0;
};

inline constexpr int kMaxThreads = 1024;

std::vector<std::string> preset_names();  // fast, default, quality
// Throws an argument Error about Parameter "preset" for an unknown name.
Context create_context(std::string_view preset);

// TOML text of every field; load_context(dump) gives the same Context.
std::string dump_context(const Context& context);
// Reads a dumped context; unknown keys and bad values are errors naming the
// file and line.
Context load_context(const std::filesystem::path& path);
Context parse_context(std::string_view toml_text, const std::string& source);

}  // namespace rankmap
