// Iterated exchanges as each rank's program (exchange_program.hpp).
#include "score/exchange_program.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "machine/node_geometry.hpp"
#include "rankmap/gain.hpp"
#include "score/flow_model.hpp"
#include "score/mapping_size.hpp"
#include "score/message_events.hpp"
#include "score/phase_simulator.hpp"

namespace rankmap::detail {

namespace {

// One run of every rank's program over the flows.
class ExchangeRun {
 public:
  ExchangeRun(const std::vector<Flow>& flows, std::size_t ranks, std::uint64_t iterations, double compute_ns,
              PhaseSimulator& sim, double bytes_per_ns)
      : flows_(flows),
        iterations_(iterations),
        compute_ns_(compute_ns),
        events_(flows, sim, bytes_per_ns),
        ranks_(ranks),
        in_(ranks),
        out_(ranks),
        sends_(flows.size()),
        receives_(flows.size()),
        ends_(iterations, 0),
        rank_ends_(ranks, 0) {
    for (std::uint32_t f = 0; f < flows.size(); ++f) out_[flows[f].src].push_back(f), in_[flows[f].dst].push_back(f);
  }

  // The last rank's end of its last iteration.
  double all() {
    for (std::uint32_t r = 0; r < ranks_.size(); ++r) post(r, compute_ns_);
    events_.run([&](std::uint32_t f, double now) {
      ended(flows_[f].dst, now);
      if (!eager(f)) ended(flows_[f].src, now);
    });
    return ends_.empty() ? 0 : ends_.back();
  }

  // The last rank's end of each iteration.
  const std::vector<double>& ends() const { return ends_; }
  // Each rank's end of its last iteration.
  const std::vector<double>& rank_ends() const { return rank_ends_; }

 private:
  struct Rank {
    std::uint64_t iteration = 0;  // the one it is in
    std::uint32_t waiting = 0;    // its messages of that iteration not yet ended
  };

  bool eager(std::uint32_t f) const { return flows_[f].bytes < kEagerLimitBytes; }

  // Rank r posts its iteration's receives and sends at `at`; an iteration
  // with nothing to wait for ends there, and the next one is posted after
  // its compute.
  void post(std::uint32_t r, double at) {
    Rank& k = ranks_[r];
    for (;;) {
      for (const std::uint32_t f : out_[r])
        if (flows_[f].messages > k.iteration) {
          match(f, at, sends_[f], receives_[f]);
          k.waiting += !eager(f);
        }
      for (const std::uint32_t f : in_[r])
        if (flows_[f].messages > k.iteration) match(f, at, receives_[f], sends_[f]), ++k.waiting;
      if (k.waiting > 0) return;
      finish(k, at);
      if (k.iteration == iterations_) return;
      at += compute_ns_;
    }
  }

  // One end of flow f's next message posted at `at`: it starts when the
  // other end has posted too (each pair's messages in order).
  void match(std::uint32_t f, double at, std::deque<double>& mine, std::deque<double>& other) {
    if (other.empty()) {
      mine.push_back(at);
      return;
    }
    events_.start(f, std::max(at, other.front()));
    other.pop_front();
  }

  void ended(std::uint32_t r, double now) {
    Rank& k = ranks_[r];
    if (--k.waiting > 0) return;
    finish(k, now);
    if (k.iteration < iterations_) post(r, now + compute_ns_);
  }

  void finish(Rank& k, double at) {
    ends_[k.iteration] = std::max(ends_[k.iteration], at);
    rank_ends_[static_cast<std::size_t>(&k - ranks_.data())] = at;
    ++k.iteration;
  }

  const std::vector<Flow>& flows_;
  std::uint64_t iterations_;
  double compute_ns_;
  MessageEvents events_;
  std::vector<Rank> ranks_;
  std::vector<std::vector<std::uint32_t>> in_, out_;  // each rank's flows received and sent
  std::vector<std::deque<double>> sends_, receives_;  // each flow's posts its other end has not matched yet
  std::vector<double> ends_, rank_ends_;
};

// The program's runs under one mapping, on one work budget.
class ExchangeProgram {
 public:
  ExchangeProgram(const Graph& p2p, const Machine& machine, const Allocation& allocation, const Mapping& mapping)
      : ranks_(p2p.ranks),
        bytes_per_ns_(machine.network.link_gbps / 8),
        sim_(resource_rates(machine.network, allocation.size()), bytes_per_ns_) {
    if (phase_messages(p2p) > kMaxFlowsPerPhase) return;
    const NodeGeometry geometry(machine, allocation);
    std::optional<std::vector<Flow>> made = phase_flows(p2p, machine, geometry, mapping, allocation.size(), sim_);
    if (!made) return;
    flows_ = std::move(*made);
    for (const Flow& f : flows_) iterations_ = std::max(iterations_, f.messages);
    sim_.group_routes(flows_);
    usable_ = sim_.work() <= kFlowModelWork;
  }

  // The first `iterations` run; the rest, to K, at the pace of the
  // second half of them (ranks drift apart in the first few). rank_ends,
  // when given: each rank's end of the last iteration run.
  std::optional<double> run_ns(double compute_ns, std::uint64_t iterations, std::vector<double>* rank_ends = nullptr) {
    if (!usable_) return std::nullopt;
    if (iterations == 0) return 0.0;
    ExchangeRun run(flows_, ranks_, iterations, compute_ns, sim_, bytes_per_ns_);
    const double ns = run.all();
    if (rank_ends) *rank_ends = run.rank_ends();
    if (sim_.work() > kFlowModelWork) return std::nullopt;
    if (iterations >= iterations_) return ns;
    // The second half starts where the first ends (at 0 for one iteration).
    const std::uint64_t half = iterations / 2;
    const double first = half == 0 ? 0 : run.ends()[half - 1];
    const double pace = (ns - first) / static_cast<double>(iterations - half);
    return ns + pace * static_cast<double>(iterations_ - iterations);
  }
  std::uint64_t iterations() const { return iterations_; }
  std::uint64_t work() const { return sim_.work(); }

 private:
  std::size_t ranks_;
  double bytes_per_ns_;
  PhaseSimulator sim_;
  std::vector<Flow> flows_;
  std::uint64_t iterations_ = 0;
  bool usable_ = false;
};

}  // namespace

std::optional<double> exchange_program_ns(const Graph& p2p, const Machine& machine, const Allocation& allocation,
                                          const Mapping& mapping, double compute_ns, std::uint64_t iterations,
                                          std::uint64_t* work, std::vector<double>* rank_ends) {
  require_mapping_of(p2p, mapping);
  ExchangeProgram program(p2p, machine, allocation, mapping);
  const std::optional<double> ns = program.run_ns(compute_ns, std::min(iterations, program.iterations()), rank_ends);
  if (work) *work = program.work();
  return ns;
}

std::optional<double> exchange_compute_ns(const Graph& p2p, const Machine& machine, const Allocation& allocation,
                                          const Mapping& baseline, double p_mpi) {
  require_mapping_of(p2p, baseline);
  ExchangeProgram program(p2p, machine, allocation, baseline);
  const auto k = static_cast<double>(program.iterations());
  if (p_mpi >= 1 || k == 0)
    return program.run_ns(0, program.iterations()).has_value() ? std::optional<double>(0.0) : std::nullopt;
  double c = 0;
  for (int i = 0; i < 3; ++i) {
    const std::optional<double> ns = program.run_ns(c, program.iterations());
    if (!ns) return std::nullopt;
    c = (*ns - k * c) * (1 - p_mpi) / p_mpi / k;
  }
  return c;
}

}  // namespace rankmap::detail

namespace rankmap {

bool exchanges_as_programs(const Graph& p2p, const Graph& collective, const std::vector<CollectiveCalls>* calls) {
  const std::uint64_t k = detail::phase_count(p2p);
  if (k == 0 || is_pipeline(p2p)) return false;
  // Collectives only around the loop: at most kCallsAroundTheLoop calls a
  // rank (the profile's call records), else as many messages between a
  // pair of the collective graph; and each fewer than K / 2. A count of
  // messages a pair is no count of iterations: LAMMPS's melt has 1,056 a
  // pair and an allreduce every few steps.
  const std::uint64_t most = std::min<std::uint64_t>(detail::kCallsAroundTheLoop, (k - 1) / 2);
  if (calls && !calls->empty()) {
    std::vector<std::uint64_t> of_rank(p2p.ranks, 0);
    for (const CollectiveCalls& c : *calls)
      if (c.rank >= p2p.ranks || (of_rank[c.rank] += c.calls) > most) return false;
    return true;
  }
  for (std::uint32_t r = 0; r < collective.ranks; ++r)
    for (std::uint64_t e = collective.offsets[r]; e < collective.offsets[r + 1]; ++e)
      if (collective.msgs[e] > most) return false;
  return true;
}

ExchangeProgramTimes exchange_program_times(const Graph& p2p, const Machine& machine, const Allocation& allocation,
                                            const Mapping& mapping, const Mapping& baseline, double p_mpi) {
  detail::require_mapping_of(p2p, mapping);
  ExchangeProgramTimes t;
  const std::optional<double> c = detail::exchange_compute_ns(p2p, machine, allocation, baseline, p_mpi);
  if (!c) return t;
  const std::optional<double> before = detail::exchange_program_ns(p2p, machine, allocation, baseline, *c);
  const std::optional<double> after = detail::exchange_program_ns(p2p, machine, allocation, mapping, *c);
  if (!before || !after) return t;
  t.computed = true;
  t.iterations = static_cast<double>(detail::phase_count(p2p));
  t.compute_ns = *c, t.baseline_ns = *before, t.mapping_ns = *after;
  return t;
}

}  // namespace rankmap
