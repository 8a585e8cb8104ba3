// The analytic gain model of shared/domain.md.
//   T(d) = t_inj + t_ej + t_hop * d                (zero-byte message time)
//   gain of B over A = p_mpi * (T(d_A) - T(d_B)) / T(d_A)
// The seed formula p_mpi * t_hop * (d - 1) / (t_inj + t_ej + t_hop * d) is
// the case d_A = d, d_B = 1.
#pragma once

#include "rankmap/machine.hpp"

namespace rankmap {

double message_time_ns(const Network& net, double hops);
double predicted_gain(const Network& net, double p_mpi, double hops_before, double hops_after);

}  // namespace rankmap
