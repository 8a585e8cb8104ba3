// Scotch static mapping of the rank graph onto the torus, restricted to the
// used nodes, as a Scotch user would do it. Scotch returns 0 on success; its
// messages go to SCOTCH_errorPrint, which libmap defines (scotch_errors.cpp)
// to keep them instead of printing.
#include <cstdio>
#include <scotch.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "map/stages.hpp"
#include "map/scotch_errors.hpp"
#include "rankmap/error.hpp"

namespace rankmap::detail {
namespace {

template <class T, void (*Exit)(T*)>
struct Scoped {
  T value;
  bool live = false;
  ~Scoped() {
    if (live) Exit(&value);
  }
};

void check(int status, const char* call) {
  if (status != 0) throw Error(std::string(call) + " failed: " + take_scotch_error());
}

}  // namespace

std::vector<int> partition_scotch(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes,
                                  const std::vector<int>& used_nodes, const NodeGeometry& geometry,
                                  std::uint64_t seed) {
  static_assert(sizeof(SCOTCH_Num) == sizeof(int), "weights are scaled for a 32-bit SCOTCH_Num");
  const int k = static_cast<int>(sizes.size());
  std::vector<int> part(g.n, 0);
  if (k <= 1 || g.n == 0) return part;

  std::vector<SCOTCH_Num> verttab(g.xadj.begin(), g.xadj.end()), edgetab(g.adjncy.begin(), g.adjncy.end());
  std::vector<SCOTCH_Num> edlotab(g.weight.size());
  const double total = std::accumulate(g.weight.begin(), g.weight.end(), 0.0);
  const double scale = total > (1 << 30) ? (1 << 30) / total : 1.0;
  for (std::size_t e = 0; e < g.weight.size(); ++e)
    edlotab[e] = static_cast<SCOTCH_Num>(std::max(1.0, std::floor(static_cast<double>(g.weight[e]) * scale)));

  Scoped<SCOTCH_Graph, SCOTCH_graphExit> graph;
  check(SCOTCH_graphInit(&graph.value), "SCOTCH_graphInit");
  graph.live = true;
  check(SCOTCH_graphBuild(&graph.value, 0, static_cast<SCOTCH_Num>(g.n), verttab.data(), nullptr, nullptr, nullptr,
                          static_cast<SCOTCH_Num>(edgetab.size()), edgetab.data(), edlotab.data()),
        "SCOTCH_graphBuild");
  // Scotch's threads and its global random state make its results differ
  // between runs; a context of its own, deterministic with a fixed seed,
  // makes them reproducible (rankmap's output must be).
  Scoped<SCOTCH_Context, SCOTCH_contextExit> ctx;
  check(SCOTCH_contextInit(&ctx.value), "SCOTCH_contextInit");
  ctx.live = true;
  check(SCOTCH_contextOptionSetNum(&ctx.value, SCOTCH_OPTIONNUMDETERMINISTIC, 1), "SCOTCH_contextOptionSetNum");
  check(SCOTCH_contextOptionSetNum(&ctx.value, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1), "SCOTCH_contextOptionSetNum");
  SCOTCH_contextRandomSeed(&ctx.value, static_cast<SCOTCH_Num>(seed % 2147483647));
  // Declared after the context, so released before it.
  Scoped<SCOTCH_Graph, SCOTCH_graphExit> bound;
  check(SCOTCH_graphInit(&bound.value), "SCOTCH_graphInit");
  bound.live = true;
  check(SCOTCH_contextBindGraph(&ctx.value, &graph.value, &bound.value), "SCOTCH_contextBindGraph");

  const Network& net = geometry.network();
  std::vector<SCOTCH_Num> dims(net.dims.begin(), net.dims.end());
  Scoped<SCOTCH_Arch, SCOTCH_archExit> torus, sub;
  check(SCOTCH_archInit(&torus.value), "SCOTCH_archInit");
  torus.live = true;
  if (net.is_tree()) {
    // Scotch's tree-leaf target lists levels from the top, each with its
    // fan-out and the cost of meeting there: rankmap's hops, 2 per level.
    std::vector<SCOTCH_Num> sizes, costs;
    for (int d = net.num_dims() - 1; d >= 0; --d)
      sizes.push_back(net.dims[d]), costs.push_back(static_cast<SCOTCH_Num>(2 * (d + 1)));
    check(SCOTCH_archTleaf(&torus.value, static_cast<SCOTCH_Num>(sizes.size()), sizes.data(), costs.data()),
          "SCOTCH_archTleaf");
  } else {
    // Scotch's torus has wrap-around in every dimension; a mesh is its own target.
    const bool mesh = std::any_of(net.wrap.begin(), net.wrap.end(), [](bool w) { return !w; });
    check(mesh ? SCOTCH_archMeshX(&torus.value, static_cast<SCOTCH_Num>(dims.size()), dims.data())
               : SCOTCH_archTorusX(&torus.value, static_cast<SCOTCH_Num>(dims.size()), dims.data()),
          "SCOTCH_archTorusX");
  }
  // Terminals are numbered X fastest (a tree's leaves left to right), as
  // rankmap's coordinate indices.
  std::vector<SCOTCH_Num> terminals(k);
  for (int p = 0; p < k; ++p) terminals[p] = static_cast<SCOTCH_Num>(geometry.coord_index(used_nodes[p]));
  check(SCOTCH_archInit(&sub.value), "SCOTCH_archInit");
  sub.live = true;
  check(SCOTCH_archSub(&sub.value, &torus.value, k, terminals.data()), "SCOTCH_archSub");

  Scoped<SCOTCH_Strat, SCOTCH_stratExit> strat;
  check(SCOTCH_stratInit(&strat.value), "SCOTCH_stratInit");
  strat.live = true;
  check(SCOTCH_stratGraphMapBuild(&strat.value, SCOTCH_STRATBALANCE, k, 0.01), "SCOTCH_stratGraphMapBuild");
  std::vector<SCOTCH_Num> parttab(g.n);
  check(SCOTCH_graphMap(&bound.value, &sub.value, &strat.value, parttab.data()), "SCOTCH_graphMap");
  for (std::uint32_t v = 0; v < g.n; ++v) part[v] = static_cast<int>(parttab[v]);  // index in `terminals`
  enforce_part_sizes(g, part, sizes);
  return part;
}

namespace {

// Scotch's static mapping onto the used nodes: parts come placed.
class ScotchPartitioner : public Partitioner {
 public:
  std::string name() const override { return "Scotch"; }
  bool applies(const NodeSet& nodes) const override { return nodes.used.size() > 1; }
  bool cuts_for_nodes() const override { return true; }
  std::vector<int> partition(const Problem& problem, const NodeSet& nodes, std::uint64_t seed) const override {
    return partition_scotch(problem.g, nodes.sizes, nodes.used, problem.geometry, seed);
  }
};

}  // namespace

std::unique_ptr<Partitioner> make_scotch_partitioner(const Context&) { return std::make_unique<ScotchPartitioner>(); }

}  // namespace rankmap::detail
