#include "rankmap/graph.hpp"

#include <algorithm>
#include <numeric>

#include "core/background_fault.hpp"
#include "core/huge_pages.hpp"
#include "graph/row_pieces.hpp"
#include "rankmap/error.hpp"

namespace rankmap {

std::uint64_t Graph::total_bytes() const { return std::accumulate(bytes.begin(), bytes.end(), std::uint64_t{0}); }
std::uint64_t Graph::total_msgs() const { return std::accumulate(msgs.begin(), msgs.end(), std::uint64_t{0}); }

GraphBuilder::GraphBuilder(std::uint32_t ranks) {
  sorted_.ranks = ranks;
  sorted_.offsets = detail::huge_vector<std::uint64_t>(static_cast<std::size_t>(ranks) + 1);
}

GraphBuilder::GraphBuilder(GraphBuilder&&) noexcept = default;  // buffers move, their pages stay put
GraphBuilder& GraphBuilder::operator=(GraphBuilder&&) noexcept = default;
GraphBuilder::~GraphBuilder() = default;

void GraphBuilder::reserve(std::size_t edges) {
  if (!in_order_) return detail::reserve_huge(entries_, edges);
  faulting_.reset();  // before the buffers it faults move
  detail::reserve_huge(sorted_.targets, edges);
  detail::reserve_huge(sorted_.bytes, edges);
  detail::reserve_huge(sorted_.msgs, edges);
  // Only the part not yet filled: add() writes the rest from the front.
  auto room = [&](auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    return detail::BackgroundFault::Range{v.data() + v.size(), (v.capacity() - v.size()) * sizeof(T)};
  };
  faulting_ = std::make_unique<detail::BackgroundFault>(
      std::vector{room(sorted_.targets), room(sorted_.bytes), room(sorted_.msgs)});
}

void GraphBuilder::add(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint64_t msgs) {
  if (in_order_) {
    Graph& g = sorted_;
    const bool same_row = src == last_src_ && g.targets.size() > g.offsets[src];
    if (src > last_src_ || !same_row || dst > g.targets.back()) {
      if (src >= last_src_) {
        // Rows last_src_+1 .. src start here.
        for (std::uint32_t r = last_src_ + 1; r <= src; ++r) g.offsets[r] = g.targets.size();
        last_src_ = src;
        g.targets.push_back(dst);
        g.bytes.push_back(bytes);
        g.msgs.push_back(msgs);
        return;
      }
    } else if (dst == g.targets.back()) {  // a repeat of the previous edge
      detail::add_up_edge(g.bytes.back(), bytes, src, dst, "bytes");
      detail::add_up_edge(g.msgs.back(), msgs, src, dst, "messages");
      return;
    }
    switch_to_unsorted();
  }
  entries_.push_back({src, dst, bytes, msgs});
}

void GraphBuilder::switch_to_unsorted() {
  faulting_.reset();  // sorted_'s buffers are freed below
  Graph& g = sorted_;
  detail::reserve_huge(entries_, std::max(g.targets.capacity(), 2 * g.targets.size() + 16));
  std::uint32_t r = 0;
  for (std::size_t e = 0; e < g.targets.size(); ++e) {
    while (r < last_src_ && g.offsets[r + 1] <= e) ++r;
    entries_.push_back({r, g.targets[e], g.bytes[e], g.msgs[e]});
  }
  g.targets = {};
  g.bytes = {};
  g.msgs = {};
  in_order_ = false;
}

Graph GraphBuilder::build() {
  faulting_.reset();  // the result may be freed before this builder
  if (in_order_) {
    Graph& g = sorted_;
    for (std::size_t r = static_cast<std::size_t>(last_src_) + 1; r < g.offsets.size(); ++r)
      g.offsets[r] = g.targets.size();
    return std::move(sorted_);
  }
  if (entries_.size() > kMaxEdges) throw Error("graph has more than " + std::to_string(kMaxEdges) + " edges");
  const std::uint32_t ranks_ = sorted_.ranks;
  Graph g;
  g.ranks = ranks_;
  // Counting sort by source keeps this linear for the millions of edges of a
  // large stencil; rows are short, so sorting each one by target is cheap.
  std::vector<std::uint64_t> start(static_cast<std::size_t>(ranks_) + 1, 0);
  for (const Entry& e : entries_) ++start[e.src + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<std::uint32_t> order = detail::huge_vector<std::uint32_t>(entries_.size());
  {
    std::vector<std::uint64_t> fill(start.begin(), start.end() - 1);
    for (std::uint32_t i = 0; i < entries_.size(); ++i) order[fill[entries_[i].src]++] = i;
  }
  g.offsets = detail::huge_vector<std::uint64_t>(static_cast<std::size_t>(ranks_) + 1);
  detail::reserve_huge(g.targets, entries_.size());
  detail::reserve_huge(g.bytes, entries_.size());
  detail::reserve_huge(g.msgs, entries_.size());
  for (std::uint32_t r = 0; r < ranks_; ++r) {
    auto first = order.begin() + static_cast<std::ptrdiff_t>(start[r]);
    auto last = order.begin() + static_cast<std::ptrdiff_t>(start[r + 1]);
    std::sort(first, last, [&](std::uint32_t a, std::uint32_t b) {
      return entries_[a].dst != entries_[b].dst ? entries_[a].dst < entries_[b].dst : a < b;
    });
    for (auto it = first; it != last; ++it) {
      const Entry& e = entries_[*it];
      if (g.targets.size() > g.offsets[r] && g.targets.back() == e.dst) {
        detail::add_up_edge(g.bytes.back(), e.bytes, r, e.dst, "bytes");
        detail::add_up_edge(g.msgs.back(), e.msgs, r, e.dst, "messages");
      } else {
        g.targets.push_back(e.dst);
        g.bytes.push_back(e.bytes);
        g.msgs.push_back(e.msgs);
      }
    }
    g.offsets[r + 1] = g.targets.size();
  }
  entries_ = {};
  g.targets.shrink_to_fit();
  g.bytes.shrink_to_fit();
  g.msgs.shrink_to_fit();
  return g;
}

}  // namespace rankmap
