#include "score/link_loads.hpp"

#include <array>
#include <cstdlib>

#include "core/huge_pages.hpp"
#include "rankmap/metrics.hpp"

namespace rankmap::detail {

LinkLoads::LinkLoads(const Network& net) : net_(net), diff_(huge_vector<std::uint64_t>(net.num_links())) {
  std::size_t s = 1;
  for (int n : net.dims) {
    stride_.push_back(s);
    s *= static_cast<std::size_t>(n);
  }
}

// From coordinates, not indices: decoding two indices took 8 divisions a
// route, most of the time of scoring a million ranks.
void LinkLoads::add_route(const std::array<int, kMaxDims>& from, const std::array<int, kMaxDims>& to,
                          std::uint64_t bytes) {
  const int nd = net_.num_dims();
  if (net_.kind != NetworkKind::torus) {  // other kinds: each link of the route (a tree's are short)
    std::size_t a = 0, b = 0;
    for (int d = 0; d < nd; ++d)
      a += static_cast<std::size_t>(from[d]) * stride_[d], b += static_cast<std::size_t>(to[d]) * stride_[d];
    for_each_link(net_, a, b, [&](std::size_t link) { diff_[link] += bytes; });
    return;
  }
  std::array<int, kMaxDims> ca = from, delta{};
  std::size_t cur = 0;
  for (int d = 0; d < nd; ++d) {
    const int n = net_.dims[d];
    cur += static_cast<std::size_t>(ca[d]) * stride_[d];
    int dlt = to[d] - ca[d];
    if (net_.wrap[d]) {  // the shorter way round; half way round goes `+` (as in for_each_link)
      if (dlt < 0) dlt += n;
      if (n - dlt < dlt) dlt -= n;
    }
    delta[d] = dlt;
  }
  for (const RouteStep& step : net_.routing) {
    const int d = step.dim, dlt = delta[d];
    if (dlt == 0 || (dlt > 0) != (step.sign > 0)) continue;
    const int n = net_.dims[d], k = std::abs(dlt);
    const std::size_t ring = cur - static_cast<std::size_t>(ca[d]) * stride_[d];  // position 0 of this ring
    auto at = [&](int pos) { return net_.link_id(ring + static_cast<std::size_t>(pos) * stride_[d], d, step.sign); };
    // Links leave positions ca, ca+1, .. going `+`, and ca, ca-1, .. going
    // `-`: either way a run of k positions starting at `low`, maybe wrapping.
    int low = step.sign > 0 ? ca[d] : ca[d] - k + 1;
    if (low < 0) low += n;
    diff_[at(low)] += bytes;
    if (low + k < n) {
      diff_[at(low + k)] -= bytes;
    } else if (low + k > n) {  // wraps: also positions 0 .. low + k - n - 1
      diff_[at(0)] += bytes;
      diff_[at(low + k - n)] -= bytes;
    }
    int next = ca[d] + step.sign * k;
    if (next >= n) next -= n;
    if (next < 0) next += n;
    cur = ring + static_cast<std::size_t>(next) * stride_[d];
    ca[d] = next;
  }
}

void LinkLoads::merge(const LinkLoads& other) {
  // Differences add up like the routes they stand for.
  for (std::size_t i = 0; i < diff_.size(); ++i) diff_[i] += other.diff_[i];
}

std::vector<std::uint64_t> LinkLoads::take() {
  if (net_.kind != NetworkKind::torus) return std::move(diff_);  // loads, not differences
  const std::size_t coords = net_.num_coords();
  for (int d = 0; d < net_.num_dims(); ++d) {
    const std::size_t n = static_cast<std::size_t>(net_.dims[d]), stride = stride_[d];
    for (std::size_t c = 0; c < coords; ++c) {
      if ((c / stride) % n != 0) continue;  // c is position 0 of a ring of d
      for (int sign : {+1, -1}) {
        std::uint64_t running = 0;
        for (std::size_t pos = 0; pos < n; ++pos) {
          std::uint64_t& link = diff_[net_.link_id(c + pos * stride, d, sign)];
          running += link;
          link = running;
        }
      }
    }
  }
  return std::move(diff_);
}

}  // namespace rankmap::detail
