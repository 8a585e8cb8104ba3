#include "graph/row_pieces.hpp"

#include "core/huge_pages.hpp"

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

bool join_pieces(Graph& g, const std::vector<Piece>& pieces, const std::vector<RowFill>& fills) {
  bool any = false;
  std::uint32_t last_src = 0, last_dst = 0;
  for (std::size_t i = 0; i < fills.size(); ++i) {
    const RowFill& f = fills[i];
    if (f.end() != pieces[i].first_edge + pieces[i].edges) return false;
    if (!f.any_) continue;
    // Rows after the previous piece's last, up to this piece's first, start
    // at its first edge; a row both pieces write continues.
    const std::uint32_t from = any ? last_src + 1 : 0;
    if (any && (f.first_src_ < last_src || (f.first_src_ == last_src && f.first_dst_ <= last_dst))) return false;
    for (std::uint32_t r = from; r <= f.first_src_; ++r) g.offsets[r] = pieces[i].first_edge;
    any = true;
    last_src = f.last_src_;
    last_dst = f.last_dst_;
  }
  const std::uint64_t total = g.targets.size();
  for (std::size_t r = any ? static_cast<std::size_t>(last_src) + 1 : 0; r <= g.ranks; ++r) g.offsets[r] = total;
  return true;
}

}  // namespace rankmap::detail
