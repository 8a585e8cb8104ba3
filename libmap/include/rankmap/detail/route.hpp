// Implementation of rankmap::for_each_link (a template: the hot loop of
// evaluate() and of the mapping engine's swaps).
#pragma once

#include <array>
#include <cstdlib>

namespace rankmap {

template <class Visit>
void for_each_link(const Network& net, std::size_t a, std::size_t b, Visit&& visit) {
  const int nd = net.num_dims();
  std::array<int, kMaxDims> ca{}, delta{};
  std::array<std::size_t, kMaxDims> stride{};
  std::size_t s = 1, ra = a, rb = b;
  for (int d = 0; d < nd; ++d) {
    const int n = net.dims[d];
    ca[d] = static_cast<int>(ra % n);
    const int cb = static_cast<int>(rb % n);
    ra /= n;
    rb /= n;
    stride[d] = s;
    s *= static_cast<std::size_t>(n);
    int dlt = cb - ca[d];
    if (net.wrap[d]) {
      // Shorter way round; a tie (half the ring) goes `+`.
      if (dlt < 0) dlt += n;                 // now the `+` distance
      if (n - dlt < dlt) dlt -= n;           // `-` strictly shorter
    }
    delta[d] = dlt;
  }
  std::size_t cur = a;
  for (const RouteStep& step : net.routing) {
    const int d = step.dim;
    const int dlt = delta[d];
    if (dlt == 0 || (dlt > 0) != (step.sign > 0)) continue;
    const int n = net.dims[d];
    for (int k = std::abs(dlt); k > 0; --k) {
      visit(net.link_id(cur, d, step.sign));
      int next = ca[d] + step.sign;
      if (next == n) next = 0;
      if (next < 0) next = n - 1;
      cur = cur - static_cast<std::size_t>(ca[d]) * stride[d] +
            static_cast<std::size_t>(next) * stride[d];
      ca[d] = next;
    }
  }
}

}  // namespace rankmap
