// CSV edge lists "src,dst,bytes[,msgs]", 0-based ranks. A first line that
// does not start with a digit is a header. "# ranks=N" declares ranks that
// have no traffic; otherwise the rank count is the largest rank + 1.
#include <algorithm>
#include <optional>

#include "core/text_scanner.hpp"
#include "graph/readers.hpp"

namespace rankmap::detail {
namespace {

struct Row {
  std::uint32_t src, dst;
  std::uint64_t bytes, msgs;
};

// One data line of a file of file_bytes; `declared`: the ranks a
// "# ranks=" line above it declared, or 0.
Row parse_row(std::string_view line, const LineScanner& in, std::size_t file_bytes, std::uint64_t declared) {
  // The common line, "src,dst,bytes[,msgs]" passing every check below, in
  // one sweep: a 477 MB file (the 1M-rank stencil) read in 0.6-0.8 s
  // against 1.1-1.2 s field by field, its lines shuffled 1.6-2.0 s
  // against 2.0-2.4 s (bench/RESULTS.md, issue 55, twenty-first session).
  std::uint64_t n[4];
  const int k = scan_separated_counts(line, ',', n, 4);
  const std::uint64_t ranks =
      std::min<std::uint64_t>({kMaxRanks, 64 * file_bytes + (1u << 20), declared ? declared : kMaxRanks});
  if (k >= 3 && n[0] < ranks && n[1] < ranks && n[2] <= kMaxEntryBytes) [[likely]]
    return {static_cast<std::uint32_t>(n[0]), static_cast<std::uint32_t>(n[1]), n[2], k == 4 ? n[3] : 1};
  Fields f(line, ",");
  std::string_view cells[4];
  int ncells = 0;
  std::string_view cell;
  while (f.next(cell)) {
    if (ncells == 4) in.fail("expected 'src,dst,bytes[,msgs]', found more than four fields");
    const auto a = cell.find_first_not_of(" \t"), b = cell.find_last_not_of(" \t");
    cells[ncells++] = a == std::string_view::npos ? std::string_view{} : cell.substr(a, b - a + 1);
  }
  if (ncells < 3) in.fail("expected 'src,dst,bytes[,msgs]', found " + std::to_string(ncells) + " fields");
  const std::uint64_t src = parse_count(cells[0], in, "a sender rank");
  const std::uint64_t dst = parse_count(cells[1], in, "a receiver rank");
  if (src >= kMaxRanks || dst >= kMaxRanks)
    in.fail("rank " + std::to_string(std::max(src, dst)) + " is out of range (0 to " + std::to_string(kMaxRanks - 1) +
            ")");
  // Ranks below the largest named are all allocated, as silent ones: the
  // bound of a declared count holds here too ("0,2110110617,1" once
  // asked for 17 GB).
  if (std::max(src, dst) >= 64 * file_bytes + (1u << 20))
    in.fail("rank " + std::to_string(std::max(src, dst)) + " in a file of " + std::to_string(file_bytes) +
            " bytes: at most " + std::to_string(64 * file_bytes + (1u << 20)) + " ranks");
  if (declared && std::max(src, dst) >= declared)
    in.fail("rank " + std::to_string(std::max(src, dst)) + " is beyond the declared ranks=" + std::to_string(declared));
  const std::uint64_t bytes = parse_bytes(cells[2], in, "a byte count");
  const std::uint64_t msgs = ncells == 4 ? parse_count(cells[3], in, "a message count") : 1;
  return {static_cast<std::uint32_t>(src), static_cast<std::uint32_t>(dst), bytes, msgs};
}

bool is_data(std::string_view line) { return !is_blank(line) && line[0] != '#'; }

// each(line, lines) for every data line of a piece, in order, while it
// gives true; false when one gives false, or at a "ranks=" line among the
// data (the one-thread reader names it).
template <class Each>
bool each_data_line(const Piece& piece, const LineScanner& at, Each&& each) {
  LineScanner lines(piece.text, at.source(), piece.first_line);
  std::string_view line;
  while (lines.next(line)) {
    if (is_blank(line)) continue;
    if (line[0] == '#') {
      if (line.find("ranks=") != std::string_view::npos) return false;
      continue;
    }
    if (!each(line, lines)) return false;
  }
  return true;
}

// The data lines from `at` on, in pieces, a thread each (row_pieces.hpp),
// when ranks are declared above them (format_csv writes the line), the
// edges in any order. Empty otherwise (a "ranks=" line among them, say);
// the caller then reads on one thread, which also names any error.
std::optional<Graph> read_rows_in_pieces(const LineScanner& at, std::size_t file_bytes, std::uint64_t declared,
                                         std::size_t piece_bytes) {
  const std::vector<Piece> pieces = counted_edge_lines(at, piece_bytes, is_data);
  if (pieces.empty()) return std::nullopt;
  auto read = [&](const Piece& piece, auto& fill) {
    return each_data_line(piece, at, [&](std::string_view line, const LineScanner& lines) {
      const Row r = parse_row(line, lines, file_bytes, declared);
      return fill.add(r.src, r.dst, r.bytes, r.msgs);
    });
  };
  // Rows out of order are first counted by sender, the sender alone read
  // where it is a plain rank below the declared count, else the whole line
  // (to the same rank, or to its error), as read_mtx does.
  auto count_senders = [&](const Piece& piece, RowCount& count) {
    return each_data_line(piece, at, [&](std::string_view line, const LineScanner& lines) {
      std::uint64_t src = 0;
      const bool plain = first_count(line, ',', src) && src < declared;
      const std::uint32_t sender =
          plain ? static_cast<std::uint32_t>(src) : parse_row(line, lines, file_bytes, declared).src;
      return count.add(sender, 0, 0);
    });
  };
  return graph_from_pieces(static_cast<std::uint32_t>(declared), total_edges(pieces), pieces, read, count_senders);
}

}  // namespace

Graph read_csv(std::string_view text, const std::string& source, std::size_t piece_bytes) {
  LineScanner in(text, source);
  std::vector<Row> rows;
  std::uint64_t declared = 0, largest = 0;
  std::size_t declared_line = 0;
  bool first = true;
  std::string_view line;
  // Where the first data line starts, the pieces begin (kept only until
  // then: a copy a line would copy the file name a line).
  LineScanner before = in;
  for (; in.next(line); before = rows.empty() ? in : before) {
    if (is_blank(line)) continue;
    if (line[0] == '#') {
      const auto at = line.find("ranks=");
      if (at == std::string_view::npos) continue;
      if (declared_line) in.fail("a second 'ranks=' line (the first is line " + std::to_string(declared_line) + ")");
      declared = parse_count(line.substr(at + 6), in, "a rank count after 'ranks='");
      declared_line = in.line();
      // Silent ranks cost memory, not bytes of the file: a small file may
      // declare many, but not beyond MPI's rank range or absurdly many.
      if (declared == 0 || declared > kMaxRanks)
        in.fail("ranks=" + std::to_string(declared) + " is out of range (1 to " + std::to_string(kMaxRanks) + ")");
      if (declared > 64 * text.size() + (1u << 20))
        in.fail("ranks=" + std::to_string(declared) + " in a file of " + std::to_string(text.size()) +
                " bytes: at most " + std::to_string(64 * text.size() + (1u << 20)) + " silent ranks");
      if (largest > 0 && largest >= declared)  // a declaration after the edges
        in.fail("ranks=" + std::to_string(declared) + " but an edge above names rank " + std::to_string(largest));
      continue;
    }
    const bool header = first && !(line[0] >= '0' && line[0] <= '9');
    first = false;
    if (header) continue;
    if (rows.empty() && declared)  // the first data line
      if (std::optional<Graph> g = read_rows_in_pieces(before, text.size(), declared, piece_bytes))
        return std::move(*g);
    const Row r = parse_row(line, in, text.size(), declared);
    largest = std::max({largest, std::uint64_t{r.src}, std::uint64_t{r.dst}});
    rows.push_back(r);
  }
  if (rows.empty() && !declared) in.fail("no edges (expected lines 'src,dst,bytes[,msgs]')");
  GraphBuilder builder(static_cast<std::uint32_t>(declared ? declared : largest + 1));
  builder.reserve(rows.size());
  for (const Row& r : rows) builder.add(r.src, r.dst, r.bytes, r.msgs);
  return builder.build();
}

}  // namespace rankmap::detail
