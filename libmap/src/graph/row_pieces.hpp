// Reading the body of a large graph file on several threads. The body (the
// lines after the header) is cut into pieces at line ends; a first pass
// counts each piece's lines and edges, so every piece knows its first line
// number (for errors) and where its edges go; the second writes them
// straight into the graph's arrays. This holds while the edges come in
// (sender, receiver) order without repeats, as rankmap and Scotch write
// .mtx, .graph, .grf and .csv files; otherwise the caller reads the file on one
// thread, which sorts and adds up. Internal to libmap.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <optional>
#include <string_view>
#include <vector>

#include "core/text_scanner.hpp"
#include "core/workers.hpp"
#include "rankmap/graph.hpp"

namespace rankmap::detail {

// Bodies at least this large are read in pieces (a 1M-rank stencil's .mtx
// is 424 MB; the test files are far smaller).
inline constexpr std::size_t kPieceBytes = std::size_t{64} << 20;

struct Piece {
  std::string_view text;         // whole lines
  std::size_t lines = 0;         // its lines, found by the counting pass
  std::size_t first_line = 0;    // the file's line number of the line before it
  std::uint64_t items = 0;       // what the counting pass found: data lines, vertex lines
  std::uint64_t edges = 0;       // edges the counting pass found
  std::uint64_t first_item = 0;  // items in the pieces before it
  std::uint64_t first_edge = 0;  // where its edges start in the graph
};

// `body`, whose first line is the file's line first_line + 1, cut into up
// to `pieces` runs of whole lines of about equal size.
std::vector<Piece> cut_into_pieces(std::string_view body, std::size_t first_line, std::size_t pieces);

// One piece's edges, written from its first_edge in order: add() is false
// when an edge does not come strictly after the piece's previous one, or
// the piece has more edges than counted (never past its room).
class RowFill {
 public:
  explicit RowFill(Graph& g, const Piece& piece)
      : g_(g), pos_(piece.first_edge), end_(piece.first_edge + piece.edges) {}
  bool add(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint64_t msgs = 1) {
    if (pos_ == end_) return false;
    if (any_) {
      if (src < last_src_ || (src == last_src_ && dst <= last_dst_)) return false;
      for (std::uint32_t r = last_src_ + 1; r <= src; ++r) g_.offsets[r] = pos_;
    } else {
      any_ = true;
      first_src_ = src;
      first_dst_ = dst;
    }
    g_.targets[pos_] = dst;
    g_.bytes[pos_] = bytes;
    g_.msgs[pos_] = msgs;
    ++pos_;
    last_src_ = src;
    last_dst_ = dst;
    return true;
  }
  std::uint64_t end() const { return pos_; }

 private:
  friend bool join_pieces(Graph& g, const std::vector<Piece>& pieces, const std::vector<RowFill>& fills);
  Graph& g_;
  std::uint64_t pos_, end_;
  bool any_ = false;
  std::uint32_t first_src_ = 0, first_dst_ = 0, last_src_ = 0, last_dst_ = 0;
};

// A graph of `ranks` with room for `edges`, for RowFill.
Graph graph_with_room(std::uint32_t ranks, std::uint64_t edges);

// The rows between pieces' edges, once every piece is written; false when
// a piece wrote other than its counted edges or starts before the previous
// one ends.
bool join_pieces(Graph& g, const std::vector<Piece>& pieces, const std::vector<RowFill>& fills);

// The body after `in`'s current line in a piece a thread, each counted by
// count(piece) on a thread of its own (its lines, items and edges; then
// first_line, first_item and first_edge follow). Empty when one thread
// reads it (one thread only, or a body under piece_bytes).
template <class Count>
std::vector<Piece> counted_pieces(const LineScanner& in, std::size_t piece_bytes, Count&& count) {
  const std::string_view body = in.rest();
  const auto threads = static_cast<std::size_t>(scoped_threads());
  if (threads < 2 || body.size() < piece_bytes) return {};
  std::vector<Piece> pieces = cut_into_pieces(body, in.line(), threads);
  run_jobs(static_cast<int>(pieces.size()), pieces.size(), [&](std::size_t i) { count(pieces[i]); });
  for (std::size_t i = 1; i < pieces.size(); ++i) {
    pieces[i].first_line = pieces[i - 1].first_line + pieces[i - 1].lines;
    pieces[i].first_item = pieces[i - 1].first_item + pieces[i - 1].items;
    pieces[i].first_edge = pieces[i - 1].first_edge + pieces[i - 1].edges;
  }
  return pieces;
}

// counted_pieces() of a body whose data lines are its edges, one a line
// (.mtx, .csv): is_edge(line) tells them from comments and blank lines.
template <class IsEdge>
std::vector<Piece> counted_edge_lines(const LineScanner& in, std::size_t piece_bytes, IsEdge&& is_edge) {
  return counted_pieces(in, piece_bytes, [&](Piece& p) {
    LineScanner lines(p.text, in.source());
    std::string_view line;
    while (lines.next(line)) p.items += is_edge(line) ? 1 : 0;
    p.lines = lines.line();
    p.edges = p.items;
  });
}

inline std::uint64_t total_items(const std::vector<Piece>& pieces) {
  return pieces.empty() ? 0 : pieces.back().first_item + pieces.back().items;
}
inline std::uint64_t total_edges(const std::vector<Piece>& pieces) {
  return pieces.empty() ? 0 : pieces.back().first_edge + pieces.back().edges;
}

// A graph of `ranks` with room for `edges`, filled by read(piece, fill) on
// a thread a piece: true (written), false (an edge out of order), or an
// error thrown. Empty when any piece was out of order (the caller reads on
// one thread, which sorts; its first error is then the file's); else the
// first piece's error is rethrown, which is the file's first error; empty
// too when a piece wrote other than it counted.
template <class Read>
std::optional<Graph> graph_from_pieces(std::uint32_t ranks, std::uint64_t edges, const std::vector<Piece>& pieces,
                                       Read&& read) {
  Graph g = graph_with_room(ranks, edges);
  std::vector<RowFill> fills;
  fills.reserve(pieces.size());
  for (const Piece& p : pieces) fills.emplace_back(g, p);
  std::vector<char> in_order(pieces.size(), 1);
  std::vector<std::exception_ptr> error(pieces.size());
  run_jobs(static_cast<int>(pieces.size()), pieces.size(), [&](std::size_t i) {
    try {
      in_order[i] = read(pieces[i], fills[i]) ? 1 : 0;
    } catch (...) {
      error[i] = std::current_exception();
    }
  });
  if (std::find(in_order.begin(), in_order.end(), 0) != in_order.end()) return std::nullopt;
  for (const std::exception_ptr& e : error)
    if (e) std::rethrow_exception(e);
  if (!join_pieces(g, pieces, fills)) return std::nullopt;
  return g;
}

}  // namespace rankmap::detail
