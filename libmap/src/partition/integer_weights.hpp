// Partitioners count in 32-bit integers (METIS's idx_t, Scotch's
// SCOTCH_Num) and bytes do not fit them: weights are scaled so that their
// sum stays within 2^30, leaving the partitioners room for sums of their
// own, and each stays at least 1 (a weight of 0 would be an edge they may
// cut for free). Internal to libmap.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace rankmap::detail {

inline constexpr double kPartitionerWeightSum = 1 << 30;

template <class Int>
std::vector<Int> integer_weights(const std::vector<std::uint64_t>& weight) {
  static_assert(sizeof(Int) >= 4, "a sum of 2^30 must fit");
  const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
  const double scale = total > kPartitionerWeightSum ? kPartitionerWeightSum / total : 1.0;
  std::vector<Int> out(weight.size());
  for (std::size_t e = 0; e < weight.size(); ++e)
    out[e] = static_cast<Int>(std::max(1.0, std::floor(static_cast<double>(weight[e]) * scale)));
  return out;
}

}  // namespace rankmap::detail
