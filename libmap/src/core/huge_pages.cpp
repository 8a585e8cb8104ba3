#include "core/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>

namespace rankmap::detail {

void advise_huge_pages(void* data, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  // Whole huge pages inside the range only: advice must start on a page
  // boundary, and the allocator owns the bytes around the vector.
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHuge - 1);
  if (data == nullptr || last <= first) return;
  ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // advice: failure changes nothing
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace rankmap::detail
