#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "helpers.hpp"
#include "rankmap/graph.hpp"

using namespace rankmap;
using test::expect_error;

namespace {

// (src, dst) -> (bytes, msgs), for comparing with hand-listed traffic.
using Edges = std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::uint64_t, std::uint64_t>>;
Edges edges_of(const Graph& g) {
  Edges out;
  for (std::uint32_t r = 0; r < g.ranks; ++r)
    for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e) out[{r, g.targets[e]}] = {g.bytes[e], g.msgs[e]};
  return out;
}

}  // namespace

TEST(ReadMtx, GeneralWithDuplicatesAndSelf) {
  test::TempDir dir;
  const auto f = dir.write("g.mtx",
                           "%%MatrixMarket matrix coordinate integer general\n% a comment\n3 3 4\n"
                           "1 2 100\n2 1 50\n1 2 20\n3 3 9\n");
  const Graph g = read_graph(f);
  EXPECT_EQ(g.ranks, 3u);
  EXPECT_EQ(edges_of(g), (Edges{{{0, 1}, {120, 2}}, {{1, 0}, {50, 1}}, {{2, 2}, {9, 1}}}));
  EXPECT_EQ(g.total_bytes(), 179u);
}

TEST(ReadMtx, SymmetricRealAndPattern) {
  test::TempDir dir;
  const Graph s =
      read_graph(dir.write("s.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1.5e3\n3 3 4\n"));
  EXPECT_EQ(edges_of(s), (Edges{{{1, 0}, {1500, 1}}, {{0, 1}, {1500, 1}}, {{2, 2}, {4, 1}}}));
  const Graph p = read_graph(dir.write("p.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n"));
  EXPECT_EQ(edges_of(p), (Edges{{{0, 1}, {1, 1}}}));
}

TEST(ReadMtx, Errors) {
  test::TempDir dir;
  const std::string h = "%%MatrixMarket matrix coordinate integer general\n";
  auto read = [&](const std::string& text) { return [&dir, text] { read_graph(dir.write("e.mtx", text)); }; };
  expect_error(read("1 2 3\n"), 1, "expected the header '%%MatrixMarket");
  expect_error(read(h + "3 3 3\n1 2 5\n2 3 5\n"), 4, "truncated: the size line announced 3 entries, the file has 2");
  expect_error(read(h + "3 3 1\n1 4 5\n"), 3, "rank 4 is outside 1..3");
  expect_error(read(h + "3 3 1\n0 2 5\n"), 3, "rank 0 is outside 1..3");
  expect_error(read(h + "3 3 1\n1 2 -5\n"), 3, "expected a byte count (non-negative), got '-5'");
  expect_error(read(h + "3 3 1\n1 2 lots\n"), 3, "expected a byte count (a whole number), got 'lots'");
  expect_error(read(h + "3 3 1\n1 2\n"), 3, "expected a byte count, found the end of the line");
  expect_error(read(h + "3 3 1\n1 2 5\n2 1 5\n"), 4, "more entries than the 1");
  expect_error(read(h + "3 2 1\n1 2 5\n"), 2, "expected a square matrix");
  expect_error(read(h), 1, "expected the size line");
  expect_error(read("%%MatrixMarket matrix array real general\n"), 1, "expected a 'matrix coordinate' file");
  expect_error(read("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 -0.5\n"), 3, "non-negative");
}

TEST(ReadMetis, WeightedUnweightedAndEmptyVertexLines) {
  test::TempDir dir;
  // Vertex 3 has no neighbours: its line is empty.
  const Graph w = read_graph(dir.write("w.graph", "% comment\n3 1 001\n2 40\n1 60\n\n"));
  EXPECT_EQ(w.ranks, 3u);
  EXPECT_EQ(edges_of(w), (Edges{{{0, 1}, {40, 1}}, {{1, 0}, {60, 1}}}));
  const Graph u = read_graph(dir.write("u.graph", "3 2\n2 3\n1\n1\n"));
  EXPECT_EQ(edges_of(u), (Edges{{{0, 1}, {1, 1}}, {{0, 2}, {1, 1}}, {{1, 0}, {1, 1}}, {{2, 0}, {1, 1}}}));
  // Vertex weights (fmt 011, ncon 2) are skipped.
  const Graph v = read_graph(dir.write("v.graph", "2 1 011 2\n5 6 2 7\n1 1 1 7\n"));
  EXPECT_EQ(edges_of(v), (Edges{{{0, 1}, {7, 1}}, {{1, 0}, {7, 1}}}));
}

TEST(ReadMetis, Errors) {
  test::TempDir dir;
  auto read = [&](const std::string& text) { return [&dir, text] { read_graph(dir.write("e.graph", text)); }; };
  expect_error(read("3 1\n2\n1\n"), 3, "truncated: the header announced 3 vertex lines, the file has 2");
  expect_error(read("2 1\n3\n1\n"), 2, "neighbour 3 is outside 1..2");
  expect_error(read("2 1 001\n2 -4\n1 4\n"), 2, "non-negative");
  expect_error(read("2 1 001\n2\n1 4\n"), 2, "an edge weight after the neighbour");
  expect_error(read("2 2\n2\n1\n"), 3, "announced 2 edges (4 neighbour entries) but the vertex lines list 2");
  expect_error(read("2 1\n2\n1\n2\n"), 4, "more vertex lines than the 2");
  expect_error(read("2 1 x\n"), 1, "expected fmt");
}

TEST(ReadScotch, LoadsBaseAndLabels) {
  test::TempDir dir;
  // Base 1, edge loads and vertex loads (flag 011): vertex 1 sends 30 to 2.
  const Graph g = read_graph(dir.write("g.grf", "0\n2 2\n1 011\n5 1 30 2\n5 1 10 1\n"));
  EXPECT_EQ(edges_of(g), (Edges{{{0, 1}, {30, 1}}, {{1, 0}, {10, 1}}}));
  // Labels (flag 100): neighbours are named by label.
  const Graph l = read_graph(dir.write("l.grf", "0\n2 2\n0 100\n17 1 4\n4 1 17\n"));
  EXPECT_EQ(edges_of(l), (Edges{{{0, 1}, {1, 1}}, {{1, 0}, {1, 1}}}));
}

TEST(ReadScotch, Errors) {
  test::TempDir dir;
  auto read = [&](const std::string& text) { return [&dir, text] { read_graph(dir.write("e.grf", text)); }; };
  expect_error(read("0\n2 2\n0 000\n1 1\n"), 4, "truncated: expected a vertex degree");
  expect_error(read("0\n2 2\n0 000\n1 2\n1 0\n"), 4, "neighbour 2 is outside 0..1");
  expect_error(read("0\n2 2\n0 010\n1 -3 1\n1 3 0\n"), 4, "non-negative");
  expect_error(read("0\n2 4\n0 000\n1 1\n1 0\n"), 2, "announced 4 arcs but the vertices list 2");
  expect_error(read("1\n"), 1, "version 0");
}

TEST(ReadCsv, HeaderMessagesAndDeclaredRanks) {
  test::TempDir dir;
  const Graph g = read_graph(dir.write("g.csv", "src,dst,bytes,msgs\n0,1,100,4\n1,0,80\n0,1,1,1\n"));
  EXPECT_EQ(g.ranks, 2u);
  EXPECT_EQ(edges_of(g), (Edges{{{0, 1}, {101, 5}}, {{1, 0}, {80, 1}}}));
  const Graph d = read_graph(dir.write("d.csv", "# ranks=5\n0, 1, 7\n"));
  EXPECT_EQ(d.ranks, 5u);
}

// Lines read in one sweep and lines read field by field give the numbers
// worked out here (runs of commas count as one, blanks around a number
// are dropped; a first line not starting with a digit is a header), and
// the field-by-field reader's own errors.
TEST(ReadCsv, PlainAndUnusualLinesReadAlike) {
  test::TempDir dir;
  const Graph g = read_graph(dir.write("g.csv", "# ranks=4\n3,3,9\n 1 ,\t2, 007 ,3 \n1,,2,5\n,3,0,6,2\n2,1,1,\n"));
  EXPECT_EQ(g.ranks, 4u);
  EXPECT_EQ(edges_of(g), (Edges{{{1, 2}, {12, 4}}, {{2, 1}, {1, 1}}, {{3, 0}, {6, 2}}, {{3, 3}, {9, 1}}}));
  auto read = [&](const std::string& text) { return [&dir, text] { read_graph(dir.write("e.csv", text)); }; };
  expect_error(read("# ranks=4\n0,4,1\n"), 2, "beyond the declared ranks=4");
  expect_error(read("0,1,281474976710657\n"), 1, "beyond the 281474976710656 bytes");
  expect_error(read("0,2147483647,1\n"), 1, "out of range");
}

TEST(ReadCsv, Errors) {
  test::TempDir dir;
  auto read = [&](const std::string& text) { return [&dir, text] { read_graph(dir.write("e.csv", text)); }; };
  expect_error(read("src,dst,bytes\n0,1,-3\n"), 2, "expected a byte count (non-negative), got '-3'");
  expect_error(read("0,1\n"), 1, "found 2 fields");
  expect_error(read("0,x,3\n"), 1, "expected a receiver rank");
  expect_error(read("# ranks=2\n0,2,3\n"), 2, "beyond the declared ranks=2");
  expect_error(read("0,1,2,3,4\n"), 1, "more than four fields");
}

TEST(ReadGraph, UnknownExtensionAndMissingFile) {
  test::TempDir dir;
  expect_error([&] { read_graph(dir.write("g.txt", "")); }, 0, "unknown graph format '.txt'");
  expect_error([&] { read_graph(dir.path() / "none.mtx"); }, 0, "cannot open");
}

TEST(WriteGraph, MtxAndCsvReadBack) {
  test::TempDir dir;
  GraphBuilder b(4);
  b.add(0, 3, 5, 1);
  b.add(3, 0, 6, 1);
  b.add(2, 2, 1, 1);
  const Graph g = b.build();
  std::ofstream(dir.path() / "g.mtx") << format_mtx(g, "two lines\nof comment");
  std::ofstream(dir.path() / "g.csv") << format_csv(g);
  EXPECT_EQ(edges_of(read_graph(dir.path() / "g.mtx")), edges_of(g));
  const Graph c = read_graph(dir.path() / "g.csv");
  EXPECT_EQ(c.ranks, 4u);
  EXPECT_EQ(edges_of(c), edges_of(g));
}

// The builder's in-order fast path and its sorting path give the same graph,
// whatever order the edges come in; duplicates add up either way.
TEST(GraphBuilder, OrderDoesNotMatter) {
  struct E {
    std::uint32_t s, d;
    std::uint64_t b, m;
  };
  std::vector<E> edges;
  for (std::uint32_t s = 0; s < 50; ++s)
    for (std::uint32_t d : {s, (s * 7 + 3) % 50, (s * 7 + 3) % 50, (s + 1) % 50})
      edges.push_back({s, d, s + 10ULL * d, 1});
  auto build = [](const std::vector<E>& list) {
    GraphBuilder b(60);  // ranks 50..59 have no traffic
    for (const E& e : list) b.add(e.s, e.d, e.b, e.m);
    return b.build();
  };
  std::vector<E> in_order = edges;
  std::sort(in_order.begin(), in_order.end(),
            [](const E& x, const E& y) { return std::tie(x.s, x.d) < std::tie(y.s, y.d); });
  const Graph a = build(in_order);
  std::vector<E> shuffled = edges;
  std::reverse(shuffled.begin(), shuffled.end());
  std::swap(shuffled[3], shuffled[150]);
  const Graph b = build(shuffled);
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_EQ(a.targets, b.targets);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.msgs, b.msgs);
  EXPECT_EQ(a.offsets.back(), a.num_edges());
  EXPECT_EQ(a.offsets[50], a.num_edges());
  // Rank 7 sends to itself, to 7*7+3 = 52 mod 50 = 2 (twice: 2 messages), and to 8.
  const Edges e = edges_of(a);
  EXPECT_EQ(e.at({7, 2}), (std::pair<std::uint64_t, std::uint64_t>{2 * (7 + 20), 2}));
  EXPECT_EQ(e.at({7, 7}).first, 77u);
  // 50 ranks x 3 distinct targets, less 2: 7s+3 = s+1 (mod 50) for s = 8 and 33.
  EXPECT_EQ(a.num_edges(), 148u);
  GraphBuilder empty(3);
  const Graph z = empty.build();
  EXPECT_EQ(z.offsets, (std::vector<std::uint64_t>{0, 0, 0, 0}));
}

// Reserving room for millions of edges starts a thread that faults the
// room's pages in while add() fills it (core/background_fault.hpp). The
// graph must come out the same, also when an edge out of order makes the
// builder drop that room half-way through.
TEST(GraphBuilder, LargeReservedRoomFillsCorrectly) {
  constexpr std::uint32_t kRanks = 1u << 20;
  constexpr std::uint32_t kPerRank = 8;  // 8M edges: 160 MB of room, above the thread's threshold
  constexpr std::uint32_t kBlock = kRanks / kPerRank;
  for (const bool disorder : {false, true}) {
    GraphBuilder b(kRanks);
    b.reserve(std::size_t{kRanks} * kPerRank);
    for (std::uint32_t r = 0; r < kRanks; ++r)
      for (std::uint32_t k = 0; k < kPerRank; ++k) b.add(r, k * kBlock + r / kPerRank, r % 7 + k, 1);  // ascending in k
    if (disorder) b.add(5, 1, 100, 1);  // rank 5's row again: out of order
    const Graph g = b.build();
    // Sums by formula: sum over r of 8*(r%7) plus sum over k of k for each rank.
    std::uint64_t sevens = 0;
    for (std::uint32_t r = 0; r < kRanks; ++r) sevens += r % 7;
    const std::uint64_t expected =
        kPerRank * sevens + std::uint64_t{kRanks} * (kPerRank * (kPerRank - 1) / 2) + (disorder ? 100 : 0);
    EXPECT_EQ(g.total_bytes(), expected);
    EXPECT_EQ(g.total_msgs(), std::uint64_t{kRanks} * kPerRank + (disorder ? 1 : 0));
    // The last rank sends to k * kBlock + kBlock - 1 with k + 3 bytes (2^20 - 1 = 3 mod 7).
    const std::uint64_t last = g.offsets[kRanks - 1];
    ASSERT_EQ(g.offsets[kRanks] - last, kPerRank);
    for (std::uint32_t k = 0; k < kPerRank; ++k) {
      EXPECT_EQ(g.targets[last + k], k * kBlock + kBlock - 1) << k;
      EXPECT_EQ(g.bytes[last + k], k + 3u) << k;
    }
    EXPECT_EQ(g.offsets[6] - g.offsets[5], disorder ? kPerRank + 1 : kPerRank);
  }
}

// Scotch wants symmetric loads: when the directions of a pair differ, each
// edge carries the bytes of both, loops are dropped, and the file reads
// back as that graph.
TEST(WriteGraph, ScotchIsSymmetrised) {
  test::TempDir dir;
  GraphBuilder b(4);
  b.add(0, 1, 5, 1);
  b.add(1, 0, 7, 1);
  b.add(2, 0, 3, 1);  // one way only
  b.add(3, 3, 9, 1);  // a loop
  b.add(1, 3, 0, 4);  // messages without bytes
  const std::string text = format_scotch(b.build());
  EXPECT_EQ(text, "0\n4 4\n0 010\n2 12 1 3 2\n1 12 0\n1 3 0\n0\n");
  std::ofstream(dir.path() / "g.grf") << text;
  EXPECT_EQ(edges_of(read_graph(dir.path() / "g.grf")),
            (Edges{{{0, 1}, {12, 1}}, {{0, 2}, {3, 1}}, {{1, 0}, {12, 1}}, {{2, 0}, {3, 1}}}));
}

// Symmetric traffic (equal bytes both ways) is already what Scotch and
// METIS want: each arc keeps its own bytes and the file reads back as the
// same graph, loops and zero-byte pairs aside. Worked by hand: 0-1 carry 5
// each way, 1-2 carry 3 each way, 3 sends nothing.
TEST(WriteGraph, SymmetricTrafficReadsBackTheSameAsScotchAndMetis) {
  test::TempDir dir;
  GraphBuilder b(4);
  b.add(0, 1, 5, 1);
  b.add(1, 0, 5, 1);
  b.add(1, 2, 3, 1);
  b.add(2, 1, 3, 1);
  b.add(2, 2, 9, 1);  // a loop: dropped
  const Graph g = b.build();
  const std::string grf = format_scotch(g), metis = format_metis(g);
  EXPECT_EQ(grf, "0\n4 4\n0 010\n1 5 1\n2 5 0 3 2\n1 3 1\n0\n");
  EXPECT_EQ(metis, "4 2 001\n2 5\n1 5 3 3\n2 3\n\n");
  std::ofstream(dir.path() / "g.grf") << grf;
  std::ofstream(dir.path() / "g.graph") << metis;
  const Edges expected{{{0, 1}, {5, 1}}, {{1, 0}, {5, 1}}, {{1, 2}, {3, 1}}, {{2, 1}, {3, 1}}};
  EXPECT_EQ(edges_of(read_graph(dir.path() / "g.grf")), expected);
  EXPECT_EQ(edges_of(read_graph(dir.path() / "g.graph")), expected);
}

// A pair whose directions differ gets both directions' bytes in METIS too.
TEST(WriteGraph, MetisIsSymmetrisedLikeScotch) {
  GraphBuilder b(3);
  b.add(0, 1, 5, 1);
  b.add(1, 0, 7, 1);
  b.add(2, 0, 3, 1);  // one way only
  EXPECT_EQ(format_metis(b.build()), "3 2 001\n2 12 3 3\n1 12\n1 3\n");
}
