// The METIS k-way stage of the engine (stages.hpp); METIS itself is called
// in partition/metis.cpp.
#include "map/stages.hpp"
#include "partition/metis.hpp"

namespace rankmap::detail {
namespace {

// One METIS k-way call into a part per node: parts know nothing of where
// their nodes are, so placement starts from scratch. Too slow for
// thousands of nodes (the hierarchy covers them). On a single node it is
// the one partitioner that runs even when not enabled: something must.
class MetisKwayPartitioner : public Partitioner {
 public:
  MetisKwayPartitioner(bool enabled, int cuts) : enabled_(enabled), cuts_(cuts) {}
  std::string name() const override { return "METIS k-way"; }
  bool applies(const NodeSet& nodes) const override { return !nodes.large() && (enabled_ || nodes.used.size() == 1); }
  bool cuts_for_nodes() const override { return false; }
  std::vector<int> partition(const Problem& problem, const NodeSet& nodes, std::uint64_t seed) const override {
    return metis_split(problem.g, nodes.sizes, seed, cuts_, false, VertexOrder::drawn);
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
