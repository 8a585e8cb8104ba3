// The gain model of shared/domain.md: what a better mapping buys.
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
PhaseTimes phase_times(const Graph& graph, const Machine& machine, const Allocation& allocation,
                       const Mapping& mapping, const Metrics& metrics);

}  // namespace rankmap
