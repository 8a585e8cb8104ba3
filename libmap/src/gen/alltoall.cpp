#include "rankmap/error.hpp"
#include "rankmap/generate.hpp"

namespace rankmap {

Graph make_row_alltoall(const RowAlltoallSpec& spec) {
  if (spec.rows < 1 || spec.cols < 1) throw Error(ErrorKind::argument, Parameter{"grid"}, "expected a grid like 16x32");
  const auto n = static_cast<std::uint32_t>(spec.rows * spec.cols);
  GraphBuilder builder(n);
  for (int i = 0; i < spec.rows; ++i)
    for (int j = 0; j < spec.cols; ++j) {
      const auto r = static_cast<std::uint32_t>(i * spec.cols + j);
      if (spec.col_bytes)
        for (int k = 0; k < i; ++k) builder.add(r, static_cast<std::uint32_t>(k * spec.cols + j), spec.col_bytes, 1);
      for (int k = 0; k < spec.cols; ++k)
        if (k != j && spec.row_bytes) builder.add(r, static_cast<std::uint32_t>(i * spec.cols + k), spec.row_bytes, 1);
      if (spec.col_bytes)
        for (int k = i + 1; k < spec.rows; ++k)
          builder.add(r, static_cast<std::uint32_t>(k * spec.cols + j), spec.col_bytes, 1);
    }
  return builder.build();
}

}  // namespace rankmap
