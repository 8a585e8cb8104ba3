// CSV edge lists "src,dst,bytes[,msgs]", 0-based ranks. A first line that
// does not start with a digit is a header. "# ranks=N" declares ranks that
// have no traffic; otherwise the rank count is the largest rank + 1.
#include <algorithm>

#include "core/text_scanner.hpp"
#include "graph/readers.hpp"

namespace rankmap::detail {

Graph read_csv(std::string_view text, const std::string& source) {
  LineScanner in(text, source);
  struct Row {
    std::uint32_t src, dst;
    std::uint64_t bytes, msgs;
  };
  std::vector<Row> rows;
  std::uint64_t declared = 0, largest = 0;
  std::size_t declared_line = 0;
  bool first = true;
  std::string_view line;
  while (in.next(line)) {
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
    if (std::max(src, dst) >= 64 * text.size() + (1u << 20))
      in.fail("rank " + std::to_string(std::max(src, dst)) + " in a file of " + std::to_string(text.size()) +
              " bytes: at most " + std::to_string(64 * text.size() + (1u << 20)) + " ranks");
    if (declared && std::max(src, dst) >= declared)
      in.fail("rank " + std::to_string(std::max(src, dst)) +
              " is beyond the declared ranks=" + std::to_string(declared));
    const std::uint64_t bytes = parse_bytes(cells[2], in, "a byte count");
    const std::uint64_t msgs = ncells == 4 ? parse_count(cells[3], in, "a message count") : 1;
    largest = std::max({largest, src, dst});
    rows.push_back({static_cast<std::uint32_t>(src), static_cast<std::uint32_t>(dst), bytes, msgs});
  }
  if (rows.empty() && !declared) in.fail("no edges (expected lines 'src,dst,bytes[,msgs]')");
  GraphBuilder builder(static_cast<std::uint32_t>(declared ? declared : largest + 1));
  builder.reserve(rows.size());
  for (const Row& r : rows) builder.add(r.src, r.dst, r.bytes, r.msgs);
  return builder.build();
}

}  // namespace rankmap::detail
