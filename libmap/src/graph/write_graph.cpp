#include <algorithm>
#include <charconv>
#include <cstdint>
#include <utility>
#include <vector>

#include "rankmap/graph.hpp"

namespace rankmap {
namespace {

// Appending with to_chars keeps writing tens of millions of edges fast.
void put(std::string& out, std::uint64_t v, char after) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
  out.push_back(after);
}

}  // namespace

std::string format_mtx(const Graph& g, const std::string& comment) {
  std::string out = "%%MatrixMarket matrix coordinate integer general\n";
  std::size_t start = 0;
  while (start < comment.size()) {
    std::size_t end = comment.find('\n', start);
    if (end == std::string::npos) end = comment.size();
    out += "% " + comment.substr(start, end - start) + "\n";
    start = end + 1;
  }
  out.reserve(out.size() + g.num_edges() * 24);
  put(out, g.ranks, ' ');
  put(out, g.ranks, ' ');
  put(out, g.num_edges(), '\n');
  for (std::uint32_t r = 0; r < g.ranks; ++r)
    for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e) {
      put(out, r + 1ULL, ' ');
      put(out, g.targets[e] + 1ULL, ' ');
      put(out, g.bytes[e], '\n');
    }
  return out;
}

std::string format_csv(const Graph& g) {
  std::string out = "# ranks=" + std::to_string(g.ranks) + "\nsrc,dst,bytes,msgs\n";
  out.reserve(out.size() + g.num_edges() * 28);
  for (std::uint32_t r = 0; r < g.ranks; ++r)
    for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e) {
      put(out, r, ',');
      put(out, g.targets[e], ',');
      put(out, g.bytes[e], ',');
      put(out, g.msgs[e], '\n');
    }
  return out;
}

std::string format_scotch(const Graph& g) {
  // The transpose gives each rank its incoming traffic; merging a row of the
  // graph with the same row of its transpose gives bytes both ways.
  std::vector<std::uint64_t> in_start(static_cast<std::size_t>(g.ranks) + 1, 0);
  for (std::uint32_t t : g.targets) ++in_start[t + 1];
  for (std::size_t r = 0; r < g.ranks; ++r) in_start[r + 1] += in_start[r];
  std::vector<std::uint32_t> in_source(g.num_edges());
  std::vector<std::uint64_t> in_bytes(g.num_edges());
  {
    std::vector<std::uint64_t> fill(in_start.begin(), in_start.end() - 1);
    for (std::uint32_t r = 0; r < g.ranks; ++r)  // rows in order: sources come out sorted
      for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e) {
        const std::uint64_t at = fill[g.targets[e]]++;
        in_source[at] = r;
        in_bytes[at] = g.bytes[e];
      }
  }
  std::string body;
  body.reserve(g.num_edges() * 20);
  std::uint64_t arcs = 0;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> row;
  for (std::uint32_t r = 0; r < g.ranks; ++r) {
    row.clear();
    std::uint64_t i = g.offsets[r], j = in_start[r];
    while (i < g.offsets[r + 1] || j < in_start[r + 1]) {
      const std::uint32_t a = i < g.offsets[r + 1] ? g.targets[i] : UINT32_MAX;
      const std::uint32_t b = j < in_start[r + 1] ? in_source[j] : UINT32_MAX;
      const std::uint32_t v = std::min(a, b);
      std::uint64_t both = 0;
      if (a == v) both += g.bytes[i++];
      if (b == v) both += in_bytes[j++];
      if (v != r && both > 0) row.emplace_back(v, both);
    }
    put(body, row.size(), row.empty() ? '\n' : ' ');
    for (std::size_t k = 0; k < row.size(); ++k) {
      put(body, row[k].second, ' ');
      put(body, row[k].first, k + 1 == row.size() ? '\n' : ' ');
    }
    arcs += row.size();
  }
  return "0\n" + std::to_string(g.ranks) + " " + std::to_string(arcs) + "\n0 010\n" + body;
}

}  // namespace rankmap
