// Asks the kernel for transparent huge pages behind a large vector before
// it is first written. A million-rank graph fills about a gigabyte of
// fresh memory, and with 4 KiB pages a quarter of the whole command's time
// went to page faults (the kernel's default here is THP "madvise": only
// memory that asks gets huge pages). Arrays read or written at random
// (per rank or per edge of a renumbered graph: the grid's margins and
// coordinates, a candidate's node of each rank, a score's link loads) ask
// too: with 4 KiB pages nearly every such access also missed the TLB.
// Internal to libmap.
#pragma once

#include <cstddef>
#include <vector>

#include "core/background_fault.hpp"

namespace rankmap::detail {

// Advice only: a no-op on small ranges and where the kernel has no THP.
void advise_huge_pages(void* data, std::size_t bytes);

// reserve(n), then the advice on the whole capacity.
template <class T>
void reserve_huge(std::vector<T>& v, std::size_t n) {
  v.reserve(n);
  advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

// A vector of n copies of value, its pages advised before they are filled
// and, for large n, faulted in from the back on a second thread.
template <class T>
std::vector<T> huge_vector(std::size_t n, const T& value = T{}) {
  std::vector<T> v;
  reserve_huge(v, n);
  BackgroundFault faulting({{v.data(), n * sizeof(T)}});
  v.assign(n, value);
  return v;
}

// v = [first, last), likewise.
template <class T, class It>
void assign_huge(std::vector<T>& v, It first, It last) {
  const auto n = static_cast<std::size_t>(last - first);
  reserve_huge(v, n);
  BackgroundFault faulting({{v.data(), n * sizeof(T)}});
  v.assign(first, last);
}

}  // namespace rankmap::detail
