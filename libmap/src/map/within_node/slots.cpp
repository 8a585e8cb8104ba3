// Stage 3: inside each node, ranks are split top-down over the node's
// packages (and, with hardware-thread slots, its cores), heaviest pairs
// together: greedy growth from the heaviest rank, then pairwise swaps.
#include <algorithm>
#include <map>
#include <numeric>

#include "core/huge_pages.hpp"
#include "core/workers.hpp"
#include "map/engine.hpp"

namespace rankmap::detail {
namespace {

constexpr std::uint32_t kNotLocal = UINT32_MAX;
// Jobs with fewer ranks place their nodes on one thread.
constexpr std::size_t kParallelRanks = std::size_t{1} << 16;

// Traffic between the ranks of one node, as a dense matrix. `local_of` maps
// every rank to kNotLocal on entry and on return: one array for all nodes,
// as a map per node cost a second at a million ranks.
class LocalTraffic {
 public:
  LocalTraffic(const UndirectedGraph& g, const std::vector<std::uint32_t>& ranks, std::vector<std::uint32_t>& local_of)
      : n_(ranks.size()), w_(n_ * n_, 0) {
    for (std::size_t i = 0; i < n_; ++i) local_of[ranks[i]] = static_cast<std::uint32_t>(i);
    for (std::size_t i = 0; i < n_; ++i)
      for (std::uint64_t e = g.xadj[ranks[i]]; e < g.xadj[ranks[i] + 1]; ++e)
        if (const std::uint32_t j = local_of[g.adjncy[e]]; j != kNotLocal) w_[i * n_ + j] = g.weight[e];
    for (std::uint32_t r : ranks) local_of[r] = kNotLocal;
  }
  std::uint64_t operator()(std::size_t i, std::size_t j) const { return w_[i * n_ + j]; }

 private:
  std::size_t n_;
  std::vector<std::uint64_t> w_;
};

// Greedy growth: each group starts from `seed` (the first) or the free rank
// with most traffic left, and takes the free rank most tied to it.
std::vector<std::vector<std::size_t>> grow_groups(const LocalTraffic& w, const std::vector<std::size_t>& members,
                                                  const std::vector<std::size_t>& sizes, std::size_t seed) {
  std::vector<std::vector<std::size_t>> groups(sizes.size());
  std::vector<char> taken(members.size(), 0);
  for (std::size_t g = 0; g < sizes.size(); ++g) {
    for (std::size_t filled = 0; filled < sizes[g]; ++filled) {
      std::size_t best = members.size();
      std::uint64_t best_w = 0;
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (taken[i]) continue;
        if (g == 0 && filled == 0) {  // the very first pick is the seed
          best = seed;
          break;
        }
        std::uint64_t tie = 0;
        if (groups[g].empty())
          for (std::size_t j = 0; j < members.size(); ++j) tie += taken[j] ? 0 : w(members[i], members[j]);
        else
          for (std::size_t m : groups[g]) tie += w(members[i], m);
        if (best == members.size() || tie > best_w) best = i, best_w = tie;
      }
      taken[best] = 1;
      groups[g].push_back(members[best]);
    }
  }
  return groups;
}

// Pairwise swaps between groups while one gains. conn[i * groups + g] is
// i's traffic to the other members of group g, kept up to date on each
// swap, so that a pair's gain costs four lookups (a million ranks' nodes
// took a second when each gain summed over the groups).
void swap_refine(const LocalTraffic& w, std::vector<std::vector<std::size_t>>& groups) {
  const std::size_t ng = groups.size();
  auto other = [&](std::size_t i, std::size_t j) { return i == j ? 0 : static_cast<long long>(w(i, j)); };
  std::size_t top = 0;
  for (const auto& grp : groups)
    for (std::size_t m : grp) top = std::max(top, m + 1);
  std::vector<long long> conn(top * ng, 0);
  for (const auto& grp : groups)
    for (std::size_t i : grp)
      for (std::size_t g = 0; g < ng; ++g)
        for (std::size_t m : groups[g]) conn[i * ng + g] += other(i, m);
  for (int round = 0; round < 16; ++round) {
    bool improved = false;
    for (std::size_t a = 0; a < ng; ++a)
      for (std::size_t b = a + 1; b < ng; ++b)
        for (std::size_t& u : groups[a])
          for (std::size_t& v : groups[b]) {
            const long long gain = conn[u * ng + b] - conn[u * ng + a] + conn[v * ng + a] - conn[v * ng + b] -
                                   2 * static_cast<long long>(w(u, v));
            if (gain <= 0) continue;
            // u goes to b, v to a: everyone's sums to a and b change.
            for (const auto& grp : groups)
              for (std::size_t x : grp) {
                const long long to_u = other(x, u), to_v = other(x, v);
                conn[x * ng + a] += to_v - to_u;
                conn[x * ng + b] += to_u - to_v;
              }
            std::swap(u, v);
            improved = true;
          }
    if (!improved) break;
  }
}

std::uint64_t cut_between(const LocalTraffic& w, const std::vector<std::vector<std::size_t>>& groups) {
  std::uint64_t cut = 0;
  for (std::size_t a = 0; a < groups.size(); ++a)
    for (std::size_t b = a + 1; b < groups.size(); ++b)
      for (std::size_t u : groups[a])
        for (std::size_t v : groups[b]) cut += w(u, v);
  return cut;
}

// Splits `members` (local indices) into groups of the given sizes with the
// least traffic between groups: growth from several seeds, then swaps.
std::vector<std::vector<std::size_t>> split_into_groups(const LocalTraffic& w, const std::vector<std::size_t>& members,
                                                        const std::vector<std::size_t>& sizes, std::size_t seeds) {
  // Growth costs members^3: every rank seeds on small nodes only.
  const std::size_t tries = members.size() <= 32 ? seeds : std::min<std::size_t>(seeds, 4);
  const std::size_t step = std::max<std::size_t>(1, members.size() / tries);
  std::vector<std::vector<std::size_t>> best;
  std::uint64_t best_cut = 0;
  for (std::size_t seed = 0; seed < members.size(); seed += step) {
    auto groups = grow_groups(w, members, sizes, seed);
    swap_refine(w, groups);
    const std::uint64_t cut = cut_between(w, groups);
    if (best.empty() || cut < best_cut) best = std::move(groups), best_cut = cut;
  }
  for (auto& grp : best) std::sort(grp.begin(), grp.end());
  return best;
}

// Assigns `members` to `slot_ids` (equal counts), grouping by package, then
// by core when slots are single PUs.
void place_in_node(const LocalTraffic& w, std::size_t seeds, const std::vector<std::size_t>& members,
                   const std::vector<int>& slot_ids, const std::vector<int>& key_of_slot,
                   const std::vector<int>& subkey_of_slot, std::vector<int>& slot_of_member) {
  std::map<int, std::vector<int>> by_key;
  for (int s : slot_ids) by_key[key_of_slot[s]].push_back(s);
  if (by_key.size() == 1) {
    if (!subkey_of_slot.empty()) return place_in_node(w, seeds, members, slot_ids, subkey_of_slot, {}, slot_of_member);
    for (std::size_t i = 0; i < members.size(); ++i) slot_of_member[members[i]] = slot_ids[i];
    return;
  }
  std::vector<std::size_t> sizes;
  std::vector<std::vector<int>> slot_groups;
  for (auto& [key, slots] : by_key) sizes.push_back(slots.size()), slot_groups.push_back(slots);
  const auto groups = split_into_groups(w, members, sizes, seeds);
  for (std::size_t g = 0; g < groups.size(); ++g)
    place_in_node(w, seeds, groups[g], slot_groups[g], subkey_of_slot.empty() ? key_of_slot : subkey_of_slot, {},
                  slot_of_member);
}

}  // namespace

Mapping assign_slots(const UndirectedGraph& g, const std::vector<int>& node_of_rank, const Machine& machine,
                     const Allocation& allocation, bool within_node) {
  Mapping m;
  reserve_huge(m.ranks, node_of_rank.size());
  m.ranks.assign(node_of_rank.size(), {});
  // Growth from every rank of a (small) node as a seed, up to 64K ranks in
  // all: a fixed few seeds make the split depend on the rank numbering.
  // Beyond, from 4, as a million ranks would otherwise cost seconds here.
  const std::size_t seeds = node_of_rank.size() <= (std::size_t{1} << 16) ? SIZE_MAX : 4;
  std::vector<std::vector<std::uint32_t>> ranks_on(allocation.size());
  for (std::uint32_t r = 0; r < node_of_rank.size(); ++r) ranks_on[node_of_rank[r]].push_back(r);
  // Nodes are independent: on large graphs a range of nodes a thread, each
  // with its own local_of, every node's slots the same for any number.
  const std::size_t ranges = ranges_for(allocation.size(), node_of_rank.size() >= kParallelRanks);
  for_each_range(allocation.size(), ranges, [&](std::size_t, std::size_t first, std::size_t last) {
    std::vector<std::uint32_t> local_of = huge_vector<std::uint32_t>(within_node ? node_of_rank.size() : 0, kNotLocal);
    for (std::size_t k = first; k < last; ++k) {
      const auto& ranks = ranks_on[k];
      if (ranks.empty()) continue;
      const auto& slots = allocation.slots(k);
      const int nslots = static_cast<int>(slots.size());
      const int used = std::min<int>(nslots, static_cast<int>(ranks.size()));
      std::vector<int> slot_of(ranks.size(), -1);
      if (within_node && used > 1 && ranks.size() <= static_cast<std::size_t>(nslots)) {
        const NodeType& type = machine.node_types[machine.nodes[allocation.nodes[k]].type];
        std::vector<int> package(nslots), core(nslots);
        for (int s = 0; s < nslots; ++s) {
          package[s] = slots[s].package;
          core[s] = type.pus[slots[s].pus.front()].core;
        }
        std::vector<int> slot_ids(used);
        std::iota(slot_ids.begin(), slot_ids.end(), 0);
        std::vector<std::size_t> members(ranks.size());
        std::iota(members.begin(), members.end(), 0);
        std::vector<int> slot_of_member(ranks.size(), -1);
        place_in_node(LocalTraffic(g, ranks, local_of), seeds, members, slot_ids, package,
                      allocation.hwthreads ? core : std::vector<int>{}, slot_of_member);
        slot_of = slot_of_member;
      } else {
        // In rank order; with oversubscription ranks share slots in turn.
        for (std::size_t i = 0; i < ranks.size(); ++i)
          slot_of[i] = static_cast<int>(i % static_cast<std::size_t>(nslots));
      }
      for (std::size_t i = 0; i < ranks.size(); ++i) m.ranks[ranks[i]] = {static_cast<int>(k), slot_of[i]};
    }
  });
  return m;
}

}  // namespace rankmap::detail
