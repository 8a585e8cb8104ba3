#include <algorithm>
#include <charconv>
#include <cstdint>
#include <utility>
#include <vector>

#include "graph/undirected.hpp"
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

namespace {

// Scotch and METIS want a symmetric graph without loops and with equal
// loads both ways. Traffic that already is so (stencils, halo exchanges)
// keeps each arc's own bytes, and the file reads back as the same graph;
// otherwise each arc carries the bytes of both directions.
detail::UndirectedGraph symmetric_loads(const Graph& g) {
  detail::UndirectedGraph u = detail::make_undirected(g);
  std::vector<std::uint64_t> own(u.weight.size());
  for (std::uint32_t r = 0; r < u.n; ++r) {
    std::uint64_t d = g.offsets[r];  // both rows ascend: one merge
    for (std::uint64_t e = u.xadj[r]; e < u.xadj[r + 1]; ++e) {
      while (d < g.offsets[r + 1] && g.targets[d] < u.adjncy[e]) ++d;
      own[e] = d < g.offsets[r + 1] && g.targets[d] == u.adjncy[e] ? g.bytes[d] : 0;
      if (u.weight[e] != 2 * own[e]) return u;
    }
  }
  u.weight = std::move(own);
  return u;
}

}  // namespace

std::string format_scotch(const Graph& g) {
  const detail::UndirectedGraph u = symmetric_loads(g);
  std::string out = "0\n" + std::to_string(u.n) + " " + std::to_string(u.adjncy.size()) + "\n0 010\n";
  out.reserve(out.size() + u.adjncy.size() * 20);
  for (std::uint32_t r = 0; r < u.n; ++r) {
    const std::uint64_t first = u.xadj[r], last = u.xadj[r + 1];
    put(out, last - first, first == last ? '\n' : ' ');
    for (std::uint64_t e = first; e < last; ++e) {
      put(out, u.weight[e], ' ');
      put(out, u.adjncy[e], e + 1 == last ? '\n' : ' ');
    }
  }
  return out;
}

std::string format_metis(const Graph& g) {
  const detail::UndirectedGraph u = symmetric_loads(g);
  std::string out = std::to_string(u.n) + " " + std::to_string(u.adjncy.size() / 2) + " 001\n";
  out.reserve(out.size() + u.adjncy.size() * 18);
  for (std::uint32_t r = 0; r < u.n; ++r) {
    const std::uint64_t first = u.xadj[r], last = u.xadj[r + 1];
    for (std::uint64_t e = first; e < last; ++e) {
      put(out, u.adjncy[e] + 1ULL, ' ');
      put(out, u.weight[e], e + 1 == last ? '\n' : ' ');
    }
    if (first == last) out.push_back('\n');  // a vertex without edges: an empty line
  }
  return out;
}

}  // namespace rankmap
