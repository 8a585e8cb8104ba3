// The gain model (docs/design.md): what a better mapping buys.
//
//   T(d) = t_inj + t_ej + t_hop * d            zero-byte message time, d hops
//   measured:  gain of B over A = p_mpi * (T_A - T_B) / T_A
//   seed:      dt/t = p_mpi * t_hop * (d - 1) / (t_inj + t_ej + t_hop * d)
//
// T_A and T_B are the mean message times of two mappings of one graph on one
// machine. The seed formula is the measured model with T_A = T(d) (d the
// torus diameter, or its mean distance) and T_B = T(1): partners moved next
// to each other.
#pragma once

#include "rankmap/allocation.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/mapping.hpp"
#include "rankmap/metrics.hpp"
#include "rankmap/profile.hpp"

namespace rankmap {

// T(d): the zero-byte time of a message over d hops, in ns.
double message_time_ns(const Network& net, double hops);

// p_mpi * (t_before - t_after) / t_before; 0 when t_before is not positive.
double relative_gain(double p_mpi, double t_before, double t_after);

// The measured model on mean hop counts (T is linear in d, so the
// message-weighted mean of T(h) is T of the mean of h).
double predicted_gain(const Network& net, double p_mpi, double hops_before, double hops_after);

// Which distance the seed formula reads as d.
enum class SeedDistance { diameter, mean };

// The mean shortest-path distance in hops between two distinct nodes of the
// torus, all ordered pairs alike (exact, not the paper's diameter / 2).
double mean_distance(const Network& net);

// The seed formula, exactly, with d = diameter() or mean_distance().
double seed_gain(const Network& net, double p_mpi, SeedDistance d = SeedDistance::diameter);

// The traffic-weighted mean message time of one mapping, in ns, over pairs of
// distinct ranks; T_ij is T(h_ij) between nodes, Network::local_ns() inside
// one (T(0) unless the machine gives t_local_ns).
struct MessageTimes {
  double by_messages_ns = 0;  // sum(m_ij T_ij) / sum(m_ij)
  // sum(b_ij (T_ij + s_ij / bw)) / sum(b_ij), s_ij = b_ij / m_ij the mean
  // message size of the pair; without a link bandwidth in the machine, the
  // transfer term s_ij / bw is left out. 0 when no bytes flow.
  double by_bytes_ns = 0;
};
MessageTimes mean_message_times(const Graph& graph, const Network& net, const Metrics& metrics);

// The slowest-sender reading, for codes that wait for all their partners at
// once (a halo's Waitall, a wavefront's receives from north and west): a
// rank waits for the slowest message it receives, so each of its messages
// costs that. The mean over receiving ranks, weighted by the messages each
// receives, of the largest T_ij over its senders i, in ns. Never below the
// mean message time; equal to it when every rank's senders are alike.
double slowest_sender_ns(const Graph& graph, const Machine& machine, const Allocation& allocation,
                         const Mapping& mapping);

// The phase model, for codes that exchange in phases: every rank posts
// all its sends and receives at once, then waits for them all (a halo, a
// transpose). With K phases (the most messages one rank sends another), a
// pair that exchanges b bytes in m messages is active in m / K of the
// phases, with messages of b / m bytes. In a phase:
//   - a message between nodes takes T(h) plus, over the bandwidth, the
//     bytes a phase of the busiest resource on its way: its node's
//     injection link (all the node's ranks share it), a network link under
//     the machine's routing, the far node's ejection link; at least its own
//     size. Inside a node: local_ns() + size / bw.
//   - a rank waits for the slowest message it receives, each sender
//     present with chance m / K (the expected slowest).
// slowest_ns is the longest wait of any rank (the slowest rank paces a
// tightly coupled code); mean_ns the ranks' waits weighted by the messages
// each receives. Without a bandwidth (link_gbps 0) only T counts, and a
// graph whose every message is h hops long costs T(h): the seed formula is
// relative_gain() of T(d) against T(1).
struct PhaseTimes {
  double phases = 0;  // K
  double slowest_ns = 0, mean_ns = 0;
  // For the report: the busiest link, injection and ejection, a phase's
  // bytes over the bandwidth.
  double link_ns = 0, injection_ns = 0, ejection_ns = 0;
};
// `metrics` is evaluate() of the same mapping (its link loads are reused).
PhaseTimes phase_times(const Graph& graph, const Machine& machine, const Allocation& allocation, const Mapping& mapping,
                       const Metrics& metrics);

// The flow model, predicted_gain's (bench/smpi/flow_model.py is its slower
// reference, and RESULTS.md "Issue 13" its validation against SMPI):
//   - point-to-point traffic is K exchange phases, K the median pair's
//     message count. A pair with m messages sends one of b / m bytes in
//     each of the first m phases (past K, b / K in each of the K), so
//     phases with the same senders are simulated once. Past 16 distinct
//     counts, consecutive ones whose pairs fall by under 10 % are
//     simulated once, as their middle phase (HPCC's 88 counts: 0.7 %).
//   - in a phase every message starts at once. It waits its latency T(h)
//     (local_ns() inside a node), then streams at a max-min fair share of
//     each link on its way: its node's injection link, the network links of
//     the machine's routing, the far node's ejection link, `link_gbps` each
//     way. Shares are recomputed whenever a message starts or ends. Inside
//     a node a message streams alone at the link rate.
//   - a rank's phase ends with the last message it receives, or sends when
//     the message is kEagerLimitBytes or more (the sender then waits for the
//     receiver).
//   - collectives, when the profile records its calls (version 2), are
//     replayed as the library runs them. The run is I periods, I the most
//     frequent collective's calls; in each, every rank spends its share of
//     its phases, then each collective (algorithm and communicator) of at
//     least I / 2 calls runs once, in the order of their first calls,
//     round after round, weighing calls / I. A round holds one call's
//     messages of every rank at once, shared as in a phase; a message
//     moves once both its ends have reached the round (the receive is
//     posted: SMPI's matching), and a rank is ready again when its last
//     message of the round is received (or sent, from kEagerLimitBytes).
//     Ready times carry over between periods; three are simulated and the
//     rest extrapolated. Rarer collectives (a barrier before and after the
//     loop) run apart, each call from ranks that start together. The run's
//     time is the last rank's.
//   - without call records, collective traffic is a chain: a rank
//     receives its messages one after another, each T(h) + size / bw. All
//     ranks' rounds run at once, so a chain is no shorter than the busiest
//     resource's collective bytes over bw (the collective floor). A rank's
//     time is the sum of its phase ends plus its chain; the run's is the
//     slowest rank's: neighbours wait for each other. Without a bandwidth
// (link_gbps 0) only latencies count, and a graph whose every message is h
// hops long costs K * T(h): the seed formula is relative_gain() of T(d)
// against T(1).
struct FlowTimes {
  // False when the graph has more messages per phase than the model
  // simulates (kMaxFlowsPerPhase), or when simulating them would take more
  // than about two seconds; the other fields are then 0.
  bool computed = false;
  double phases = 0;                // K
  double slowest_ns = 0;            // the slowest rank's time
  double p2p_ns = 0, chain_ns = 0;  // that rank's phases and collectives (chain or rounds)
  double collective_floor_ns = 0;   // the busiest resource's collective bytes over bw
  bool rounds = false;              // collectives replayed by rounds, not chains
  const char* why = "";             // when not computed: which limit stopped it
};
inline constexpr std::size_t kMaxFlowsPerPhase = std::size_t{1} << 17;
// Past this many recorded collective sends (all ranks, rounds and
// algorithms), collectives are read as chains, not replayed by rounds.
inline constexpr std::size_t kMaxCollectiveSends = std::size_t{1} << 20;
// SMPI's detached-send threshold (smpi/send-is-detached-thresh): smaller
// sends are buffered, this size and larger wait; Open MPI's TCP eager limit.
inline constexpr double kEagerLimitBytes = 65536;
// `collective` may be empty (a graph without traffic kinds is all p2p).
// `calls`: the profile's call records (Profile::calls, when complete), or
// null for chains; records naming ranks outside the mapping, or more than
// kMaxCollectiveSends sends, are ignored (chains again).
FlowTimes flow_times(const Graph& p2p, const Graph& collective, const Machine& machine, const Allocation& allocation,
                     const Mapping& mapping, const std::vector<CollectiveCalls>* calls = nullptr);

// The pipeline term. When every point-to-point pair goes one way and the
// pairs close no cycle (a wavefront: ranks wait for upstream neighbours
// and pass on downstream), ranks do not wait for each other at once but
// one after another along the pipe, so exchange phases are the wrong
// picture. Then the run is K stages (K as in the flow model); in each, a
// rank receives from its upstream ranks in rank order, computes for c,
// then sends downstream in rank order: a send of kEagerLimitBytes or more
// ends when the message is received (MPI's rendezvous protocol), a smaller
// one is buffered and the sender goes on (SMPI's detached sends, MPI's
// eager protocol). A message moves once both ends are ready: its T(h),
// then its bytes at a max-min fair share of its route (the NICs and links,
// shared with every message streaming at the time; in a node alone at the
// link rate). c is solved so that the baseline's MPI share is p_mpi; the
// gain is then the run times' relative difference. Collectives are not
// counted. The engine ranks its candidates for such traffic by the same
// run, with the c that TrafficKinds::p_mpi gives, else none (map.hpp).
bool is_pipeline(const Graph& p2p);
struct PipelineTimes {
  bool computed = false;                   // false: not a pipeline, K x pairs over 65,536, the work budget
                                           // ran out, or p_mpi below what the pipe's filling alone spends
  double stages = 0;                       // K
  double compute_ns = 0;                   // c
  double baseline_ns = 0, mapping_ns = 0;  // the runs' times, compute included
  const char* why = "";                    // when not computed for a pipeline: which limit stopped it
};
PipelineTimes pipeline_times(const Graph& p2p, const Machine& machine, const Allocation& allocation,
                             const Mapping& mapping, const Mapping& baseline, double p_mpi);

// The program model, for exchanges between rare collectives. The flow
// model's phases start every message of a phase together; with compute
// between exchanges ranks drift apart, and which link is busy changes over
// time. Here the run is K iterations (K and each pair's messages as in the
// flow model); in each, a rank computes for c, posts every receive and
// send of the iteration, and waits for its receives and its sends of
// kEagerLimitBytes or more. A message moves once both ranks have posted
// it: its latency, then its bytes at a max-min fair share of its route,
// as in a phase. c is the compute that gives the baseline p_mpi: K c =
// (run(c) - K c) (1 - p_mpi) / p_mpi, by fixed point from c = 0 (three
// runs). The time is the last rank's end; the gain the runs' relative
// difference, compute included. Rare collectives are left out. It applies
// (exchanges_as_programs) when the point-to-point traffic is not a
// pipeline and collectives come only around the loop: at most 4 calls a
// rank in all, and fewer than K / 2 (the profile's call records, else the
// collective graph's messages a pair). A barrier before and after the
// loop, not an allreduce every iteration, which brings the ranks back
// together (phases and rounds read that). On
// SMPI's irregular app at 20 us an iteration, the lockstep phases put
// KaHIP's mapping 9.5 % behind rankmap's where SMPI has it 1.6 % ahead;
// this model ranks all eight mappings of two such scenarios in SMPI's order
// (bench/RESULTS.md, issue 55, seventeenth session). The engine times its
// candidates by it where it applies and p_mpi is known (map.hpp).
bool exchanges_as_programs(const Graph& p2p, const Graph& collective, const std::vector<CollectiveCalls>* calls);
struct ExchangeProgramTimes {
  bool computed = false;                   // false: does not apply, or past the flow model's limits
  double iterations = 0;                   // K
  double compute_ns = 0;                   // c
  double baseline_ns = 0, mapping_ns = 0;  // the runs' times, compute included
};
ExchangeProgramTimes exchange_program_times(const Graph& p2p, const Machine& machine, const Allocation& allocation,
                                            const Mapping& mapping, const Mapping& baseline, double p_mpi);

}  // namespace rankmap
