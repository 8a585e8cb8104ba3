// METIS graph files: header "n m [fmt [ncon]]", then one line per vertex
// (an empty line is a vertex without neighbours). fmt digits: vertex sizes,
// vertex weights, edge weights. An edge weight is the bytes sent from the
// line's vertex to that neighbour; unweighted edges carry 1 byte.
#include <optional>

#include "core/text_scanner.hpp"
#include "graph/readers.hpp"
#include "graph/row_pieces.hpp"

namespace rankmap::detail {
namespace {

struct Format {
  std::uint64_t n, m;
  std::uint64_t skip;  // vertex size and weights before the neighbours
  bool has_ewgt;
};

// Vertex `vertex`'s line: its neighbours (1-based) and their weights, each
// handed to add(neighbour, bytes).
template <class Add>
void parse_vertex_line(std::string_view line, const LineScanner& in, const Format& f, Add&& add) {
  Fields fields(line);
  for (std::uint64_t k = 0; k < f.skip; ++k)
    parse_count(need(fields, in, "a vertex size or weight"), in, "a vertex size or weight");
  std::string_view nb;
  while (fields.next(nb)) {
    const std::uint64_t j = parse_count(nb, in, "a neighbour number");
    if (j < 1 || j > f.n)
      in.fail("neighbour " + std::to_string(j) + " is outside 1.." + std::to_string(f.n) +
              " (the header's vertex count)");
    const std::uint64_t w =
        f.has_ewgt ? parse_bytes(need(fields, in, "an edge weight after the neighbour"), in, "an edge weight") : 1;
    add(static_cast<std::uint32_t>(j - 1), w);
  }
}

// A large file, its neighbour lists in any order: read in pieces, a
// thread each (row_pieces.hpp). Empty when a piece is not what that path
// reads; the caller then reads the file on one thread, which also names
// any error in it.
std::optional<Graph> read_vertices_in_pieces(const LineScanner& in, const Format& f, std::size_t piece_bytes) {
  const std::uint64_t per_edge = f.has_ewgt ? 2 : 1;
  const std::vector<Piece> pieces = counted_pieces(in, piece_bytes, [&](Piece& p) {
    LineScanner lines(p.text, in.source());
    std::string_view line;
    while (lines.next(line)) {
      if (!line.empty() && line[0] == '%') continue;
      ++p.items;
      const std::uint64_t fields = count_fields(line);
      p.edges += fields > f.skip ? (fields - f.skip) / per_edge : 0;
    }
    p.lines = lines.line();
  });
  if (pieces.empty() || total_items(pieces) < f.n || total_edges(pieces) != 2 * f.m) return std::nullopt;
  return graph_from_pieces(static_cast<std::uint32_t>(f.n), 2 * f.m, pieces, [&](const Piece& piece, auto& fill) {
    LineScanner lines(piece.text, in.source(), piece.first_line);
    std::string_view line;
    std::uint64_t vertex = piece.first_item;
    bool ordered = true;
    while (ordered && lines.next(line)) {
      if (!line.empty() && line[0] == '%') continue;
      if (vertex >= f.n) {
        if (is_blank(line)) continue;
        lines.fail("more vertex lines than the " + std::to_string(f.n) + " the header announced");
      }
      parse_vertex_line(line, lines, f, [&](std::uint32_t j, std::uint64_t w) {
        ordered = ordered && fill.add(static_cast<std::uint32_t>(vertex), j, w);
      });
      ++vertex;
    }
    return ordered;
  });
}

}  // namespace

Graph read_metis(std::string_view text, const std::string& source, std::size_t piece_bytes) {
  LineScanner in(text, source);
  std::string_view line;
  do {
    if (!in.next(line)) in.fail("expected the header 'vertices edges [fmt [ncon]]', found an empty file");
  } while (is_blank(line) || line[0] == '%');
  Fields header(line);
  const std::uint64_t n = parse_count(need(header, in, "the number of vertices"), in, "the number of vertices");
  const std::uint64_t m = parse_count(need(header, in, "the number of edges"), in, "the number of edges");
  std::string_view fmt = "000", token;
  std::uint64_t ncon = 1;
  if (header.next(token)) {
    if (token.size() > 3 || token.find_first_not_of("01") != std::string_view::npos)
      in.fail("expected fmt of up to three 0/1 digits (sizes, vertex weights, edge weights), got '" +
              std::string(token) + "'");
    fmt = token;
    if (header.next(token)) ncon = parse_count(token, in, "ncon");
  }
  if (!header.empty()) in.fail("expected 'vertices edges [fmt [ncon]]' on the header, found more");
  if (n == 0 || n > kMaxRanks)
    in.fail("expected 1 to " + std::to_string(kMaxRanks) + " vertices, got " + std::to_string(n));
  // Checked against the file before anything is reserved: a vertex has a
  // line of its own (1 byte or more), an edge two neighbour numbers.
  if (n > text.size() || m > text.size() / 2)
    in.fail("the header announces " + std::to_string(n) + " vertices and " + std::to_string(m) +
            " edges, more than a file of " + std::to_string(text.size()) + " bytes holds");
  const std::string digits = std::string(3 - fmt.size(), '0') + std::string(fmt);
  const bool has_size = digits[0] == '1', has_vwgt = digits[1] == '1', has_ewgt = digits[2] == '1';
  const std::uint64_t skip = (has_size ? 1 : 0) + (has_vwgt ? ncon : 0);

  const Format format{n, m, skip, has_ewgt};
  if (std::optional<Graph> g = read_vertices_in_pieces(in, format, piece_bytes)) return std::move(*g);
  GraphBuilder builder(static_cast<std::uint32_t>(n));
  builder.reserve(2 * m);
  std::uint64_t vertex = 0, arcs = 0;
  while (in.next(line)) {
    if (!line.empty() && line[0] == '%') continue;
    if (vertex == n) {
      if (is_blank(line)) continue;
      in.fail("more vertex lines than the " + std::to_string(n) + " the header announced");
    }
    parse_vertex_line(line, in, format, [&](std::uint32_t j, std::uint64_t w) {
      builder.add(static_cast<std::uint32_t>(vertex), j, w, 1);
      ++arcs;
    });
    ++vertex;
  }
  if (vertex < n)
    in.fail("truncated: the header announced " + std::to_string(n) + " vertex lines, the file has " +
            std::to_string(vertex));
  if (arcs != 2 * m)
    in.fail("the header announced " + std::to_string(m) + " edges (" + std::to_string(2 * m) +
            " neighbour entries) but the vertex lines list " + std::to_string(arcs));
  return builder.build();
}

}  // namespace rankmap::detail
