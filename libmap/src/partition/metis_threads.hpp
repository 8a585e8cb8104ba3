// METIS on several threads at once, with the cut each call would give
// alone. Debian's METIS 5.1.0 keeps everything per call or per thread
// except two process-wide pieces of state:
//  - its random numbers come from libc's rand(), one sequence for the
//    process: each call seeds it (srand) and draws from it, so two calls at
//    once would take each other's draws;
//  - it traps SIGABRT and SIGTERM (signal) for the length of a call and
//    puts back the handlers it found: two calls at once could leave its
//    handler installed after both (and its SIGTERM handler, reached from
//    outside on any thread, longjmps on one that is not in METIS: that
//    trap is never set).
// So the first call points the loaded METIS's entries for rand, srand and
// __sysv_signal (the name its signal() calls) at librankmap's own (its
// GOT: only METIS's calls change, and librankmap exports nothing new). On
// a thread inside a METIS call (MetisCall below) they draw from a sequence
// of the thread's own, the same numbers as glibc's rand() for the same
// seed, and share one trap among the calls in flight; anywhere else they
// are what METIS was bound to. Where that cannot be arranged, the calls
// take turns. Internal to libmap.
#pragma once

#include <cstdint>

namespace rankmap::detail {

// glibc's rand() (random(), TYPE_3: x[i] = x[i-3] + x[i-31], seeded by
// 16807 x mod 2^31 - 1, the first 310 dropped), as a value.
class GlibcRandom {
 public:
  explicit GlibcRandom(unsigned seed = 1) { reseed(seed); }
  void reseed(unsigned seed);
  int next();  // 0 .. 2^31 - 1

 private:
  std::int32_t state_[31];
  int front_ = 3, rear_ = 0;
};

// While alive, this thread's rand, srand and signal calls are METIS's
// (above). Nesting is not needed and not allowed.
class MetisCall {
 public:
  MetisCall();
  ~MetisCall();
  MetisCall(const MetisCall&) = delete;
  MetisCall& operator=(const MetisCall&) = delete;

  // Whether METIS's rand, srand and signal calls come to librankmap (the
  // first call sets that up), so calls may overlap. Checked once, by a
  // small METIS call.
  static bool may_overlap();
};

}  // namespace rankmap::detail
