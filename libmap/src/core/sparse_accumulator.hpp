// Sums per key over the few keys touched out of many (the parts or nodes a
// vertex's edges reach): add() remembers each key the first time, keys()
// lists them in that order (or sorted, after sort_keys()), clear() resets
// only them, so a pass costs the edges visited and not the number of keys.
// KaMinPar's rating maps work the same way. Internal to libmap.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace rankmap::detail {

template <class Value>
class SparseAccumulator {
 public:
  explicit SparseAccumulator(std::size_t keys) : value_(keys), seen_(keys, 0) {}

  void add(std::uint32_t key, const Value& v) {
    if (!seen_[key]) seen_[key] = 1, touched_.push_back(key);
    value_[key] += v;
  }
  // Value{} for a key not added since the last clear().
  const Value& operator[](std::uint32_t key) const { return value_[key]; }
  const std::vector<std::uint32_t>& keys() const { return touched_; }
  void sort_keys() { std::sort(touched_.begin(), touched_.end()); }
  void clear() {
    for (std::uint32_t k : touched_) value_[k] = Value{}, seen_[k] = 0;
    touched_.clear();
  }

 private:
  std::vector<Value> value_;
  std::vector<char> seen_;
  std::vector<std::uint32_t> touched_;
};

}  // namespace rankmap::detail
