// Matrix Market coordinate files: entry "i j v" (1-based) = v bytes from
// rank i to rank j, one message per entry.
#include <charconv>
#include <cmath>
#include <optional>

#include "core/text_scanner.hpp"
#include "graph/readers.hpp"
#include "graph/row_pieces.hpp"

namespace rankmap::detail {
namespace {

std::uint64_t parse_real_bytes(std::string_view field, const LineScanner& at) {
  double v = 0;
  auto [p, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec != std::errc() || p != field.data() + field.size() || !std::isfinite(v))
    at.fail("expected a byte count (a number), got '" + std::string(field) + "'");
  if (v < 0) at.fail("expected a byte count (non-negative), got '" + std::string(field) + "'");
  if (v >= 1.8e19) at.fail("byte count '" + std::string(field) + "' is too large");
  return static_cast<std::uint64_t>(std::llround(v));
}

enum class Values { integer, real, pattern };

struct Entry {
  std::uint32_t src, dst;
  std::uint64_t bytes;
};

// One entry line: "i j [bytes]", 1-based ranks up to `rows`.
Entry parse_entry(std::string_view line, const LineScanner& in, std::uint64_t rows, Values values) {
  std::uint64_t n[3];
  if (values != Values::real && scan_counts(line, n, values == Values::pattern ? 2 : 3) && n[0] >= 1 && n[0] <= rows &&
      n[1] >= 1 && n[1] <= rows && (values == Values::pattern || n[2] <= kMaxEntryBytes)) [[likely]]
    return {static_cast<std::uint32_t>(n[0] - 1), static_cast<std::uint32_t>(n[1] - 1),
            values == Values::pattern ? 1 : n[2]};
  Fields f(line);
  const std::uint64_t i = parse_count(need(f, in, "a sender rank"), in, "a sender rank");
  const std::uint64_t j = parse_count(need(f, in, "a receiver rank"), in, "a receiver rank");
  if (i < 1 || i > rows || j < 1 || j > rows)
    in.fail("rank " + std::to_string(i < 1 || i > rows ? i : j) + " is outside 1.." + std::to_string(rows) +
            " (the header's rank count)");
  std::uint64_t bytes = 1;
  if (values == Values::integer)
    bytes = parse_bytes(need(f, in, "a byte count"), in, "a byte count");
  else if (values == Values::real)
    bytes = parse_real_bytes(need(f, in, "a byte count"), in);
  if (!f.empty())
    in.fail("expected 'sender receiver" + std::string(values == Values::pattern ? "" : " bytes") +
            "', found more fields");
  return {static_cast<std::uint32_t>(i - 1), static_cast<std::uint32_t>(j - 1), bytes};
}

bool is_entry(std::string_view line) { return !is_blank(line) && line[0] != '%'; }

// A large general file, its entries in any order: read in pieces, a
// thread each (row_pieces.hpp). Empty when a piece is not what that path
// reads; the caller then reads it on one thread, which also names any
// error in it.
std::optional<Graph> read_entries_in_pieces(const LineScanner& in, std::uint64_t rows, std::uint64_t nnz, Values values,
                                            std::size_t piece_bytes) {
  const std::vector<Piece> pieces = counted_edge_lines(in, piece_bytes, is_entry);
  if (pieces.empty() || total_items(pieces) != nnz) return std::nullopt;
  auto read = [&](const Piece& piece, auto& fill) {
    LineScanner lines(piece.text, in.source(), piece.first_line);
    std::string_view line;
    while (lines.next(line)) {
      if (!is_entry(line)) continue;
      const Entry e = parse_entry(line, lines, rows, values);
      if (!fill.add(e.src, e.dst, e.bytes)) return false;
    }
    return true;
  };
  // Entries out of order are first counted by sender: the sender alone is
  // read where it is a plain rank in range, else the whole line (to the
  // same rank, or to its error). On a 1M-rank stencil with its lines
  // shuffled this pass took 0.43-0.65 s in five runs, against 1.03-1.12 s
  // in two reading every entry in full (16 edges in flight).
  auto count_senders = [&](const Piece& piece, RowCount& count) {
    LineScanner lines(piece.text, in.source(), piece.first_line);
    std::string_view line;
    while (lines.next(line)) {
      if (!is_entry(line)) continue;
      std::uint64_t i = 0;
      const bool plain = first_count(line, ' ', i) && i >= 1 && i <= rows;
      const std::uint32_t sender =
          plain ? static_cast<std::uint32_t>(i - 1) : parse_entry(line, lines, rows, values).src;
      if (!count.add(sender, 0, 0)) return false;
    }
    return true;
  };
  return graph_from_pieces(static_cast<std::uint32_t>(rows), nnz, pieces, read, count_senders);
}

}  // namespace

Graph read_mtx(std::string_view text, const std::string& source, std::size_t piece_bytes) {
  LineScanner in(text, source);
  std::string_view line;
  if (!in.next(line) || line.rfind("%%MatrixMarket", 0) != 0)
    in.fail("expected the header '%%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric>'");
  Fields banner(line);
  std::string_view words[5];
  for (auto& w : words) w = need(banner, in, "the five words of a Matrix Market header");
  if (words[1] != "matrix" || words[2] != "coordinate")
    in.fail("expected a 'matrix coordinate' file, got '" + std::string(words[1]) + " " + std::string(words[2]) + "'");
  const std::string_view field = words[3], symmetry = words[4];
  if (field != "real" && field != "integer" && field != "pattern")
    in.fail("expected field type real, integer or pattern, got '" + std::string(field) + "'");
  if (symmetry != "general" && symmetry != "symmetric")
    in.fail("expected symmetry general or symmetric, got '" + std::string(symmetry) + "'");
  const bool symmetric = symmetry == "symmetric";
  const Values values = field == "integer" ? Values::integer : field == "real" ? Values::real : Values::pattern;

  // Size line, after comments.
  do {
    if (!in.next(line)) in.fail("expected the size line 'ranks ranks entries', found the end of the file");
  } while (is_blank(line) || line[0] == '%');
  Fields size(line);
  const std::uint64_t rows = parse_count(need(size, in, "the number of rows"), in, "the number of rows");
  const std::uint64_t cols = parse_count(need(size, in, "the number of columns"), in, "the number of columns");
  const std::uint64_t nnz = parse_count(need(size, in, "the number of entries"), in, "the number of entries");
  if (!size.empty()) in.fail("expected 'ranks ranks entries' on the size line, found more");
  if (rows != cols)
    in.fail("expected a square matrix (ranks x ranks), got " + std::to_string(rows) + " x " + std::to_string(cols));
  if (rows == 0 || rows > kMaxRanks)
    in.fail("expected 1 to " + std::to_string(kMaxRanks) + " ranks, got " + std::to_string(rows));
  // Counts are checked against the file before anything is reserved: an
  // entry takes at least 6 bytes ("1 2 3\n"), a silent rank none.
  if (nnz > text.size() / 6)
    in.fail("the size line announces " + std::to_string(nnz) + " entries, more than a file of " +
            std::to_string(text.size()) + " bytes holds");
  if (rows > 64 * text.size() + (1u << 20))
    in.fail(std::to_string(rows) + " ranks in a file of " + std::to_string(text.size()) + " bytes: at most " +
            std::to_string(64 * text.size() + (1u << 20)));

  if (!symmetric)
    if (std::optional<Graph> g = read_entries_in_pieces(in, rows, nnz, values, piece_bytes)) return std::move(*g);
  GraphBuilder builder(static_cast<std::uint32_t>(rows));
  builder.reserve(symmetric ? 2 * nnz : nnz);
  std::uint64_t seen = 0;
  while (in.next(line)) {
    if (!is_entry(line)) continue;
    if (seen == nnz) in.fail("more entries than the " + std::to_string(nnz) + " the size line announced");
    const Entry e = parse_entry(line, in, rows, values);
    builder.add(e.src, e.dst, e.bytes, 1);
    if (symmetric && e.src != e.dst) builder.add(e.dst, e.src, e.bytes, 1);
    ++seen;
  }
  if (seen != nnz)
    in.fail("truncated: the size line announced " + std::to_string(nnz) + " entries, the file has " +
            std::to_string(seen));
  return builder.build();
}

}  // namespace rankmap::detail
