// Scotch static mapping of the rank graph onto the network (the kind's
// Scotch target, network_kind.hpp), restricted to the used nodes, as a
// Scotch user would do it. Scotch returns 0 on success; its messages go to
// SCOTCH_errorPrint, which libmap defines (scotch_errors.cpp) to keep them
// instead of printing.
#include <scotch.h>
#include <cstdio>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>

#include "map/kinds/network_kind.hpp"
#include "map/partition/scotch_errors.hpp"
#include "map/stages.hpp"
#include "partition/integer_weights.hpp"
#include "partition/part_sizes.hpp"
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
  if (status != 0) throw Error(std::string(call) + " failed: " + take_scotch_error(), ErrorKind::internal);
}

// A target from its text form ("torusXD 3 4 4 4", "tleaf 2 8 4 16 2"), as
// Scotch reads a target file.
void load_target(const std::string& text, SCOTCH_Arch& arch) {
  std::string buffer = text + "\n";
  FILE* stream = fmemopen(buffer.data(), buffer.size(), "r");
  if (!stream) throw Error("fmemopen failed for the Scotch target '" + text + "'", ErrorKind::internal);
  const int status = SCOTCH_archLoad(&arch, stream);
  std::fclose(stream);
  check(status, "SCOTCH_archLoad");
}

}  // namespace

std::vector<int> partition_scotch(const UndirectedGraph& g, const std::vector<std::uint32_t>& sizes,
                                  const std::vector<int>& used_nodes, const NodeGeometry& geometry,
                                  std::uint64_t seed) {
  static_assert(sizeof(SCOTCH_Num) == sizeof(int), "weights are scaled for a 32-bit SCOTCH_Num");
  const int k = static_cast<int>(sizes.size());
  std::vector<int> part(g.n, 0);
  if (k <= 1 || g.n == 0) return part;
  // The engine's trials run on several threads. Each call has a Scotch
  // context of its own (below), but Scotch's error reporting and its
  // library-wide set-up are not documented as safe beside each other: one
  // call at a time (Scotch runs only in `quality`).
  static std::mutex one_call_at_a_time;
  const std::lock_guard<std::mutex> lock(one_call_at_a_time);

  std::vector<SCOTCH_Num> verttab(g.xadj.begin(), g.xadj.end()), edgetab(g.adjncy.begin(), g.adjncy.end());
  std::vector<SCOTCH_Num> edlotab = integer_weights<SCOTCH_Num>(g.weight);

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

  Scoped<SCOTCH_Arch, SCOTCH_archExit> whole, sub;
  check(SCOTCH_archInit(&whole.value), "SCOTCH_archInit");
  whole.live = true;
  load_target(engine_kind(geometry.network()).scotch_target(geometry.network()), whole.value);
  // Terminals are numbered as rankmap's coordinate indices.
  std::vector<SCOTCH_Num> terminals(k);
  for (int p = 0; p < k; ++p) terminals[p] = static_cast<SCOTCH_Num>(geometry.coord_index(used_nodes[p]));
  check(SCOTCH_archInit(&sub.value), "SCOTCH_archInit");
  sub.live = true;
  check(SCOTCH_archSub(&sub.value, &whole.value, k, terminals.data()), "SCOTCH_archSub");

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
