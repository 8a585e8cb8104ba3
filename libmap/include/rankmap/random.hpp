// A small, portable, seeded random generator. std::shuffle and the standard
// distributions differ between library implementations; rankmap's output must
// not, so it draws from this instead.
#pragma once

#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace rankmap {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  // splitmix64
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound), bound > 0 (Lemire's method with rejection).
  std::uint64_t below(std::uint64_t bound) {
    for (;;) {
      const unsigned __int128 m = static_cast<unsigned __int128>(next()) * bound;
      const auto low = static_cast<std::uint64_t>(m);
      if (low >= bound || low >= (-bound) % bound) return static_cast<std::uint64_t>(m >> 64);
    }
  }

 private:
  std::uint64_t state_;
};

// 0..n-1 in a uniformly random order (Fisher-Yates).
inline std::vector<std::uint32_t> random_permutation(std::uint32_t n, Rng& rng) {
  std::vector<std::uint32_t> p(n);
  std::iota(p.begin(), p.end(), 0u);
  for (std::uint32_t i = n; i > 1; --i) std::swap(p[i - 1], p[rng.below(i)]);
  return p;
}

}  // namespace rankmap
