// A pass of local moves (swaps of parts between nodes) on several
// threads, with the same result for any number of them. Internal to
// libmap.
//
// The pass visits items in index order. For a round of the next
// `round_size` items, `propose` finds each one's move in parallel, every
// thread reading the state as the round found it; `make` then makes the
// moves one by one in item order, each checked again against the state
// the moves before it left (it may refuse one that no longer gains).
// Finding a move reads far (a part's partner searched on the nodes around
// its heaviest partners); checking and making it costs a few degrees, so
// the serial part is small. Mt-KaHyPar's deterministic label propagation
// also works in synchronous sub-rounds: moves computed in parallel
// against the sub-round's state, then applied by a fixed rule. Rounds of
// one item are the plain serial pass.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "core/workers.hpp"

namespace rankmap::detail {

// propose(i, Scratch&) -> std::optional<Proposal>, which must leave its
// scratch as it found it; make(i, const Proposal&) -> bool,
// whether the move was made. `scratch` holds one per thread that may run
// (a round uses at most scratch.size() ranges). An item whose move was
// refused is proposed once more, first in the next round, against the
// state its round's moves left (on a 65,536-node placement that took the
// loss in hop-bytes against the plain pass from 0.48 % to 0.15 %). True
// when a move was made.
template <class Proposal, class Scratch, class Propose, class Make>
bool proposal_rounds(std::size_t items, std::size_t round_size, std::vector<Scratch>& scratch, Propose&& propose,
                     Make&& make) {
  std::vector<std::size_t> round, again;
  std::vector<std::optional<Proposal>> found;
  bool made = false;
  for (std::size_t next = 0; next < items || !again.empty();) {
    round.swap(again);
    again.clear();
    const std::size_t carried = round.size();  // the first `carried` are second tries
    for (; next < items && round.size() < round_size + carried; ++next) round.push_back(next);
    found.assign(round.size(), std::nullopt);
    const std::size_t ranges = std::min(scratch.size(), round.size());
    for_each_range(round.size(), ranges, [&](std::size_t range, std::size_t begin, std::size_t end) {
      for (std::size_t k = begin; k < end; ++k) found[k] = propose(round[k], scratch[range]);
    });
    for (std::size_t k = 0; k < round.size(); ++k) {
      if (!found[k]) continue;
      if (make(round[k], *found[k]))
        made = true;
      else if (k >= carried)
        again.push_back(round[k]);
    }
  }
  return made;
}

}  // namespace rankmap::detail
