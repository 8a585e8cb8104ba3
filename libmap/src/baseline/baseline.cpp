#include "rankmap/baseline.hpp"

#include "core/names.hpp"
#include "rankmap/error.hpp"
#include "rankmap/random.hpp"

namespace rankmap {

namespace {
constexpr Baseline kBaselines[] = {Baseline::block, Baseline::rr, Baseline::random};
}  // namespace

std::vector<std::string> baseline_names() { return detail::names_of<Baseline>(kBaselines, baseline_name); }

Baseline parse_baseline(std::string_view name) {
  if (auto b = detail::find_named<Baseline>(kBaselines, baseline_name, name)) return *b;
  throw Error(ErrorKind::argument, Parameter{"baseline"},
              "unknown baseline '" + std::string(name) + "' (expected " + detail::one_of(baseline_names()) + ")");
}

std::string_view baseline_name(Baseline b) {
  switch (b) {
    case Baseline::block: return "block";
    case Baseline::rr: return "rr";
    case Baseline::random: return "random";
  }
  return "?";
}

Mapping baseline_mapping(Baseline kind, const Allocation& allocation, std::size_t ranks, std::uint64_t seed,
                         bool oversubscribe) {
  const std::size_t slots = allocation.total_slots();
  if (ranks > slots && oversubscribe && slots > 0) {
    // One round over every slot in the launcher's order, repeated.
    const Mapping round = baseline_mapping(kind, allocation, slots, seed, false);
    Mapping m;
    m.ranks.reserve(ranks);
    for (std::size_t r = 0; r < ranks; ++r) m.ranks.push_back(round.ranks[r % slots]);
    return m;
  }
  if (ranks > slots)
    throw Error(std::to_string(ranks) + " ranks do not fit the " + std::to_string(slots) + " slots of " +
                    std::to_string(allocation.size()) + " nodes",
                ErrorKind::fit);
  Mapping m;
  m.ranks.reserve(ranks);
  const int nodes = static_cast<int>(allocation.size());
  switch (kind) {
    case Baseline::block:
      for (int k = 0; k < nodes && m.size() < ranks; ++k)
        for (int s = 0; s < static_cast<int>(allocation.slots(k).size()) && m.size() < ranks; ++s)
          m.ranks.push_back({k, s});
      break;
    case Baseline::rr:
      for (int s = 0; m.size() < ranks; ++s)
        for (int k = 0; k < nodes && m.size() < ranks; ++k)
          if (s < static_cast<int>(allocation.slots(k).size())) m.ranks.push_back({k, s});
      break;
    case Baseline::random: {
      std::vector<Placement> all;
      all.reserve(slots);
      for (int k = 0; k < nodes; ++k)
        for (int s = 0; s < static_cast<int>(allocation.slots(k).size()); ++s) all.push_back({k, s});
      Rng rng(seed);
      for (std::size_t i = 0; i < ranks; ++i) {  // partial Fisher-Yates
        const std::size_t j = i + rng.below(all.size() - i);
        std::swap(all[i], all[j]);
        m.ranks.push_back(all[i]);
      }
      break;
    }
  }
  return m;
}

}  // namespace rankmap
