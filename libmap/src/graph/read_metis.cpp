// METIS graph files: header "n m [fmt [ncon]]", then one line per vertex
// (an empty line is a vertex without neighbours). fmt digits: vertex sizes,
// vertex weights, edge weights. An edge weight is the bytes sent from the
// line's vertex to that neighbour; unweighted edges carry 1 byte.
#include "core/text_scanner.hpp"
#include "graph/readers.hpp"

namespace rankmap::detail {

Graph read_metis(std::string_view text, const std::string& source) {
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

  GraphBuilder builder(static_cast<std::uint32_t>(n));
  builder.reserve(2 * m);
  std::uint64_t vertex = 0, arcs = 0;
  while (in.next(line)) {
    if (!line.empty() && line[0] == '%') continue;
    if (vertex == n) {
      if (is_blank(line)) continue;
      in.fail("more vertex lines than the " + std::to_string(n) + " the header announced");
    }
    Fields f(line);
    for (std::uint64_t k = 0; k < skip; ++k)
      parse_count(need(f, in, "a vertex size or weight"), in, "a vertex size or weight");
    std::string_view nb;
    while (f.next(nb)) {
      const std::uint64_t j = parse_count(nb, in, "a neighbour number");
      if (j < 1 || j > n)
        in.fail("neighbour " + std::to_string(j) + " is outside 1.." + std::to_string(n) +
                " (the header's vertex count)");
      const std::uint64_t w =
          has_ewgt ? parse_bytes(need(f, in, "an edge weight after the neighbour"), in, "an edge weight") : 1;
      builder.add(static_cast<std::uint32_t>(vertex), static_cast<std::uint32_t>(j - 1), w, 1);
      ++arcs;
    }
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
