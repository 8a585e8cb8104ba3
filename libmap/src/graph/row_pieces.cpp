#include "graph/row_pieces.hpp"

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
  bool any = false;
  std::uint32_t last_src = 0, last_dst = 0;
  for (std::size_t i = 0; i < fills.size(); ++i) {
    const RowFill& f = fills[i];
    if (f.end() != pieces[i].first_edge + pieces[i].edges) return Joined::miscounted;
    if (!f.any_) continue;
    // Rows after the previous piece's last, up to this piece's first, start
    // at its first edge; a row both pieces write continues.
    const std::uint32_t from = any ? last_src + 1 : 0;
    if (any && (f.first_src_ < last_src || (f.first_src_ == last_src && f.first_dst_ <= last_dst)))
      return Joined::out_of_order;
    for (std::uint32_t r = from; r <= f.first_src_; ++r) g.offsets[r] = pieces[i].first_edge;
    any = true;
    last_src = f.last_src_;
    last_dst = f.last_dst_;
  }
  const std::uint64_t total = g.targets.size();
  for (std::size_t r = any ? static_cast<std::size_t>(last_src) + 1 : 0; r <= g.ranks; ++r) g.offsets[r] = total;
  return Joined::yes;
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
}

void sort_and_merge_rows(Graph& g) {
  // Each range of rows sorts and merges its own rows in place and counts
  // what it kept; rows are short, so a copy of one row sorts cheaply.
  std::vector<std::uint64_t> kept = huge_vector<std::uint64_t>(g.ranks);
  const std::size_t ranges = ranges_for(g.ranks, g.targets.size() >= kParallelEdges);
  for_each_range(g.ranks, ranges, [&](std::size_t, std::size_t begin, std::size_t end) {
    // A row sorts as keys (receiver, place in the row): 8 bytes each, the
    // weights fetched from a copy of the row by place.
    std::vector<std::uint64_t> keys, bytes, msgs;
    for (std::size_t r = begin; r < end; ++r) {
      const std::uint64_t first = g.offsets[r], last = g.offsets[r + 1];
      const auto row_begin = g.targets.begin() + static_cast<std::ptrdiff_t>(first);
      const auto row_end = g.targets.begin() + static_cast<std::ptrdiff_t>(last);
      if (std::adjacent_find(row_begin, row_end, [](std::uint32_t a, std::uint32_t b) { return a >= b; }) == row_end) {
        kept[r] = last - first;  // ascending without repeats: nothing to do
        continue;
      }
      keys.clear();
      for (std::uint64_t e = first; e < last; ++e) keys.push_back(std::uint64_t{g.targets[e]} << 32 | (e - first));
      bytes.assign(g.bytes.begin() + static_cast<std::ptrdiff_t>(first),
                   g.bytes.begin() + static_cast<std::ptrdiff_t>(last));
      msgs.assign(g.msgs.begin() + static_cast<std::ptrdiff_t>(first),
                  g.msgs.begin() + static_cast<std::ptrdiff_t>(last));
      std::sort(keys.begin(), keys.end());
      std::uint64_t out = first;
      for (const std::uint64_t key : keys) {
        const auto dst = static_cast<std::uint32_t>(key >> 32);
        const std::size_t at = key & 0xffffffffU;
        if (out > first && g.targets[out - 1] == dst) {
          add_up_edge(g.bytes[out - 1], bytes[at], static_cast<std::uint32_t>(r), dst, "bytes");
          add_up_edge(g.msgs[out - 1], msgs[at], static_cast<std::uint32_t>(r), dst, "messages");
          continue;
        }
        g.targets[out] = dst;
        g.bytes[out] = bytes[at];
        g.msgs[out] = msgs[at];
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
