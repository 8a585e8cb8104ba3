#include "launch/slot_lookup.hpp"

#include <algorithm>

namespace rankmap::detail {

SlotLookup::SlotLookup(const Machine& machine, const Allocation& allocation)
    : machine_(machine),
      allocation_(allocation),
      slot_of_pus_(allocation.layouts.size()),
      slot_of_pu_(allocation.layouts.size()) {
  for (std::size_t l = 0; l < allocation.layouts.size(); ++l)
    for (int s = 0; s < static_cast<int>(allocation.layouts[l].size()); ++s) {
      const std::vector<int>& pus = allocation.layouts[l][s].pus;
      slot_of_pus_[l].emplace(pus, s);
      for (int p : pus) {
        if (static_cast<std::size_t>(p) >= slot_of_pu_[l].size())
          slot_of_pu_[l].resize(static_cast<std::size_t>(p) + 1, -1);
        slot_of_pu_[l][static_cast<std::size_t>(p)] = s;
      }
    }
}

int SlotLookup::node(std::string_view host, const LineScanner& at) const {
  const int i = machine_.find_host(host);
  if (i < 0) at.fail("unknown host '" + std::string(host) + "' (not in machine '" + machine_.name + "')");
  const int k = allocation_.position_of(i);
  if (k < 0) at.fail("host '" + std::string(host) + "' is not among the allocated nodes");
  return k;
}

const NodeType& SlotLookup::type(int node) const {
  return machine_.node_types[machine_.nodes[allocation_.nodes[node]].type];
}

const std::string& SlotLookup::host(int node) const { return machine_.nodes[allocation_.nodes[node]].host; }

int SlotLookup::pu_of_os(int node, unsigned os) const {
  const auto& pus = type(node).pus;
  for (int p = 0; p < static_cast<int>(pus.size()); ++p)
    if (pus[p].os_index == os) return p;
  return -1;
}

int SlotLookup::slot(int node, std::vector<int> pus, const LineScanner& at, const std::string& as_written) const {
  std::sort(pus.begin(), pus.end());
  const auto& index = slot_of_pus_[allocation_.layout_of[node]];
  auto it = index.find(pus);
  if (it != index.end()) return it->second;
  // Fewer PUs than a slot has, all in that one slot: a binding to one
  // hardware thread of a core, scored as the core.
  const std::vector<int>& owner = slot_of_pu_[allocation_.layout_of[node]];
  int common = pus.empty() || static_cast<std::size_t>(pus.front()) >= owner.size() ? -1 : owner[pus.front()];
  for (int p : pus)
    if (static_cast<std::size_t>(p) >= owner.size() || owner[static_cast<std::size_t>(p)] != common) common = -1;
  if (common < 0)
    at.fail("'" + as_written + "' is not a slot of host '" + host(node) + "' under this allocation (" +
            std::to_string(allocation_.slots(node).size()) + " slots of " +
            std::to_string(allocation_.slots(node).front().pus.size()) + " PU(s) each)");
  return common;
}

std::string os_cpu_list(const NodeType& type, const Slot& slot, char sep) {
  std::string out;
  for (int p : slot.pus) {
    if (!out.empty()) out += sep;
    out += std::to_string(type.pus[p].os_index);
  }
  return out;
}

}  // namespace rankmap::detail
