// METIS, called from here only (metis.hpp). Weights are bytes, scaled to
// METIS's 32-bit idx_t (integer_weights.hpp).
#include <metis.h>

#include <algorithm>
#include <numeric>

#include "partition/integer_weights.hpp"
#include "partition/metis.hpp"
#include "partition/part_sizes.hpp"
#include "rankmap/error.hpp"

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
  const int status =
      recursive
          ? METIS_PartGraphRecursive(&nv, &ncon, m.xadj.data(), m.adjncy.data(), nullptr, nullptr, m.adjwgt.data(),
                                     &nparts, tpwgts.data(), &ubvec, options, &objval, out.data())
          : METIS_PartGraphKway(&nv, &ncon, m.xadj.data(), m.adjncy.data(), nullptr, nullptr, m.adjwgt.data(), &nparts,
                                tpwgts.data(), &ubvec, options, &objval, out.data());
  check(status, recursive ? "METIS_PartGraphRecursive" : "METIS_PartGraphKway");
  std::copy(out.begin(), out.end(), part.begin());
  enforce_part_sizes(g, part, sizes);
  return part;
}

}  // namespace rankmap::detail
