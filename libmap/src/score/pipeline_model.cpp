// The pipeline term of gain.hpp: one-way traffic (a wavefront) timed as a
// dataflow of stages, not as exchange phases.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "machine/node_geometry.hpp"
#include "rankmap/gain.hpp"
#include "score/mapping_size.hpp"

namespace rankmap {

namespace {

constexpr std::uint64_t kPipelineWork = std::uint64_t{1} << 22;
// A stage's compute time no search goes past: 10^6 s.
constexpr double kMaxComputeNs = 1e15;

struct Edge {
  std::uint32_t from = 0, to = 0;
  double bytes = 0;  // one message's
};

// The one-way pairs in an order where every rank comes after the ranks it
// receives from; empty when some pair goes both ways or the pairs close a
// cycle (then ranks wait for each other: exchange phases, not a pipeline).
std::vector<std::uint32_t> topological_order(const Graph& p2p, std::vector<Edge>& edges, std::uint64_t& stages) {
  // The flow model's limit: larger graphs fall back to the message model.
  if (p2p.num_edges() > kMaxFlowsPerPhase) return {};
  std::vector<std::uint32_t> in_degree(p2p.ranks, 0);
  std::vector<std::uint64_t> counts;
  for (std::uint32_t r = 0; r < p2p.ranks; ++r)
    for (std::uint64_t e = p2p.offsets[r]; e < p2p.offsets[r + 1]; ++e) {
      const std::uint32_t s = p2p.targets[e];
      if (s == r || p2p.msgs[e] == 0) continue;
      for (std::uint64_t b = p2p.offsets[s]; b < p2p.offsets[s + 1]; ++b)
        if (p2p.targets[b] == r && p2p.msgs[b] > 0) return {};
      edges.push_back({r, s, static_cast<double>(p2p.bytes[e]) / static_cast<double>(p2p.msgs[e])});
      counts.push_back(p2p.msgs[e]);
      ++in_degree[s];
    }
  if (edges.empty()) return {};
  std::sort(counts.begin(), counts.end());
  stages = counts[counts.size() / 2];  // as flow_times' K
  // Kahn's algorithm, smallest rank first: a wavefront's own order.
  std::vector<std::uint32_t> order;
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready;
  for (std::uint32_t r = 0; r < p2p.ranks; ++r)
    if (in_degree[r] == 0) ready.push(r);
  while (!ready.empty()) {
    const std::uint32_t r = ready.top();
    ready.pop();
    order.push_back(r);
    for (std::uint64_t e = p2p.offsets[r]; e < p2p.offsets[r + 1]; ++e) {
      const std::uint32_t s = p2p.targets[e];
      if (s != r && p2p.msgs[e] != 0 && --in_degree[s] == 0) ready.push(s);
    }
  }
  if (order.size() != p2p.ranks) return {};
  return order;
}

class Pipeline {
 public:
  Pipeline(const Graph& p2p, const Machine& machine, const Allocation& allocation)
      : ranks_(p2p.ranks),
        order_(topological_order(p2p, edges_, stages_)),
        geometry_(machine, allocation),
        net_(machine.network) {}
  bool valid() const { return !order_.empty(); }
  std::size_t pairs() const { return edges_.size(); }
  std::uint64_t stages() const { return stages_; }

  // Each pair's message time under one mapping, in the order run_ns() walks
  // them: made once per mapping, run for every compute time tried.
  struct Timed {
    struct Up {
      std::uint32_t from;
      std::size_t at;  // this pair's place in down[from]
      double time;
    };
    struct Down {
      std::uint32_t to;
      double time;
      bool eager;  // under kEagerLimitBytes: buffered, the sender goes on
      bool operator<(const Down& o) const { return to < o.to; }
    };
    std::vector<std::vector<Up>> up;
    std::vector<std::vector<Down>> down;  // rank order
  };
  Timed timed(const Mapping& mapping) const {
    const double bytes_per_ns = net_.link_gbps / 8;
    Timed t{std::vector<std::vector<Timed::Up>>(ranks_), std::vector<std::vector<Timed::Down>>(ranks_)};
    for (const Edge& e : edges_) {
      const int a = mapping.ranks[e.from].node, b = mapping.ranks[e.to].node;
      double time = a == b ? net_.local_ns() : message_time_ns(net_, geometry_.hops(a, b));
      if (bytes_per_ns > 0) time += e.bytes / bytes_per_ns;
      t.down[e.from].push_back({e.to, time, e.bytes < kEagerLimitBytes});
    }
    for (std::uint32_t r = 0; r < ranks_; ++r) {
      std::sort(t.down[r].begin(), t.down[r].end());
      for (std::size_t i = 0; i < t.down[r].size(); ++i) t.up[t.down[r][i].to].push_back({r, i, t.down[r][i].time});
    }
    return t;  // up[r] is in sender order: senders were visited in rank order
  }

  // The last rank's end of stage K: in each stage a rank receives from its
  // upstream ranks in rank order (each message leaves when both ends are
  // ready: max(posted, sent) + its time), computes, then sends downstream in
  // rank order, a rendezvous send ending when its receiver has the message,
  // an eager one at once.
  double run_ns(const Timed& t, double compute_ns) const {
    std::vector<double> free(ranks_, 0), stage_start(ranks_, 0);
    std::vector<std::vector<double>> sent(ranks_);  // this stage's departure per downstream
    for (std::uint32_t r = 0; r < ranks_; ++r) sent[r].assign(t.down[r].size(), 0);
    for (std::uint64_t s = 0; s < stages_; ++s) {
      stage_start = free;
      for (const std::uint32_t r : order_) {
        double at = free[r];
        for (const Timed::Up& u : t.up[r]) at = std::max(at, sent[u.from][u.at]) + u.time;
        at += compute_ns;
        for (std::size_t i = 0; i < t.down[r].size(); ++i) {
          // The receiver is ready no earlier than its stage starts.
          const Timed::Down& d = t.down[r][i];
          const double start = std::max(at, stage_start[d.to]);
          sent[r][i] = start;
          if (!d.eager) at = start + d.time;
        }
        free[r] = at;
      }
    }
    return *std::max_element(free.begin(), free.end());
  }

 private:
  std::uint32_t ranks_;
  std::vector<Edge> edges_;
  std::uint64_t stages_ = 0;
  std::vector<std::uint32_t> order_;  // after edges_ and stages_: it fills them
  detail::NodeGeometry geometry_;
  const Network& net_;
};

}  // namespace

bool is_pipeline(const Graph& p2p) {
  std::vector<Edge> edges;
  std::uint64_t stages = 0;
  return !topological_order(p2p, edges, stages).empty();
}

PipelineTimes pipeline_times(const Graph& p2p, const Machine& machine, const Allocation& allocation,
                             const Mapping& mapping, const Mapping& baseline, double p_mpi) {
  detail::require_mapping_of(p2p, mapping);
  detail::require_mapping_of(p2p, baseline);
  PipelineTimes t;
  const Pipeline pipeline(p2p, machine, allocation);
  // About 110 runs of K stages over every pair solve for c: a budget keeps
  // that well under a second.
  if (!pipeline.valid() || pipeline.stages() * pipeline.pairs() > kPipelineWork) return t;
  const auto k = static_cast<double>(pipeline.stages());
  // The compute time of a stage that makes the baseline's MPI share p_mpi:
  // the share K c / run(c) of computing grows with c, so bisect.
  const Pipeline::Timed before = pipeline.timed(baseline);
  auto mpi_share = [&](double c) { return 1 - k * c / pipeline.run_ns(before, c); };
  double low = 0, high = std::max(1.0, pipeline.run_ns(before, 0));
  while (mpi_share(high) > p_mpi && high < kMaxComputeNs) high *= 2;
  // The share never falls below the pipe's filling: with D ranks along
  // its longest path the last one waits D - 1 computes before its first,
  // so run(c) tends to (K + D - 1) c and the share to (D - 1) / (K + D - 1).
  // A smaller p_mpi has no c (an 8x8 wavefront of 20 stages: 0.41).
  if (mpi_share(high) > p_mpi) {
    t.why = "the pipeline's filling alone is a larger MPI share than p_mpi";
    return t;
  }
  for (int i = 0; i < 60 && p_mpi < 1; ++i) {
    const double mid = (low + high) / 2;
    (mpi_share(mid) > p_mpi ? low : high) = mid;
  }
  t.computed = true;
  t.stages = k;
  t.compute_ns = p_mpi < 1 ? high : 0;
  t.baseline_ns = pipeline.run_ns(before, t.compute_ns);
  t.mapping_ns = pipeline.run_ns(pipeline.timed(mapping), t.compute_ns);
  return t;
}

}  // namespace rankmap
