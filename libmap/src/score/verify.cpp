// The independent check of a mapping. It shares no code with the writers
// and readers of launch files, so that a mistake in one shows up here.
#include <unordered_set>

#include "rankmap/error.hpp"
#include "rankmap/mapping.hpp"

namespace rankmap {

void verify_mapping(const Mapping& mapping, const Allocation& allocation, std::size_t ranks,
                    const std::string& source) {
  // More ranks than slots can only be run oversubscribed: then slots are
  // shared, evenly (no slot holds more than its share, rounded up).
  const std::size_t slots = allocation.total_slots();
  const std::size_t per_slot = ranks > slots && slots > 0 ? (ranks + slots - 1) / slots : 1;
  if (mapping.size() != ranks)
    throw Error(source, 0, "places " + std::to_string(mapping.size()) + " ranks, expected " + std::to_string(ranks));
  std::vector<std::vector<int>> owner(allocation.size()), count(allocation.size());
  for (std::size_t k = 0; k < allocation.size(); ++k) {
    owner[k].assign(allocation.slots(k).size(), -1);
    count[k].assign(allocation.slots(k).size(), 0);
  }
  for (std::size_t r = 0; r < ranks; ++r) {
    const Placement& p = mapping.ranks[r];
    if (p.node < 0 && p.slot < 0) throw Error(source, 0, "rank " + std::to_string(r) + " has no placement");
    if (p.node < 0 || p.node >= static_cast<int>(allocation.size()))
      throw Error(source, 0, "rank " + std::to_string(r) + " is on a node outside the allocation");
    if (p.slot < 0 || p.slot >= static_cast<int>(owner[p.node].size()))
      throw Error(source, 0,
                  "rank " + std::to_string(r) + " uses slot " + std::to_string(p.slot) + ", the node has " +
                      std::to_string(owner[p.node].size()));
    int& o = owner[p.node][p.slot];
    if (++count[p.node][p.slot] > static_cast<int>(per_slot))
      throw Error(
          source, 0,
          "ranks " + std::to_string(o) + " and " + std::to_string(r) + " share a slot" +
              (per_slot > 1 ? " beyond the " + std::to_string(per_slot) + " an oversubscribed slot holds" : ""));
    o = static_cast<int>(r);
  }
}

}  // namespace rankmap
