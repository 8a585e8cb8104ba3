// A mapping: for every rank, the allocated node and the slot on it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "rankmap/allocation.hpp"

namespace rankmap {

struct Placement {
  int node = -1;  // position in Allocation::nodes
  int slot = -1;  // index in that node's slots
  bool operator==(const Placement&) const = default;
};

struct Mapping {
  std::vector<Placement> ranks;
  std::size_t size() const { return ranks.size(); }
  bool operator==(const Mapping&) const = default;
};

// Whether both put every rank on the same node, whatever the slots. The
// flow model (gain.hpp) sees no more than that: two such mappings have one
// time.
inline bool same_nodes(const Mapping& a, const Mapping& b) {
  return std::equal(a.ranks.begin(), a.ranks.end(), b.ranks.begin(), b.ranks.end(),
                    [](const Placement& x, const Placement& y) { return x.node == y.node; });
}

// The independent check every written mapping goes through: `ranks` ranks,
// each placed exactly once, on an allocated node, in a slot that exists, no
// slot used twice (when ranks exceed slots, which only an oversubscribed run
// allows, no slot more than ceil(ranks / slots) times). Throws
// Error(source, 0, ...) naming the first violation.
void verify_mapping(const Mapping& mapping, const Allocation& allocation, std::size_t ranks, const std::string& source);

}  // namespace rankmap
