// Cache prefetch hints for passes over rows of renumbered graphs. Internal
// to libmap.
#pragma once

#include <algorithm>
#include <cstddef>

namespace rankmap::detail {

// Asks the CPU to fetch element i of a vector. i may lie past the end (the
// row after a rank that sends nothing starts at the end): a prefetch never
// faults, but `&v[i]` there is undefined behaviour, which a hardened build
// (_GLIBCXX_ASSERTIONS, as Fedora and RHEL compile C++) turns into an abort.
// So the address comes from pointer arithmetic clamped to one past the end,
// never from operator[].
template <class Vector>
inline void prefetch(const Vector& v, std::size_t i) {
  __builtin_prefetch(v.data() + std::min(i, v.size()));
}

// The same, for an element about to be written.
template <class Vector>
inline void prefetch_for_write(const Vector& v, std::size_t i) {
  __builtin_prefetch(v.data() + std::min(i, v.size()), 1);
}

}  // namespace rankmap::detail
