// The Context composes the pipeline: which stages run, in which order.
// Order matters: among candidates of equal scores the earlier one wins.
#include <string>

#include "map/stages.hpp"

namespace rankmap::detail {

namespace {

// Scotch's mesh and torus targets take at most 5 dimensions
// (ARCHMESHDIMNMAX in Debian's 7.0.3): SCOTCH_archLoad refuses a sixth and
// then crashes inside itself, so such a target is never handed to it.
constexpr int kScotchTorusDims = 5;

}  // namespace

Pipeline make_pipeline(const Context& context, const Network& network) {
  const auto& p = context.partition;
  Pipeline pipeline;
  const bool scotch = p.scotch && (network.is_tree() || network.num_dims() <= kScotchTorusDims);
  if (p.scotch && !scotch)
    pipeline.skipped.push_back("Scotch skipped: its torus targets take at most " + std::to_string(kScotchTorusDims) +
                               " dimensions, this machine has " + std::to_string(network.num_dims()));
  // The hierarchy stands in for both METIS pipelines on thousands of nodes.
  if (p.metis_kway || p.recursive_bisection) pipeline.partitioners.push_back(make_hierarchy_partitioner(context));
  if (p.recursive_bisection) pipeline.partitioners.push_back(make_recursive_bisection_partitioner(context));
  pipeline.partitioners.push_back(make_metis_kway_partitioner(context));  // applies when enabled or on one node
  if (scotch) pipeline.partitioners.push_back(make_scotch_partitioner(context));

  if (context.placement.greedy) pipeline.starts.push_back(make_greedy_start());
  if (context.placement.cuthill_mckee) pipeline.starts.push_back(make_cuthill_mckee_start());
  if (context.placement.rank_order) pipeline.starts.push_back(make_rank_order_start());
  pipeline.each_start.push_back(make_hop_byte_swaps(context.placement.swap_passes));
  if (context.placement.swap_passes > 0) {
    pipeline.best_start.push_back(make_tabu_placement());
    pipeline.best_start.push_back(make_link_load_swaps(context.placement.swap_passes));
  }

  if (context.refinement.rank_swap_passes > 0)
    pipeline.rank_refiners.push_back(make_rank_swaps(context.refinement.rank_swap_passes));
  if (context.refinement.rank_moves) pipeline.rank_refiners.push_back(make_rank_moves());
  // Last: the peak link, once hop-bytes have settled: first the exchanges
  // of whole nodes that cost no hop-bytes, then rank swaps that may. Their
  // rounds are short (a work budget bounds them): 32 gained 0.4 % over 8 on
  // bench/quality.py.
  if (context.placement.swap_passes > 0) {
    pipeline.rank_refiners.push_back(make_port_swaps());
    pipeline.rank_refiners.push_back(make_rank_link_swaps(4 * context.placement.swap_passes));
  }
  return pipeline;
}

}  // namespace rankmap::detail
