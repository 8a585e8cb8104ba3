// METIS, called from here only. METIS returns METIS_OK (1) on success; any
// other value becomes rankmap::Error. Weights are bytes, scaled so that
// their sum fits METIS's 32-bit idx_t.
#include <metis.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "map/stages.hpp"
#include "rankmap/error.hpp"

static_assert(IDXTYPEWIDTH == 32, "rankmap scales weights for 32-bit METIS indices");

namespace rankmap::detail {
namespace {

struct MetisGraph {
  std::vector<idx_t> xadj, adjncy, adjwgt;
};

MetisGraph to_metis(const UndirectedGraph& g) {
  MetisGraph m;
  const double total = std::accumulate(g.weight.begin(), g.weight.end(), 0.0);
  const double limit = static_cast<double>(1 << 30);
  const double scale = total > limit ? limit / total : 1.0;
  m.xadj.assign(g.xadj.begin(), g.xadj.end());
  m.adjncy.assign(g.adjncy.begin(), g.adjncy.end());
  m.adjwgt.resize(g.weight.size());
  for (std::size_t e = 0; e < g.weight.size(); ++e)
    m.adjwgt[e] = static_cast<idx_t>(std::max(1.0, std::floor(static_cast<double>(g.weight[e]) * scale)));
  return m;
}

void check(int status, const char* call) {
  if (status != METIS_OK)
    throw Error(std::string(call) + " failed (" +
                (status == METIS_ERROR_MEMORY ? "out of memory" : status == METIS_ERROR_INPUT ? "bad input" : "error") + ")",
                ErrorKind::internal);
}

}  // namespace

std::vector<int> metis_split(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes, std::uint64_t seed,
                             int cuts, bool recursive) {
  const int k = static_cast<int>(sizes.size());
  std::vector<int> part(g.n, 0);
  if (k <= 1 || g.n == 0) return part;
  MetisGraph m = to_metis(g);
  idx_t nv = static_cast<idx_t>(g.n), ncon = 1, nparts = k, objval = 0;
  const double total = std::accumulate(sizes.begin(), sizes.end(), 0.0);
  std::vector<real_t> tpwgts(k);
  for (int p = 0; p < k; ++p) tpwgts[p] = static_cast<real_t>(sizes[p] / total);
  real_t ubvec = 1.001f;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = static_cast<idx_t>(seed % 2147483647);
  options[METIS_OPTION_NCUTS] = cuts;
  std::vector<idx_t> out(g.n);
  // METIS traps SIGABRT/SIGTERM for the length of the call and restores the
  // previous handlers before returning; it installs nothing that outlives it.
  const int status = recursive
      ? METIS_PartGraphRecursive(&nv, &ncon, m.xadj.data(), m.adjncy.data(), nullptr, nullptr, m.adjwgt.data(),
                                 &nparts, tpwgts.data(), &ubvec, options, &objval, out.data())
      : METIS_PartGraphKway(&nv, &ncon, m.xadj.data(), m.adjncy.data(), nullptr, nullptr, m.adjwgt.data(), &nparts,
                            tpwgts.data(), &ubvec, options, &objval, out.data());
  check(status, recursive ? "METIS_PartGraphRecursive" : "METIS_PartGraphKway");
  std::copy(out.begin(), out.end(), part.begin());
  enforce_part_sizes(g, part, sizes);
  return part;
}

std::vector<int> partition_metis_kway(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes,
                                      std::uint64_t seed, int cuts) {
  return metis_split(g, sizes, seed, cuts, false);
}

namespace {

// One METIS k-way call into a part per node: parts know nothing of where
// their nodes are, so placement starts from scratch. Too slow for
// thousands of nodes (the hierarchy covers them). On a single node it is
// the one partitioner that runs even when not enabled: something must.
class MetisKwayPartitioner : public Partitioner {
 public:
  MetisKwayPartitioner(bool enabled, int cuts) : enabled_(enabled), cuts_(cuts) {}
  std::string name() const override { return "METIS k-way"; }
  bool applies(const NodeSet& nodes) const override {
    return !nodes.large() && (enabled_ || nodes.used.size() == 1);
  }
  bool cuts_for_nodes() const override { return false; }
  std::vector<int> partition(const Problem& problem, const NodeSet& nodes, std::uint64_t seed) const override {
    return partition_metis_kway(problem.g, nodes.sizes, seed, cuts_);
  }

 private:
  bool enabled_;
  int cuts_;
};

}  // namespace

std::unique_ptr<Partitioner> make_metis_kway_partitioner(const Context& context) {
  return std::make_unique<MetisKwayPartitioner>(context.partition.metis_kway, context.partition.metis_cuts);
}

}  // namespace rankmap::detail
