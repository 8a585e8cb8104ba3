// METIS, called from here only (metis.hpp). Weights are bytes, scaled to
// METIS's 32-bit idx_t (integer_weights.hpp).
#include <metis.h>

#include <algorithm>
#include <mutex>
#include <numeric>

#include "partition/integer_weights.hpp"
#include "partition/metis.hpp"
#include "partition/metis_threads.hpp"
#include "partition/part_sizes.hpp"
#include "rankmap/error.hpp"
#include "rankmap/random.hpp"

static_assert(IDXTYPEWIDTH == 32, "rankmap scales weights for 32-bit METIS indices");

namespace rankmap::detail {
namespace {

struct MetisGraph {
  std::vector<idx_t> xadj, adjncy, adjwgt;
};

MetisGraph to_metis(const UndirectedGraph& g) {
  MetisGraph m;
  m.xadj.assign(g.xadj.begin(), g.xadj.end());
  m.adjncy.assign(g.adjncy.begin(), g.adjncy.end());
  m.adjwgt = integer_weights<idx_t>(g.weight);
  return m;
}

void check(int status, const char* call) {
  if (status != METIS_OK)
    throw Error(std::string(call) + " failed (" +
                    (status == METIS_ERROR_MEMORY  ? "out of memory"
                     : status == METIS_ERROR_INPUT ? "bad input"
                                                   : "error") +
                    ")",
                ErrorKind::internal);
}

// METIS's part of every vertex: parts of target weights tpwgts, each at
// most ub times its target.
std::vector<idx_t> metis_call(const UndirectedGraph& g, std::vector<real_t> tpwgts, real_t ub, std::uint64_t seed,
                              int cuts, bool recursive) {
  MetisGraph m = to_metis(g);
  idx_t nv = static_cast<idx_t>(g.n), ncon = 1, nparts = static_cast<idx_t>(tpwgts.size()), objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = static_cast<idx_t>(seed % 2147483647);
  options[METIS_OPTION_NCUTS] = cuts;
  std::vector<idx_t> out(g.n);
  // METIS's random numbers and signal trap are the process's: each call
  // gets its own here (metis_threads.hpp), so calls from several threads
  // (the engine's trials, the hierarchy's groups) overlap and each gives the
  // cut it gives alone. Where that cannot be arranged, they take turns.
  static std::mutex one_call_at_a_time;
  std::unique_lock<std::mutex> turn(one_call_at_a_time, std::defer_lock);
  if (!MetisCall::may_overlap()) turn.lock();
  const MetisCall call;
  const int status =
      recursive ? METIS_PartGraphRecursive(&nv, &ncon, m.xadj.data(), m.adjncy.data(), nullptr, nullptr,
                                           m.adjwgt.data(), &nparts, tpwgts.data(), &ub, options, &objval, out.data())
                : METIS_PartGraphKway(&nv, &ncon, m.xadj.data(), m.adjncy.data(), nullptr, nullptr, m.adjwgt.data(),
                                      &nparts, tpwgts.data(), &ub, options, &objval, out.data());
  check(status, recursive ? "METIS_PartGraphRecursive" : "METIS_PartGraphKway");
  return out;
}

// metis_call() on the parts with a target: METIS prints on standard
// output ("Cannot bisect a graph with 0 vertices") when a part's target is
// 0 or the parts outnumber the vertices, and the library never prints.
// Those cases need no cut: with more parts than vertices, each vertex goes
// to the part with the most target weight left.
std::vector<idx_t> metis_parts(const UndirectedGraph& g, const std::vector<real_t>& tpwgts, real_t ub,
                               std::uint64_t seed, int cuts, bool recursive) {
  std::vector<idx_t> kept;
  std::vector<real_t> targets;
  for (std::size_t p = 0; p < tpwgts.size(); ++p)
    if (tpwgts[p] > 0) kept.push_back(static_cast<idx_t>(p)), targets.push_back(tpwgts[p]);
  std::vector<idx_t> out(g.n, kept.empty() ? 0 : kept.front());
  if (kept.size() <= 1 || g.n == 0) return out;
  if (kept.size() > g.n) {
    std::vector<double> left(targets.begin(), targets.end());
    for (double& l : left) l *= g.n;
    for (idx_t& part : out) {
      const std::size_t p = static_cast<std::size_t>(std::max_element(left.begin(), left.end()) - left.begin());
      part = kept[p];
      left[p] -= 1;
    }
    return out;
  }
  const std::vector<idx_t> cut = metis_call(g, targets, ub, seed, cuts, recursive);
  for (std::uint32_t v = 0; v < g.n; ++v) out[v] = kept[static_cast<std::size_t>(cut[v])];
  return out;
}

std::vector<real_t> proportional(const std::vector<std::uint32_t>& sizes) {
  const double total = std::accumulate(sizes.begin(), sizes.end(), 0.0);
  std::vector<real_t> tpwgts(sizes.size());
  for (std::size_t p = 0; p < sizes.size(); ++p) tpwgts[p] = static_cast<real_t>(sizes[p] / total);
  return tpwgts;
}

}  // namespace

std::vector<int> metis_split(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes, std::uint64_t seed,
                             int cuts, bool recursive, VertexOrder order) {
  std::vector<int> part(g.n, 0);
  if (sizes.size() <= 1 || g.n == 0) return part;
  if (order == VertexOrder::as_given) {
    const std::vector<idx_t> out = metis_parts(g, proportional(sizes), 1.001f, seed, cuts, recursive);
    std::copy(out.begin(), out.end(), part.begin());
  } else {
    Rng rng(seed);
    const std::vector<std::uint32_t> drawn = random_permutation(g.n, rng);
    std::vector<int> scratch(g.n, -1);
    const std::vector<idx_t> out =
        metis_parts(induced_subgraph(g, drawn, scratch), proportional(sizes), 1.001f, seed, cuts, recursive);
    for (std::uint32_t i = 0; i < g.n; ++i) part[drawn[i]] = static_cast<int>(out[i]);
  }
  enforce_part_sizes(g, part, sizes);
  return part;
}

std::vector<std::uint32_t> metis_shares(const UndirectedGraph& g, const std::vector<std::uint32_t>& capacity,
                                        std::uint64_t seed, int cuts) {
  const double slots = std::accumulate(capacity.begin(), capacity.end(), 0.0);
  std::vector<std::uint32_t> share(capacity.size(), 0);
  if (capacity.empty() || g.n == 0 || slots < g.n) return share;
  if (capacity.size() == 1) return {g.n};
  // Part p may take up to its capacity: ub times its target of n x its
  // share of the slots. METIS keeps to ub only approximately, so shares
  // above capacity give their surplus to parts with room, most room first.
  // At most 2: with more slack METIS's bisections left a side with no
  // vertex on small graphs, and it then prints on standard output (11 parts
  // for 20 ranks at 14x slack, in Stages.GraphSharesStayWithinTheSlots).
  const auto ub = static_cast<real_t>(std::min(2.0, std::max(1.001, slots / g.n)));
  for (idx_t p : metis_parts(g, proportional(capacity), ub, seed, cuts, false)) ++share[static_cast<std::size_t>(p)];
  std::uint32_t surplus = 0;
  for (std::size_t p = 0; p < share.size(); ++p)
    if (share[p] > capacity[p]) surplus += share[p] - capacity[p], share[p] = capacity[p];
  while (surplus > 0) {
    std::size_t roomiest = 0;
    for (std::size_t p = 1; p < share.size(); ++p)
      if (capacity[p] - share[p] > capacity[roomiest] - share[roomiest]) roomiest = p;
    const std::uint32_t give = std::min(surplus, capacity[roomiest] - share[roomiest]);
    share[roomiest] += give;
    surplus -= give;
  }
  return share;
}

}  // namespace rankmap::detail
