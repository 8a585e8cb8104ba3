// Rank swaps judged by the exchange program's time (program_search.hpp).
#include "map/refine/program_search.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/workers.hpp"
#include "rankmap/random.hpp"
#include "score/exchange_program.hpp"

namespace rankmap::detail {

namespace {

// The latest quarter of the ranks (at least one; none without ends) by
// when each ended its last iteration, latest first (ties in rank order).
std::vector<std::uint32_t> latest_quarter(const std::vector<double>& rank_ends) {
  if (rank_ends.empty()) return {};
  std::vector<std::uint32_t> ranks(rank_ends.size());
  for (std::uint32_t r = 0; r < ranks.size(); ++r) ranks[r] = r;
  std::stable_sort(ranks.begin(), ranks.end(),
                   [&](std::uint32_t x, std::uint32_t y) { return rank_ends[x] > rank_ends[y]; });
  ranks.resize(std::max<std::size_t>(1, ranks.size() / 4));
  return ranks;
}

}  // namespace

ProgramSearch program_search(const Graph& p2p, const Machine& machine, const Allocation& allocation,
                             const Mapping& start, double compute_ns, int trials, std::uint64_t seed) {
  ProgramSearch s{start};
  std::uint64_t spent = 0;
  std::vector<double> rank_ends;
  std::optional<double> now =
      exchange_program_ns(p2p, machine, allocation, start, compute_ns, kProgramProbe, &spent, &rank_ends);
  std::vector<std::uint32_t> late = latest_quarter(rank_ends);
  const std::uint64_t budget = static_cast<std::uint64_t>(trials) * kProgramTrialWork;
  Rng rng(seed);
  // Two ranks on different nodes (no swap when they share one): one draw
  // in two, at random, takes the first from the latest quarter of the
  // ranks; the rest are random. Drawing the second on the node of one of
  // the first's partners was cheaper a trial (shorter routes) but found
  // less: on the irregular app on the 4x4x4, 384 such trials left SMPI
  // 0.5 to 1.6 % slower than 192 random pairs (bench/RESULTS.md, issue
  // 55, seventeenth session).
  auto draw = [&]() -> std::pair<std::uint32_t, std::uint32_t> {
    const bool from_late = rng.below(2) == 0 && !late.empty();
    const auto a = from_late ? late[rng.below(late.size())] : static_cast<std::uint32_t>(rng.below(p2p.ranks));
    return {a, static_cast<std::uint32_t>(rng.below(p2p.ranks))};
  };
  // First improvement, as one swap after another would find it: a batch
  // is judged side by side, the first swap in it that shortens the time
  // is kept, and the swaps after it are judged again from there.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pending;
  for (int done = 0; now && done < trials && spent <= budget;) {
    while (pending.size() < static_cast<std::size_t>(kProgramBatch)) pending.push_back(draw());
    std::vector<std::optional<double>> times(pending.size());
    std::vector<std::uint64_t> work(pending.size(), 0);
    std::vector<std::vector<double>> ends(pending.size());
    run_jobs(scoped_threads(), pending.size(), [&](std::size_t i) {
      const auto [a, b] = pending[i];
      if (s.mapping.ranks[a].node == s.mapping.ranks[b].node) return;
      Mapping m = s.mapping;
      std::swap(m.ranks[a], m.ranks[b]);
      times[i] = exchange_program_ns(p2p, machine, allocation, m, compute_ns, kProgramProbe, &work[i], &ends[i]);
    });
    std::size_t kept = pending.size();
    for (std::size_t i = 0; i < pending.size() && done < trials; ++i) {
      ++done, spent += work[i];
      if (times[i] && *times[i] < *now) {
        kept = i;
        break;
      }
    }
    if (kept == pending.size()) {
      pending.clear();
      continue;
    }
    const auto [a, b] = pending[kept];
    std::swap(s.mapping.ranks[a], s.mapping.ranks[b]);
    now = times[kept];
    late = latest_quarter(ends[kept]);
    ++s.improved;
    pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(kept) + 1);
  }
  const std::optional<double> all = exchange_program_ns(p2p, machine, allocation, s.mapping, compute_ns);
  s.timed = all.has_value();
  s.ns = all.value_or(0);
  return s;
}

}  // namespace rankmap::detail
