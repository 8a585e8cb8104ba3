#include "rankmap/generate.hpp"

#include <array>

#include "rankmap/error.hpp"
#include "rankmap/machine.hpp"

namespace rankmap {

Graph make_stencil(const StencilSpec& spec) {
  const int nd = static_cast<int>(spec.dims.size());
  if (nd < 1 || nd > kMaxDims)
    throw Error(ErrorKind::argument, Parameter{"dims"},
                "expected 1 to " + std::to_string(kMaxDims) + " dimensions, e.g. 16x8x8");
  std::uint64_t n = 1;
  for (int d : spec.dims) {
    if (d < 1) throw Error(ErrorKind::argument, Parameter{"dims"}, "every dimension must be at least 1");
    n *= static_cast<std::uint64_t>(d);
  }
  if (n > 0xffffffffULL) throw Error(ErrorKind::argument, Parameter{"dims"}, "too many ranks");

  // Neighbour offsets: faces only, or the full 3^d cube without the centre.
  std::vector<std::array<int, kMaxDims>> offsets;
  int total = 1;
  for (int d = 0; d < nd; ++d) total *= 3;
  for (int code = 0; code < total; ++code) {
    std::array<int, kMaxDims> off{};
    int c = code, nonzero = 0;
    for (int d = 0; d < nd; ++d, c /= 3) {
      off[d] = c % 3 - 1;
      nonzero += off[d] != 0;
    }
    if (nonzero == 0 || (!spec.full && nonzero != 1)) continue;
    offsets.push_back(off);
  }

  GraphBuilder builder(static_cast<std::uint32_t>(n));
  builder.reserve(n * offsets.size());
  std::array<int, kMaxDims> at{};
  for (std::uint64_t r = 0; r < n; ++r) {
    for (const auto& off : offsets) {
      std::uint64_t target = 0, stride = 1;
      bool inside = true;
      for (int d = 0; d < nd; ++d) {
        int x = at[d] + off[d];
        if (x < 0 || x >= spec.dims[d]) {
          if (!spec.periodic) {
            inside = false;
            break;
          }
          x = (x + spec.dims[d]) % spec.dims[d];
        }
        target += static_cast<std::uint64_t>(x) * stride;
        stride *= static_cast<std::uint64_t>(spec.dims[d]);
      }
      if (inside && target != r)
        builder.add(static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(target), spec.bytes, 1);
    }
    for (int d = 0; d < nd && ++at[d] == spec.dims[d]; ++d) at[d] = 0;  // X fastest
  }
  return builder.build();
}

}  // namespace rankmap
