// Scotch source graphs (.grf): "0", "vertices arcs", "baseval flag", then
// per vertex "[label] [load] degree ([arc load] neighbour)*". flag digits:
// labels, edge loads, vertex loads. An arc load is the bytes sent from the
// vertex to the neighbour; unweighted arcs carry 1 byte. Scotch reads tokens,
// not lines; so do we, remembering each token's line for errors.
#include <optional>
#include <unordered_map>

#include "core/text_scanner.hpp"
#include "graph/readers.hpp"
#include "graph/row_pieces.hpp"

namespace rankmap::detail {
namespace {

class Tokens {
 public:
  explicit Tokens(LineScanner& in) : in_(in), fields_("") {}
  // Whether the last token read ended its line.
  bool at_line_end() const { return fields_.empty(); }
  bool next(std::string_view& token) {
    while (!fields_.next(token)) {
      std::string_view line;
      if (!in_.next(line)) return false;
      fields_ = Fields(line);
    }
    return true;
  }
  std::uint64_t count(const char* what) {
    std::string_view t;
    if (!next(t)) in_.fail(std::string("truncated: expected ") + what + ", found the end of the file");
    return parse_count(t, in_, what);
  }

 private:
  LineScanner& in_;
  Fields fields_;
};

struct Format {
  std::uint64_t n, arcs, base;
  bool has_eload, has_vload;
};

// A large file without labels whose every line is one vertex, its
// neighbours in any order: read in pieces, a thread each (row_pieces.hpp).
// Empty when it is not such a file; the caller then reads it token by
// token on one thread, which also names any error in it.
std::optional<Graph> read_vertices_in_pieces(const LineScanner& in, const Format& f, std::size_t piece_bytes) {
  const std::uint64_t before = f.has_vload ? 2 : 1, per_arc = f.has_eload ? 2 : 1;
  const std::vector<Piece> pieces = counted_pieces(in, piece_bytes, [&](Piece& p) {
    LineScanner lines(p.text, in.source());
    std::string_view line;
    while (lines.next(line)) {
      const std::uint64_t fields = count_fields(line);
      if (fields == 0) continue;
      ++p.items;
      p.edges += fields > before ? (fields - before) / per_arc : 0;
    }
    p.lines = lines.line();
  });
  if (pieces.empty() || total_items(pieces) != f.n || total_edges(pieces) != f.arcs) return std::nullopt;
  // false wherever a vertex does not fill its line exactly: the
  // one-thread reader follows it over lines.
  return graph_from_pieces(static_cast<std::uint32_t>(f.n), f.arcs, pieces, [&](const Piece& piece, auto& fill) {
    LineScanner lines(piece.text, in.source(), piece.first_line);
    std::string_view line;
    auto vertex = static_cast<std::uint32_t>(piece.first_item);
    while (lines.next(line)) {
      Fields fields(line);
      std::string_view t;
      if (!fields.next(t)) continue;
      if (f.has_vload) {
        parse_count(t, lines, "a vertex load");
        if (!fields.next(t)) return false;
      }
      const std::uint64_t degree = parse_count(t, lines, "a vertex degree");
      for (std::uint64_t k = 0; k < degree; ++k) {
        std::uint64_t bytes = 1;
        if (f.has_eload) {
          if (!fields.next(t)) return false;
          bytes = parse_count(t, lines, "an arc load");
          if (bytes > kMaxEntryBytes) return false;
        }
        if (!fields.next(t)) return false;
        const std::uint64_t nb = parse_count(t, lines, "a neighbour");
        if (nb < f.base || nb - f.base >= f.n) return false;
        if (!fill.add(vertex, static_cast<std::uint32_t>(nb - f.base), bytes)) return false;
      }
      if (!fields.empty()) return false;
      ++vertex;
    }
    return true;
  });
}

}  // namespace

Graph read_scotch(std::string_view text, const std::string& source, std::size_t piece_bytes) {
  LineScanner in(text, source);
  Tokens tok(in);
  if (tok.count("the format version 0") != 0) in.fail("expected Scotch graph format version 0");
  const std::uint64_t n = tok.count("the number of vertices");
  const std::uint64_t arcs = tok.count("the number of arcs");
  const std::uint64_t base = tok.count("the base value (0 or 1)");
  if (base > 1) in.fail("expected base value 0 or 1, got " + std::to_string(base));
  std::string_view flag;
  if (!tok.next(flag) || flag.size() > 3 || flag.find_first_not_of("01") != std::string_view::npos)
    in.fail("expected a flag of up to three 0/1 digits (labels, edge loads, vertex loads)");
  const std::string digits = std::string(3 - flag.size(), '0') + std::string(flag);
  const bool has_label = digits[0] == '1', has_eload = digits[1] == '1', has_vload = digits[2] == '1';
  if (n == 0 || n > kMaxRanks)
    in.fail("expected 1 to " + std::to_string(kMaxRanks) + " vertices, got " + std::to_string(n));
  // Checked against the file before anything is reserved: every vertex
  // has a degree, every arc a neighbour (2 bytes each, with a separator).
  if (n > text.size() / 2 || arcs > text.size() / 2)
    throw Error(source, 2,
                "the header announces " + std::to_string(n) + " vertices and " + std::to_string(arcs) +
                    " arcs, more than a file of " + std::to_string(text.size()) + " bytes holds");

  // Without labels each arc goes straight into the graph; with them a
  // neighbour may be a label not read yet, so arcs wait for the last vertex
  // (with their line, for the error).
  struct Arc {
    std::uint32_t src;
    std::uint64_t neighbour, bytes;
    std::size_t line;
  };
  if (!has_label && tok.at_line_end())
    if (std::optional<Graph> g = read_vertices_in_pieces(in, {n, arcs, base, has_eload, has_vload}, piece_bytes))
      return std::move(*g);
  std::vector<Arc> pending;
  if (has_label) pending.reserve(arcs);
  GraphBuilder builder(static_cast<std::uint32_t>(n));
  builder.reserve(arcs);
  std::unordered_map<std::uint64_t, std::uint32_t> index_of_label;
  std::uint64_t listed = 0;
  for (std::uint64_t v = 0; v < n; ++v) {
    if (has_label) {
      const std::uint64_t label = tok.count("a vertex label");
      if (!index_of_label.emplace(label, static_cast<std::uint32_t>(v)).second)
        in.fail("vertex label " + std::to_string(label) + " is used twice");
    }
    if (has_vload) tok.count("a vertex load");
    const std::uint64_t degree = tok.count("a vertex degree");
    for (std::uint64_t k = 0; k < degree; ++k) {
      const std::uint64_t bytes = has_eload ? tok.count("an arc load") : 1;
      if (bytes > kMaxEntryBytes)
        in.fail("an arc load of " + std::to_string(bytes) + " is beyond the " + std::to_string(kMaxEntryBytes) +
                " bytes rankmap takes for one entry");
      const std::uint64_t nb = tok.count("a neighbour");
      if (++listed > arcs)
        throw Error(source, 2, "the header announced " + std::to_string(arcs) + " arcs but the vertices list more");
      if (has_label) {
        pending.push_back({static_cast<std::uint32_t>(v), nb, bytes, in.line()});
        continue;
      }
      if (nb < base || nb - base >= n)
        in.fail("neighbour " + std::to_string(nb) + " is outside " + std::to_string(base) + ".." +
                std::to_string(n - 1 + base));
      builder.add(static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(nb - base), bytes, 1);
    }
  }
  std::string_view extra;
  if (tok.next(extra)) in.fail("more data than the " + std::to_string(n) + " vertices the header announced");
  if (listed != arcs)
    throw Error(
        source, 2,
        "the header announced " + std::to_string(arcs) + " arcs but the vertices list " + std::to_string(listed));
  for (const Arc& a : pending) {
    auto it = index_of_label.find(a.neighbour);
    if (it == index_of_label.end())
      throw Error(source, a.line, "neighbour label " + std::to_string(a.neighbour) + " is not a vertex label");
    builder.add(a.src, it->second, a.bytes, 1);
  }
  return builder.build();
}

}  // namespace rankmap::detail
