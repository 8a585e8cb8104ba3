// Directed link loads for the refiners that aim at the most loaded link
// (link_rank_refine.cpp, port_refine.cpp): the peak and how many links
// carry it, and trials of a move, each kept or undone. Internal to libmap.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace rankmap::detail {

class TrialLoads {
 public:
  explicit TrialLoads(std::size_t links) : load_(links, 0), stamp_(links, 0) {}

  // A new trial: the loads before its first change of each link are kept.
  void begin() {
    ++epoch_;
    touched_.clear();
  }
  // Adds `bytes` (negative: removes) to a link; its new load.
  std::uint64_t add(std::size_t link, long long bytes) {
    if (stamp_[link] != epoch_) stamp_[link] = epoch_, touched_.emplace_back(link, load_[link]);
    return load_[link] = static_cast<std::uint64_t>(static_cast<long long>(load_[link]) + bytes);
  }
  std::uint64_t operator[](std::size_t link) const { return load_[link]; }
  // (link, load before the trial) of every link the trial changed.
  const std::vector<std::pair<std::size_t, std::uint64_t>>& touched() const { return touched_; }
  // Links at the peak if the trial is kept (none above it: the caller checks).
  long long at_peak_after() const {
    auto at_peak = static_cast<long long>(at_peak_);
    for (const auto& [link, before] : touched_) at_peak += (load_[link] == peak_) - (before == peak_);
    return at_peak;
  }
  // Keeps the trial, with at_peak_after()'s count: at 0 the peak fell.
  void keep(long long at_peak) {
    if (at_peak == 0)
      find_peak();
    else
      at_peak_ = static_cast<std::size_t>(at_peak);
  }
  void undo() {
    for (const auto& [link, before] : touched_) load_[link] = before;
  }
  void find_peak() {
    peak_ = *std::max_element(load_.begin(), load_.end());
    at_peak_ = static_cast<std::size_t>(std::count(load_.begin(), load_.end(), peak_));
  }
  std::uint64_t peak() const { return peak_; }
  std::size_t at_peak() const { return at_peak_; }

 private:
  std::vector<std::uint64_t> load_;
  std::vector<std::uint32_t> stamp_;
  std::uint32_t epoch_ = 0;
  std::vector<std::pair<std::size_t, std::uint64_t>> touched_;
  std::uint64_t peak_ = 0;
  std::size_t at_peak_ = 0;
};

}  // namespace rankmap::detail
