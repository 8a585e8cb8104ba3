// Turns what a launch file names (a host, a set of PUs) back into an
// allocated node and one of its slots. Internal to libmap.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/text_scanner.hpp"
#include "rankmap/mapping.hpp"

namespace rankmap::detail {

class SlotLookup {
 public:
  SlotLookup(const Machine& machine, const Allocation& allocation);

  // Position of `host` in the allocation; fails at the scanner's line.
  int node(std::string_view host, const LineScanner& at) const;
  // The slot whose PUs are exactly `pus`, else the one slot that holds them
  // all (one hardware thread of a core is a place on that core), else a
  // failure naming them.
  int slot(int node, std::vector<int> pus, const LineScanner& at, const std::string& as_written) const;
  const NodeType& type(int node) const;
  const std::string& host(int node) const;
  // PU index of an OS CPU number on that node, or -1.
  int pu_of_os(int node, unsigned os) const;

 private:
  const Machine& machine_;
  const Allocation& allocation_;
  std::vector<std::map<std::vector<int>, int>> slot_of_pus_;  // per layout
  std::vector<std::vector<int>> slot_of_pu_;                  // per layout: PU -> slot, or -1
};

// A rank's CPU set in OS numbers, joined by `sep` ("0+1" for Hydra).
std::string os_cpu_list(const NodeType& type, const Slot& slot, char sep);

}  // namespace rankmap::detail
