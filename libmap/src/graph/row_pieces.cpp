#include "graph/row_pieces.hpp"

#include <algorithm>

#include "core/huge_pages.hpp"
#include "rankmap/error.hpp"

namespace rankmap::detail {

std::vector<Piece> cut_into_pieces(std::string_view body, std::size_t first_line, std::size_t pieces) {
  std::vector<Piece> out;
  std::size_t begin = 0;
  for (std::size_t i = 1; i <= pieces && begin < body.size(); ++i) {
    std::size_t end = body.size() * i / pieces;
    if (i < pieces && end > begin) {
      end = body.find('\n', end - 1);  // the line that crosses the cut stays whole
      end = end == std::string_view::npos ? body.size() : end + 1;
    } else {
      end = body.size();
    }
    if (end <= begin) continue;
    out.push_back({body.substr(begin, end - begin)});
    begin = end;
  }
  if (!out.empty()) out[0].first_line = first_line;
  return out;
}

Graph graph_with_room(std::uint32_t ranks, std::uint64_t edges) {
  Graph g;
  g.ranks = ranks;
  g.offsets = huge_vector<std::uint64_t>(static_cast<std::size_t>(ranks) + 1);
  g.targets = huge_vector<std::uint32_t>(edges);
  g.bytes = huge_vector<std::uint64_t>(edges);
  g.msgs = huge_vector<std::uint64_t>(edges);
  return g;
}

Joined join_pieces(Graph& g, const std::vector<Piece>& pieces, const std::vector<RowFill>& fills) {
  bool any = false, unsorted = false;
  std::uint32_t last_src = 0, last_dst = 0;
  for (std::size_t i = 0; i < fills.size(); ++i) {
    const RowFill& f = fills[i];
    if (f.end() != pieces[i].first_edge + pieces[i].edges) return Joined::miscounted;
    if (!f.any_) continue;
    // Rows after the previous piece's last, up to this piece's first, start
    // at its first edge; a row both pieces write continues (its two parts
    // lie end to end, each sorted).
    const std::uint32_t from = any ? last_src + 1 : 0;
    if (any && f.first_src_ < last_src) return Joined::out_of_order;
    if (any && f.first_src_ == last_src && f.first_dst_ <= last_dst) unsorted = true;
    for (std::uint32_t r = from; r <= f.first_src_; ++r) g.offsets[r] = pieces[i].first_edge;
    any = true;
    last_src = f.last_src_;
    last_dst = f.last_dst_;
  }
  const std::uint64_t total = g.targets.size();
  for (std::size_t r = any ? static_cast<std::size_t>(last_src) + 1 : 0; r <= g.ranks; ++r) g.offsets[r] = total;
  return unsorted ? Joined::unsorted_row : Joined::yes;
}

namespace {
constexpr std::size_t kShortRow = 32;
}  // namespace

bool sort_row(Graph& g, std::uint64_t first, std::uint64_t last, RowScratch& scratch) {
  std::uint32_t* const to = g.targets.data() + first;
  std::uint64_t* const bytes = g.bytes.data() + first;
  std::uint64_t* const msgs = g.msgs.data() + first;
  const std::size_t n = last - first;
  // As keys (receiver, place in the row), 8 bytes each, sorted; the
  // weights then gathered from a copy of the row by place. A short row (a
  // 27-point stencil's 26) on the stack, by insertion: one array of 8
  // bytes moved, not three of 4, 8 and 8.
  std::uint64_t short_keys[kShortRow], short_bytes[kShortRow], short_msgs[kShortRow];
  const bool short_row = n <= kShortRow;
  if (!short_row) {
    scratch.keys.resize(n);
    scratch.bytes.resize(n);
    scratch.msgs.resize(n);
  }
  std::uint64_t* const keys = short_row ? short_keys : scratch.keys.data();
  std::uint64_t* const b = short_row ? short_bytes : scratch.bytes.data();
  std::uint64_t* const m = short_row ? short_msgs : scratch.msgs.data();
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = std::uint64_t{to[i]} << 32 | i;
    b[i] = bytes[i];
    m[i] = msgs[i];
  }
  if (short_row) {
    for (std::size_t i = 1; i < n; ++i) {
      const std::uint64_t key = keys[i];
      std::size_t j = i;
      for (; j > 0 && keys[j - 1] > key; --j) keys[j] = keys[j - 1];
      keys[j] = key;
    }
  } else {
    std::sort(keys, keys + n);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t at = keys[i] & 0xffffffffU;
    to[i] = static_cast<std::uint32_t>(keys[i] >> 32);
    bytes[i] = b[at];
    msgs[i] = m[at];
  }
  return std::adjacent_find(to, to + n) != to + n;
}

void add_up_edge(std::uint64_t& sum, std::uint64_t more, std::uint32_t src, std::uint32_t dst, const char* what) {
  if (__builtin_add_overflow(sum, more, &sum))
    throw Error("the " + std::string(what) + " from rank " + std::to_string(src) + " to rank " + std::to_string(dst) +
                " add up past 2^64 - 1");
}

void rows_from_counts(Graph& g, std::vector<std::uint32_t>& counts, std::size_t pieces) {
  const std::size_t ranks = g.ranks;
  const std::size_t ranges = ranges_for(ranks, g.targets.size() >= kParallelEdges);
  for_each_range(ranks, ranges, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      std::uint64_t before = 0;  // the row's edges in earlier pieces
      for (std::size_t i = 0; i < pieces; ++i) {
        const std::uint32_t here = counts[i * ranks + r];
        counts[i * ranks + r] = static_cast<std::uint32_t>(before);
        before += here;
      }
      g.offsets[r + 1] = before;
    }
  });
  g.offsets[0] = 0;
  for (std::size_t r = 0; r < ranks; ++r) g.offsets[r + 1] += g.offsets[r];
  for_each_range(ranks, ranges, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = 0; i < pieces; ++i)
      for (std::size_t r = begin; r < end; ++r) counts[i * ranks + r] += static_cast<std::uint32_t>(g.offsets[r]);
  });
}

bool rows_placed_as_counted(const Graph& g, const std::vector<std::uint32_t>& starts,
                            const std::vector<std::uint32_t>& ends, std::size_t pieces) {
  const std::size_t ranks = g.ranks;
  for (std::size_t i = 0; i < pieces; ++i)
    for (std::size_t r = 0; r < ranks; ++r)
      if (ends[i * ranks + r] != (i + 1 < pieces ? starts[(i + 1) * ranks + r] : g.offsets[r + 1])) return false;
  return true;
}

void sort_and_merge_rows(Graph& g) {
  // Each range of rows sorts and merges its own rows in place and counts
  // what it kept.
  std::vector<std::uint64_t> kept = huge_vector<std::uint64_t>(g.ranks);
  const std::size_t ranges = ranges_for(g.ranks, g.targets.size() >= kParallelEdges);
  for_each_range(g.ranks, ranges, [&](std::size_t, std::size_t begin, std::size_t end) {
    RowScratch scratch;
    for (std::size_t r = begin; r < end; ++r) {
      const std::uint64_t first = g.offsets[r], last = g.offsets[r + 1];
      const auto row_begin = g.targets.begin() + static_cast<std::ptrdiff_t>(first);
      const auto row_end = g.targets.begin() + static_cast<std::ptrdiff_t>(last);
      if (std::adjacent_find(row_begin, row_end, [](std::uint32_t a, std::uint32_t b) { return a >= b; }) == row_end) {
        kept[r] = last - first;  // ascending without repeats: nothing to do
        continue;
      }
      if (!sort_row(g, first, last, scratch)) {
        kept[r] = last - first;  // sorted, no repeats: nothing to add up
        continue;
      }
      std::uint64_t out = first;
      for (std::uint64_t e = first; e < last; ++e) {
        const std::uint32_t dst = g.targets[e];
        if (out > first && g.targets[out - 1] == dst) {
          add_up_edge(g.bytes[out - 1], g.bytes[e], static_cast<std::uint32_t>(r), dst, "bytes");
          add_up_edge(g.msgs[out - 1], g.msgs[e], static_cast<std::uint32_t>(r), dst, "messages");
          continue;
        }
        g.targets[out] = dst;
        g.bytes[out] = g.bytes[e];
        g.msgs[out] = g.msgs[e];
        ++out;
      }
      kept[r] = out - first;
    }
  });
  // Repeats leave gaps at rows' ends: close them up (rare; one pass).
  std::uint64_t out = 0;
  for (std::size_t r = 0; r < g.ranks; ++r) {
    const std::uint64_t first = g.offsets[r];
    g.offsets[r] = out;
    if (out != first)
      for (std::uint64_t k = 0; k < kept[r]; ++k) {
        g.targets[out + k] = g.targets[first + k];
        g.bytes[out + k] = g.bytes[first + k];
        g.msgs[out + k] = g.msgs[first + k];
      }
    out += kept[r];
  }
  g.offsets[g.ranks] = out;
  g.targets.resize(out);
  g.bytes.resize(out);
  g.msgs.resize(out);
}

}  // namespace rankmap::detail
