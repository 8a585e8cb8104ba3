// The pipeline term of gain.hpp: one-way traffic (a wavefront) timed as a
// dataflow of stages, not as exchange phases.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <queue>
#include <vector>

#include "machine/node_geometry.hpp"
#include "rankmap/gain.hpp"
#include "score/flow_model.hpp"
#include "score/mapping_size.hpp"
#include "score/message_events.hpp"
#include "score/phase_simulator.hpp"
#include "score/pipeline_model.hpp"

namespace rankmap {

namespace {

// Messages a run simulates (K x pairs) at most: each is an event or two of
// max-min sharing, and c takes some 10 to 30 runs.
constexpr std::uint64_t kPipelineWork = std::uint64_t{1} << 16;
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
  for (std::uint32_t r = 0; r < p2p.ranks; ++r)
    for (std::uint64_t e = p2p.offsets[r]; e < p2p.offsets[r + 1]; ++e) {
      const std::uint32_t s = p2p.targets[e];
      if (s == r || p2p.msgs[e] == 0) continue;
      for (std::uint64_t b = p2p.offsets[s]; b < p2p.offsets[s + 1]; ++b)
        if (p2p.targets[b] == r && p2p.msgs[b] > 0) return {};
      edges.push_back({r, s, static_cast<double>(p2p.bytes[e]) / static_cast<double>(p2p.msgs[e])});
      ++in_degree[s];
    }
  if (edges.empty()) return {};
  stages = detail::phase_count(p2p);  // as flow_times' K
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
        net_(machine.network),
        nodes_(allocation.size()),
        up_(ranks_),
        down_(ranks_) {
    // Senders in rank order, receivers in rank order: the order each rank
    // posts its receives and sends in.
    for (std::uint32_t e = 0; e < edges_.size(); ++e)
      up_[edges_[e].to].push_back(e), down_[edges_[e].from].push_back(e);
    for (auto& d : down_)
      std::sort(d.begin(), d.end(), [&](std::uint32_t x, std::uint32_t y) { return edges_[x].to < edges_[y].to; });
    for (auto& u : up_)
      std::sort(u.begin(), u.end(), [&](std::uint32_t x, std::uint32_t y) { return edges_[x].from < edges_[y].from; });
  }
  // A pipeline of at most kPipelineWork messages (K x pairs): one this
  // model times.
  bool fits() const { return !order_.empty() && stages_ * edges_.size() <= kPipelineWork; }
  std::uint64_t stages() const { return stages_; }

  // D: the ranks along the longest path of pairs.
  std::uint64_t longest_path() const {
    std::vector<std::uint64_t> depth(ranks_, 1);
    for (const std::uint32_t r : order_)
      for (const std::uint32_t e : down_[r]) depth[edges_[e].to] = std::max(depth[edges_[e].to], depth[r] + 1);
    return order_.empty() ? 0 : *std::max_element(depth.begin(), depth.end());
  }

  // Each pair's message under one mapping (its latency, route and one
  // message's bytes): made once per mapping, run for every compute time tried.
  std::vector<detail::Flow> timed(const Mapping& mapping) const {
    std::vector<detail::Flow> flows;
    flows.reserve(edges_.size());
    for (const Edge& e : edges_) {
      flows.push_back(detail::routed_flow(net_, geometry_, mapping, nodes_, e.from, e.to));
      flows.back().bytes = e.bytes;
    }
    return flows;
  }

  // The last rank's end of stage K, or -1 past the work budget. Every rank
  // runs its program: in each stage it receives from its upstream ranks in
  // rank order, computes, then sends downstream in rank order (a rendezvous
  // send ends when its receiver has the message, an eager one at once). A
  // message moves once its send and its receive are both posted, as in
  // SMPI: its latency first, then its bytes, between nodes at a max-min
  // fair share of the NICs and links of its route, in a node alone at the
  // link rate. The shares are what the model missed when it timed each
  // message alone: on SMPI's 8x8 wavefront on Desmos (bench/RESULTS.md,
  // issue 55, fifth session) the two ranks of a node that pass on at once
  // share its NIC, and which neighbour shares a node decides it.
  double run_ns(const std::vector<detail::Flow>& flows, double compute_ns) {
    detail::PhaseSimulator sim(detail::resource_rates(net_, nodes_), net_.link_gbps / 8);
    sim.charge(work_);  // one budget for every run of this pipeline
    sim.group_routes(flows);
    Run run(*this, flows, compute_ns, sim);
    const double t = run.all();
    work_ = sim.work();
    return work_ <= detail::kFlowModelWork ? t : -1;
  }

 private:
  // One simulated run: the ranks' programs and the messages in flight.
  class Run {
   public:
    Run(const Pipeline& p, const std::vector<detail::Flow>& flows, double compute_ns, detail::PhaseSimulator& sim)
        : p_(p),
          flows_(flows),
          compute_ns_(compute_ns),
          events_(flows, sim, p.net_.link_gbps / 8),
          ranks_(p.ranks_),
          sent_(flows.size()),
          posted_(flows.size(), -1) {}

    double all() {
      for (std::uint32_t r = 0; r < p_.ranks_; ++r) advance(r);
      events_.run([&](std::uint32_t f, double now) { received(f, now); });
      double last = 0;
      for (const Rank& k : ranks_) last = std::max(last, k.clock);
      return last;
    }

   private:
    struct Rank {
      std::uint64_t stage = 0;
      std::size_t step = 0;  // receives, then the compute, then the sends
      double clock = 0;
    };

    bool eager(std::uint32_t f) const { return flows_[f].bytes < kEagerLimitBytes; }
    void start(std::uint32_t f, double at) { events_.start(f, at); }

    void received(std::uint32_t f, double now) {
      const std::uint32_t to = p_.edges_[f].to, from = p_.edges_[f].from;
      ranks_[to].clock = now, ++ranks_[to].step;
      advance(to);
      if (!eager(f)) ranks_[from].clock = now, ++ranks_[from].step, advance(from);
    }

    // Runs rank r until it waits for a message or ends its last stage.
    void advance(std::uint32_t r) {
      Rank& k = ranks_[r];
      const auto& up = p_.up_[r];
      const auto& down = p_.down_[r];
      while (k.stage < p_.stages_) {
        if (k.step < up.size()) {
          const std::uint32_t f = up[k.step];
          if (sent_[f].empty()) {
            posted_[f] = k.clock;
          } else {
            start(f, std::max(k.clock, sent_[f].front()));
            sent_[f].pop_front();
          }
          return;
        }
        if (k.step == up.size()) {
          k.clock += compute_ns_, ++k.step;
          continue;
        }
        const std::size_t i = k.step - up.size() - 1;
        if (i == down.size()) {
          ++k.stage, k.step = 0;
          continue;
        }
        const std::uint32_t f = down[i];
        if (posted_[f] >= 0) {
          start(f, std::max(k.clock, posted_[f]));
          posted_[f] = -1;
        } else {
          sent_[f].push_back(k.clock);
        }
        if (!eager(f)) return;  // until its receiver has it
        ++k.step;
      }
    }

    const Pipeline& p_;
    const std::vector<detail::Flow>& flows_;
    double compute_ns_;
    detail::MessageEvents events_;
    std::vector<Rank> ranks_;
    std::vector<std::deque<double>> sent_;  // each pair's sends not yet received, oldest first
    std::vector<double> posted_;            // each pair's receive posted before its send, or -1
  };

  std::uint32_t ranks_;
  std::vector<Edge> edges_;
  std::uint64_t stages_ = 0;
  std::vector<std::uint32_t> order_;  // after edges_ and stages_: it fills them
  detail::NodeGeometry geometry_;
  const Network& net_;
  std::size_t nodes_;
  std::vector<std::vector<std::uint32_t>> up_, down_;  // each rank's pairs in, and out
  std::uint64_t work_ = 0;                             // the simulator's steps over every run
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
  Pipeline pipeline(p2p, machine, allocation);
  // Some 10 to 30 runs of K stages over every pair solve for c: the
  // budget keeps that to about two seconds.
  if (!pipeline.fits()) return t;
  const auto k = static_cast<double>(pipeline.stages());
  // The compute time of a stage that makes the baseline's MPI share p_mpi:
  // the share K c / run(c) of computing grows with c, so bracket it and
  // close in (the Illinois method: false position, the stale end's share
  // halved so that both ends move).
  // The share never falls below the pipe's filling: with D ranks along
  // its longest path the last one waits D - 1 computes before its first,
  // so run(c) tends to (K + D - 1) c and the share to (D - 1) / (K + D - 1).
  // A smaller p_mpi has no c (an 8x8 wavefront of 20 stages: 0.41), and
  // one no larger is not searched for (from above, it needs c without end).
  const auto d = static_cast<double>(pipeline.longest_path());
  const char* filling = "the pipeline's filling alone is a larger MPI share than p_mpi";
  if (p_mpi <= (d - 1) / (k + d - 1)) {
    t.why = filling;
    return t;
  }
  const std::vector<detail::Flow> before = pipeline.timed(baseline);
  bool over = false;
  auto run = [&](const std::vector<detail::Flow>& flows, double c) {
    const double ns = pipeline.run_ns(flows, c);
    over = over || ns < 0;
    return ns;
  };
  auto mpi_share = [&](double c) { return 1 - k * c / run(before, c); };
  // The first guess: were the run its communication plus K computes, K c =
  // run(0) (1 - p_mpi) / p_mpi. Bracketed from there by doubling or halving.
  const double run0 = run(before, 0);
  double low = 0, f_low = 1 - p_mpi;  // no compute: all MPI
  double high = p_mpi < 1 ? std::max(1.0, run0 * (1 - p_mpi) / p_mpi / k) : 1.0;
  double f_high = mpi_share(high) - p_mpi;
  if (f_high > 0) {
    while (!over && f_high > 0 && high < kMaxComputeNs)
      low = high, f_low = f_high, high *= 2, f_high = mpi_share(high) - p_mpi;
  } else {
    for (double c = high / 2; !over && c >= 1; c /= 2) {
      const double f = mpi_share(c) - p_mpi;
      if (f > 0) {
        low = c, f_low = f;
        break;
      }
      high = c, f_high = f;
    }
  }
  if (!over && f_high > 0) {  // the filling, near enough
    t.why = filling;
    return t;
  }
  // To a thousandth of c, or the share to 10^-9: on thousands of flows a
  // run's time moves by a percent or two between values of c 0.01 % apart
  // (which message goes first changes), so finer is noise.
  for (int i = 0, kept = 0; i < 60 && !over && p_mpi < 1 && high - low > 1e-3 * high && std::min(f_low, -f_high) > 1e-9;
       ++i) {
    double c = (low * f_high - high * f_low) / (f_high - f_low);
    if (!(c > low && c < high)) c = (low + high) / 2;
    const double f = mpi_share(c) - p_mpi;
    if (f > 0) {
      low = c, f_low = f;
      if (kept == 1) f_high /= 2;  // high kept twice
      kept = 1;
    } else {
      high = c, f_high = f;
      if (kept == -1) f_low /= 2;
      kept = -1;
      if (f == 0) break;
    }
  }
  // Where the line through the bracket's ends meets p_mpi: on a smooth
  // share (a few hundred flows) that is c to about 10^-9.
  t.compute_ns = p_mpi >= 1 ? 0 : f_high == f_low ? high : (low * f_high - high * f_low) / (f_high - f_low);
  t.baseline_ns = run(before, t.compute_ns);
  t.mapping_ns = run(pipeline.timed(mapping), t.compute_ns);
  if (over) {
    t.why = detail::kFlowModelWorkRanOut;
    return t;
  }
  t.computed = true;
  t.stages = k;
  return t;
}

namespace detail {

std::optional<double> pipeline_run_ns(const Graph& p2p, const Machine& machine, const Allocation& allocation,
                                      const Mapping& mapping, double compute_ns) {
  require_mapping_of(p2p, mapping);
  Pipeline pipeline(p2p, machine, allocation);
  if (!pipeline.fits()) return std::nullopt;
  const double ns = pipeline.run_ns(pipeline.timed(mapping), compute_ns);
  if (ns < 0) return std::nullopt;
  return ns;
}

}  // namespace detail

}  // namespace rankmap
