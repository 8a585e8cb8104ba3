// The search of refine_rank_swaps (rank_refine.cpp): for one rank, the
// partner whose swap lowers hop-bytes most, on one of the nodes the rank
// gains most on. It only reads the mapping, so searches may run side by
// side; the pass decides which results still hold. Internal to libmap.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/sparse_accumulator.hpp"
#include "map/engine.hpp"

namespace rankmap::detail {

class RankSwapSearch {
 public:
  // Nodes searched for a partner, per rank: the ones it gains most on.
  static constexpr std::size_t kTargets = 3;

  // What a search read and found: the nodes it searched, and the best
  // swap (partner s on node y, at on[y][i]), if one gains.
  struct Found {
    std::array<int, kTargets> targets{};
    std::size_t searched = 0;
    bool swap = false;
    int y = -1;
    std::uint32_t s = 0;
    std::size_t i = 0;
  };
  // One thread's working space.
  struct Scratch {
    SparseAccumulator<std::uint64_t> conn;         // r's bytes to each node
    std::vector<std::pair<long long, int>> gains;  // (r's gain on node, node)
  };

  // `on[x]`: node x's ranks; both it and node_of_rank are read at each call.
  RankSwapSearch(const UndirectedGraph& g, const NodeGeometry& geo, const std::vector<int>& node_of_rank,
                 const std::vector<std::vector<std::uint32_t>>& on)
      : g_(g), geo_(geo), node_of_rank_(node_of_rank), on_(on) {}

  Scratch scratch() const { return {SparseAccumulator<std::uint64_t>(geo_.size()), {}}; }
  // Rank v's cost if it sat on node x (hop_bytes_on).
  std::uint64_t cost(std::uint32_t v, int x) const { return hop_bytes_on(g_, geo_, node_of_rank_, v, x); }
  // Whether a node r's partners sit on would cost r less than its own: only
  // then is a partner looked for.
  bool may_gain(std::uint32_t r, SparseAccumulator<std::uint32_t>& nodes) const;
  Found search(std::uint32_t r, Scratch& scratch) const;

 private:
  const UndirectedGraph& g_;
  const NodeGeometry& geo_;
  const std::vector<int>& node_of_rank_;
  const std::vector<std::vector<std::uint32_t>>& on_;
};

}  // namespace rankmap::detail
