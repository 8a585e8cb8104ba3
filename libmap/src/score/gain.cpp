#include "rankmap/gain.hpp"

namespace rankmap {

double message_time_ns(const Network& net, double hops) {
  return net.t_inj_ns + net.t_ej_ns + net.t_hop_ns * hops;
}

double predicted_gain(const Network& net, double p_mpi, double hops_before, double hops_after) {
  const double before = message_time_ns(net, hops_before);
  return before > 0 ? p_mpi * (before - message_time_ns(net, hops_after)) / before : 0;
}

}  // namespace rankmap
