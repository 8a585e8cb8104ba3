// Reading the body of a large graph file on several threads. The body (the
// lines after the header) is cut into pieces at line ends; a first pass
// counts each piece's lines and edges, so every piece knows its first line
// number (for errors) and where its edges go; the second writes them
// straight into the graph's arrays, as rankmap and Scotch write .mtx,
// .graph, .grf and .csv files: senders in order, each row's receivers
// ascending. Other tools' files come in any order. A row's receivers out
// of order are taken as they come, and the row sorted as soon as it ends,
// while it is in cache (repeats are added up after, in one pass); senders
// out of order make each piece read twice more, once for its lines'
// senders alone, to count every row's edges, and once to put each edge in
// its row, before the rows are sorted and their repeats added up, still a
// thread a piece (or a range of rows). Internal to libmap.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <optional>
#include <string_view>
#include <vector>

#include "core/huge_pages.hpp"
#include "core/prefetch.hpp"
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

// `unsorted_row`: joined, but a row that two pieces share has receivers
// out of order or repeated across them (sort_and_merge_rows mends it).
enum class Joined { yes, unsorted_row, out_of_order, miscounted };

// A row's edges in a run of the graph's arrays, reordered.
struct RowScratch {
  std::vector<std::uint64_t> keys, bytes, msgs;
};

// The edges [first, last) of g sorted by receiver, in place, keeping the
// file's order among repeats; true when two of them share a receiver.
bool sort_row(Graph& g, std::uint64_t first, std::uint64_t last, RowScratch& scratch);

// One piece's edges, written from its first_edge in order: add() is false
// when an edge's sender comes before the piece's previous one
// (out_of_order()), or the piece has more edges than counted (never past
// its room). A row's receivers out of order (a .grf or .graph whose
// neighbour lists are not sorted) are taken, and the row sorted when its
// sender's edges end (finish() for the piece's last row); a row with
// repeats waits for sort_and_merge_rows (repeats()). Sorting each row
// while it is in cache, not all rows after, brought a 1M-rank stencil's
// .grf with its lists shuffled to the sorted file's time: 0.999x of it in
// the whole `map --preset fast`, against 1.072x (bench/RESULTS.md, issue
// 55, nineteenth session).
class RowFill {
 public:
  explicit RowFill(Graph& g, const Piece& piece)
      : g_(g), begin_(piece.first_edge), pos_(piece.first_edge), end_(piece.first_edge + piece.edges) {}
  bool add(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint64_t msgs = 1) {
    if (pos_ == end_) return false;
    if (any_) {
      if (src < last_src_) {
        out_of_order_ = true;
        return false;
      }
      if (src == last_src_) {
        row_unsorted_ = row_unsorted_ || dst <= last_dst_;
      } else {
        close_row();
        for (std::uint32_t r = last_src_ + 1; r <= src; ++r) g_.offsets[r] = pos_;
      }
    } else {
      any_ = true;
      first_src_ = src;
    }
    g_.targets[pos_] = dst;
    g_.bytes[pos_] = bytes;
    g_.msgs[pos_] = msgs;
    ++pos_;
    last_src_ = src;
    last_dst_ = dst;
    return true;
  }
  // Once the piece is read whole: its last row sorted, and the least and
  // the greatest receiver at its two ends taken for join_pieces.
  void finish() {
    close_row();
    if (!any_) return;
    first_dst_ = g_.targets[begin_];
    last_dst_ = g_.targets[pos_ - 1];
  }
  std::uint64_t end() const { return pos_; }
  bool out_of_order() const { return out_of_order_; }
  bool repeats() const { return repeats_; }

 private:
  friend Joined join_pieces(Graph& g, const std::vector<Piece>& pieces, const std::vector<RowFill>& fills);
  // The current row, [row_first_, pos_), sorted if it came out of order.
  void close_row() {
    if (row_unsorted_) repeats_ = sort_row(g_, row_first_, pos_, scratch_) || repeats_;
    row_unsorted_ = false;
    row_first_ = pos_;
  }
  Graph& g_;
  std::uint64_t begin_, pos_, end_, row_first_ = begin_;
  bool any_ = false, out_of_order_ = false, row_unsorted_ = false, repeats_ = false;
  std::uint32_t first_src_ = 0, first_dst_ = 0, last_src_ = 0, last_dst_ = 0;
  RowScratch scratch_;
};

// The any-order path's sinks see a shuffled file's rows far apart: each
// edge's row is fetched when it comes and used kRowLag edges later, so
// that the cache misses of consecutive edges overlap (on a 1M-rank
// stencil with its lines shuffled, the row lookups were 3/4 of the
// reading's time). 32 rather than 16: there, in three runs each, the
// counting pass took 0.24-0.35 s against 0.43-0.59 s, the placing pass
// 1.18-1.42 s against 1.33-1.72 s.
inline constexpr std::size_t kRowLag = 32;

// The first pass: each edge counted in its sender's row, in this piece's
// own counts (rows[src]); false past the piece's counted edges.
class RowCount {
 public:
  RowCount(std::uint32_t* rows, std::uint64_t room) : rows_(rows), room_(room) {}
  bool add(std::uint32_t src, std::uint32_t, std::uint64_t, std::uint64_t = 1) {
    if (seen_ == room_) return false;
    std::uint32_t& slot = waiting_[seen_++ % kRowLag];
    if (seen_ > kRowLag) ++rows_[slot];
    __builtin_prefetch(rows_ + src, 1);
    slot = src;
    return true;
  }
  // The edges still waiting, counted; once the piece is read.
  void flush() {
    for (std::uint64_t k = seen_ > kRowLag ? seen_ - kRowLag : 0; k < seen_; ++k) ++rows_[waiting_[k % kRowLag]];
  }
  std::uint64_t seen() const { return seen_; }

 private:
  std::uint32_t* rows_;
  std::uint64_t room_, seen_ = 0;
  std::uint32_t waiting_[kRowLag] = {};
};

// The second: each edge at its row's next place for this piece (next[src],
// starting past the earlier pieces' edges of the row: one lookup an edge,
// where the row's start and a count were two), edges placed in file
// order, so that a row holds them in file order. False past the graph's
// end; a row that took more than its count, which the same text never
// gives, shows after in rows_placed_as_counted().
class RowScatter {
 public:
  RowScatter(Graph& g, std::uint32_t* next) : g_(g), next_(next) {}
  bool add(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint64_t msgs = 1) {
    Edge& slot = waiting_[seen_++ % kRowLag];
    if (seen_ > kRowLag && !place(slot)) return false;
    __builtin_prefetch(next_ + src, 1);
    slot = {src, dst, bytes, msgs};
    return true;
  }
  // The edges still waiting, placed; once the piece is read.
  bool flush() {
    for (std::uint64_t k = seen_ > kRowLag ? seen_ - kRowLag : 0; k < seen_; ++k)
      if (!place(waiting_[k % kRowLag])) return false;
    for (std::uint64_t k = placed_count_ > kRowLag ? placed_count_ - kRowLag : 0; k < placed_count_; ++k)
      write(placed_edges_[k % kRowLag]);
    return true;
  }

 private:
  struct Edge {
    std::uint32_t src, dst;
    std::uint64_t bytes, msgs;
  };
  // The edge's place, fetched now; the edge placed kRowLag places earlier,
  // written.
  bool place(const Edge& e) {
    const std::uint64_t at = next_[e.src]++;
    if (at >= g_.targets.size()) return false;
    prefetch_for_write(g_.targets, at);
    prefetch_for_write(g_.bytes, at);
    prefetch_for_write(g_.msgs, at);
    Placed& slot = placed_edges_[placed_count_++ % kRowLag];
    if (placed_count_ > kRowLag) write(slot);
    slot = {at, e.dst, e.bytes, e.msgs};
    return true;
  }
  struct Placed {
    std::uint64_t at;
    std::uint32_t dst;
    std::uint64_t bytes, msgs;
  };
  void write(const Placed& p) {
    g_.targets[p.at] = p.dst;
    g_.bytes[p.at] = p.bytes;
    g_.msgs[p.at] = p.msgs;
  }
  Graph& g_;
  std::uint32_t* next_;
  std::uint64_t seen_ = 0, placed_count_ = 0;
  Edge waiting_[kRowLag] = {};
  Placed placed_edges_[kRowLag] = {};
};

// After RowCount: counts (a row of g.ranks a piece) become each piece's
// first place in every row (places fit: at most kMaxEdges edges), and
// g.offsets the rows' starts.
void rows_from_counts(Graph& g, std::vector<std::uint32_t>& counts, std::size_t pieces);

// After RowScatter: whether every piece's places (`ends`) stopped where
// the next piece's began (`starts`, rows_from_counts' places), the last
// piece's at each row's end.
bool rows_placed_as_counted(const Graph& g, const std::vector<std::uint32_t>& starts,
                            const std::vector<std::uint32_t>& ends, std::size_t pieces);

// sum += more, or an error naming the edge where it would pass 2^64 - 1
// (`what`: "bytes" or "messages").
void add_up_edge(std::uint64_t& sum, std::uint64_t more, std::uint32_t src, std::uint32_t dst, const char* what);

// Every row of g sorted by receiver, the repeats of an edge added up (a
// sum past 2^64 - 1 is an error, as GraphBuilder's), the rows closed up.
void sort_and_merge_rows(Graph& g);

// A graph of `ranks` with room for `edges`, for RowFill.
Graph graph_with_room(std::uint32_t ranks, std::uint64_t edges);

// The rows between pieces' edges, once every piece is written: miscounted
// when a piece wrote other than its counted edges, out_of_order when one
// starts before the previous one ends.
Joined join_pieces(Graph& g, const std::vector<Piece>& pieces, const std::vector<RowFill>& fills);

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

// read(piece, sink) on a thread a piece, for every piece: true when it
// read the whole piece, false when it stopped (sink.add() said no, or the
// piece is not what the fast path reads); errors caught, the lowest
// piece's kept.
template <class Read, class Sink>
std::vector<char> read_each_piece(const std::vector<Piece>& pieces, std::vector<Sink>& sinks, Read& read,
                                  std::exception_ptr& first_error) {
  std::vector<char> whole(pieces.size(), 1);
  std::vector<std::exception_ptr> error(pieces.size());
  run_jobs(static_cast<int>(pieces.size()), pieces.size(), [&](std::size_t i) {
    try {
      whole[i] = read(pieces[i], sinks[i]) ? 1 : 0;
    } catch (...) {
      error[i] = std::current_exception();
    }
  });
  for (const std::exception_ptr& e : error)
    if (e && !first_error) first_error = e;
  return whole;
}

// g's rows from pieces whose edges come in any order: counted (by
// count(piece, sink), which may read the senders alone), written into
// their rows by read(piece, sink) (a piece's counts a row each: pieces x
// ranks x 4 bytes, so only where that is at most 8 bytes an edge), sorted
// and added up. False when a piece is not what the fast path reads (the
// caller reads the file on one thread); else the first piece's error is
// rethrown.
template <class Count, class Read>
bool fill_rows_in_any_order(Graph& g, const std::vector<Piece>& pieces, Count& count, Read& read) {
  const std::size_t ranks = g.ranks, edges = g.targets.size();
  if (edges > kMaxEdges || pieces.size() * ranks > 2 * edges) return false;
  std::vector<std::uint32_t> counts = huge_vector<std::uint32_t>(pieces.size() * ranks);
  auto counters_of = [&] {
    std::vector<RowCount> counters;
    counters.reserve(pieces.size());
    for (std::size_t i = 0; i < pieces.size(); ++i) counters.emplace_back(counts.data() + i * ranks, pieces[i].edges);
    return counters;
  };
  std::vector<RowCount> counters = counters_of();
  std::exception_ptr error;
  const std::vector<char> whole = read_each_piece(pieces, counters, count, error);
  if (std::find(whole.begin(), whole.end(), 0) != whole.end()) return false;
  if (error) {
    // A line count() read in full failed; an earlier line of its piece,
    // whose sender alone was read, may fail too. Read in full, the pieces
    // name the file's first error.
    error = nullptr;
    std::vector<RowCount> again = counters_of();
    read_each_piece(pieces, again, read, error);
    if (error) std::rethrow_exception(error);
    return false;  // not reached: the same lines read again
  }
  for (RowCount& c : counters) c.flush();
  for (std::size_t i = 0; i < pieces.size(); ++i)
    if (counters[i].seen() != pieces[i].edges) return false;
  rows_from_counts(g, counts, pieces.size());
  const std::vector<std::uint32_t> starts = counts;
  std::vector<RowScatter> scatters;
  scatters.reserve(pieces.size());
  for (std::size_t i = 0; i < pieces.size(); ++i) scatters.emplace_back(g, counts.data() + i * ranks);
  const std::vector<char> written = read_each_piece(pieces, scatters, read, error);
  if (error) std::rethrow_exception(error);  // a line whose sender alone was counted
  if (std::find(written.begin(), written.end(), 0) != written.end()) return false;
  for (RowScatter& s : scatters)
    if (!s.flush()) return false;
  if (!rows_placed_as_counted(g, starts, counts, pieces.size())) return false;
  sort_and_merge_rows(g);
  return true;
}

// A graph of `ranks` with room for `edges`, filled by read(piece, sink) on
// a thread a piece; read is called with a RowFill, and where edges came out
// of order with a RowScatter, after count_senders(piece, sink) with a
// RowCount (a generic lambda serves for both; count_senders may read each
// edge line's sender alone, and must give the senders read does). Each
// returns true (the whole piece read), false (sink.add() said no, or the
// piece is not what the fast path reads), or throws the file's error.
// Empty when a piece is not what the fast path reads, or wrote other than
// it counted: the caller then reads on one thread, whose first error is
// the file's. Else the first piece's error is rethrown.
template <class Read, class CountSenders>
std::optional<Graph> graph_from_pieces(std::uint32_t ranks, std::uint64_t edges, const std::vector<Piece>& pieces,
                                       Read&& read, CountSenders&& count_senders) {
  Graph g = graph_with_room(ranks, edges);
  std::vector<RowFill> fills;
  fills.reserve(pieces.size());
  for (const Piece& p : pieces) fills.emplace_back(g, p);
  std::exception_ptr error;
  const std::vector<char> whole = read_each_piece(pieces, fills, read, error);
  bool in_order = true;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (whole[i]) continue;
    if (!fills[i].out_of_order()) return std::nullopt;
    in_order = false;
  }
  if (in_order) {
    if (error) std::rethrow_exception(error);
    for (RowFill& f : fills) f.finish();
    const Joined joined = join_pieces(g, pieces, fills);
    if (joined == Joined::yes || joined == Joined::unsorted_row) {
      if (joined == Joined::unsorted_row ||
          std::any_of(fills.begin(), fills.end(), [](const RowFill& f) { return f.repeats(); }))
        sort_and_merge_rows(g);
      return g;
    }
    if (joined == Joined::miscounted) return std::nullopt;
  }
  if (!fill_rows_in_any_order(g, pieces, count_senders, read)) return std::nullopt;
  return g;
}

// The same, where edges are only ever in their senders' order (one line a
// vertex: .grf, .graph), or where reading a line's sender alone saves
// nothing.
template <class Read>
std::optional<Graph> graph_from_pieces(std::uint32_t ranks, std::uint64_t edges, const std::vector<Piece>& pieces,
                                       Read&& read) {
  return graph_from_pieces(ranks, edges, pieces, read, read);
}

}  // namespace rankmap::detail
