// Large .mtx, .graph, .grf and .csv files are read in pieces, a thread each
// (graph/row_pieces.hpp). The reference is the same reader on one thread
// (a piece size no body reaches): the same graph, and the same first
// error, for any number of pieces, whatever the order of the lines and of
// each vertex's neighbours.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/workers.hpp"
#include "graph/readers.hpp"
#include "graph/row_pieces.hpp"
#include "rankmap/generate.hpp"
#include "rankmap/graph.hpp"

using namespace rankmap;

namespace {

using Reader = Graph (*)(std::string_view, const std::string&, std::size_t);
constexpr std::size_t kOneThread = SIZE_MAX;

void expect_same_graph(const Graph& a, const Graph& b, const std::string& what) {
  EXPECT_EQ(a.ranks, b.ranks) << what;
  EXPECT_EQ(a.offsets, b.offsets) << what;
  EXPECT_EQ(a.targets, b.targets) << what;
  EXPECT_EQ(a.bytes, b.bytes) << what;
  EXPECT_EQ(a.msgs, b.msgs) << what;
}

// The error the reader gives, or "" when it reads the text.
std::string error_of(Reader read, const std::string& text, std::size_t piece_bytes) {
  try {
    read(text, "t", piece_bytes);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// Line `n` (1-based) of text replaced by `line`.
std::string with_line(const std::string& text, std::size_t n, const std::string& line) {
  std::size_t begin = 0;
  for (std::size_t i = 1; i < n; ++i) begin = text.find('\n', begin) + 1;
  return text.substr(0, begin) + line + text.substr(text.find('\n', begin));
}

// Line `n` (1-based) of text.
std::string line_at(const std::string& text, std::size_t n) {
  std::size_t begin = 0;
  for (std::size_t i = 1; i < n; ++i) begin = text.find('\n', begin) + 1;
  return text.substr(begin, text.find('\n', begin) - begin);
}

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

struct Format {
  const char* name;
  Reader read;
  std::string text;
};

std::vector<Format> formats() {
  // Renumbered: rows of many lengths, and bytes that differ by edge.
  const Graph g = renumber_ranks(make_irregular({300, 8, 100, 2}), 5);
  return {{"mtx", detail::read_mtx, format_mtx(g, "a comment")},
          {"graph", detail::read_metis, format_metis(g)},
          {"grf", detail::read_scotch, format_scotch(g)},
          {"csv", detail::read_csv, format_csv(g)}};
}

// The text's lines, put in another order by reorder(lines, first), which
// leaves the lines before `first` (0-based) where they are.
template <class Reorder>
std::string reordered_lines(const std::string& text, std::size_t first, Reorder&& reorder) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  reorder(lines, first);
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

// The text with its lines from `first` (0-based) on in a seeded random
// order (.mtx, .csv: the edges).
std::string shuffled_lines(const std::string& text, std::size_t first) {
  return reordered_lines(text, first, [](std::vector<std::string>& lines, std::size_t from) {
    std::shuffle(lines.begin() + static_cast<std::ptrdiff_t>(from), lines.end(), std::mt19937(11));
  });
}

// The text with each line's (neighbour, weight) pairs after its first
// `skip` fields, from line `first` on, put in another order by
// reorder(pairs) (.graph and .grf with edge weights: the neighbour lists).
template <class Reorder>
std::string reordered_neighbours(const std::string& text, std::size_t first, std::size_t skip, Reorder&& reorder) {
  std::istringstream in(text);
  std::string out;
  std::size_t n = 0;
  for (std::string line; std::getline(in, line); ++n) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string t; fields >> t;) f.push_back(t);
    if (n < first || f.size() <= skip + 2) {
      out += line + "\n";
      continue;
    }
    std::vector<std::pair<std::string, std::string>> pairs;
    for (std::size_t k = skip; k + 1 < f.size(); k += 2) pairs.emplace_back(f[k], f[k + 1]);
    reorder(pairs);
    for (std::size_t k = 0; k < skip; ++k) out += f[k] + " ";
    for (const auto& [a, b] : pairs) out += a + " " + b + " ";
    out.back() = '\n';
  }
  return out;
}

// The neighbour lists in a seeded random order.
std::string shuffled_neighbours(const std::string& text, std::size_t first, std::size_t skip) {
  std::mt19937 random(11);
  return reordered_neighbours(text, first, skip,
                              [&](auto& pairs) { std::shuffle(pairs.begin(), pairs.end(), random); });
}

// Each format's text with its edges in another order: lines shuffled for
// .mtx (after the banner, comment and size line) and .csv (after the
// declaration and header), neighbours for .graph (after its header) and
// .grf (after its three header lines; a vertex line starts with its
// degree).
std::string disordered(const Format& f) {
  const std::string name = f.name;
  if (name == "mtx") return shuffled_lines(f.text, 3);
  if (name == "csv") return shuffled_lines(f.text, 2);
  if (name == "graph") return shuffled_neighbours(f.text, 1, 0);
  return shuffled_neighbours(f.text, 3, 1);
}

}  // namespace

TEST(ReadPieces, SameGraphForAnyNumberOfPieces) {
  for (const Format& f : formats()) {
    const Graph one = f.read(f.text, "t", kOneThread);
    ASSERT_GT(one.num_edges(), 1000u) << f.name;
    for (int threads : {2, 3, 8}) {
      const detail::ThreadsScope scope(threads);
      expect_same_graph(f.read(f.text, "t", 1), one, std::string(f.name) + " " + std::to_string(threads));
    }
  }
}

// Two bad lines, one in each half: every reading names the first, the
// file sorted or in another order.
TEST(ReadPieces, FirstErrorOfTheFileForAnyNumberOfPieces) {
  for (const Format& f : formats())
    for (const std::string& text : {f.text, disordered(f)}) {
      const std::size_t lines = count_lines(text);
      const std::string bad = with_line(with_line(text, lines * 3 / 4, "1 x 7"), lines - 3, "99999999 1 1");
      const std::string first = error_of(f.read, bad, kOneThread);
      ASSERT_NE(first.find(":" + std::to_string(lines * 3 / 4) + ":"), std::string::npos) << first;
      for (int threads : {2, 3, 8}) {
        const detail::ThreadsScope scope(threads);
        EXPECT_EQ(error_of(f.read, bad, 1), first) << f.name << " " << threads;
      }
    }
}

// Comments inside the body keep the line numbers; a line out of order, or
// a repeat, is still read in pieces, whose rows are then sorted and their
// repeats added up: the same graph as the reference's.
TEST(ReadPieces, CommentsAndDisorderGiveTheReferenceGraph) {
  const Format mtx = formats()[0];
  const std::size_t lines = count_lines(mtx.text);
  const std::size_t late = lines - 5;
  const std::string late_line = line_at(mtx.text, lines);  // the last entry
  const std::string middle = line_at(mtx.text, lines / 2);
  for (const std::string& text : {with_line(mtx.text, lines / 2, "% a comment inside\n\n" + middle),
                                  with_line(mtx.text, late, late_line),          // repeated, out of order
                                  with_line(mtx.text, lines / 3, late_line)}) {  // out of order early
    const Graph one = mtx.read(text, "t", kOneThread);
    const detail::ThreadsScope scope(3);
    expect_same_graph(mtx.read(text, "t", 1), one, "mtx");
    const std::string bad = with_line(text, lines - 1, "1 2 -4");
    EXPECT_EQ(error_of(mtx.read, bad, 1), error_of(mtx.read, bad, kOneThread));
  }
}

// A .grf file whose vertex runs over two lines is read token by token, as
// Scotch reads it.
TEST(ReadPieces, ScotchVertexOverTwoLinesGivesTheReferenceGraph) {
  const Format grf = formats()[2];
  const std::size_t n = count_lines(grf.text) / 2;
  const std::string line = line_at(grf.text, n);
  const std::size_t cut = line.find(' ', line.find(' ') + 1);  // after the degree and one field
  const std::string split = with_line(grf.text, n, line.substr(0, cut) + "\n" + line.substr(cut + 1));
  const detail::ThreadsScope scope(3);
  expect_same_graph(grf.read(split, "t", 1), grf.read(grf.text, "t", kOneThread), "grf");
}

// A .graph file's vertex lines: blank ones after the last vertex are
// allowed, one more vertex is not, and one fewer is a truncated file.
TEST(ReadPieces, VertexLinesCountedAsOnOneThread) {
  const Format graph = formats()[1];
  const detail::ThreadsScope scope(3);
  const std::string trailing = graph.text + "\n\n";
  expect_same_graph(graph.read(trailing, "t", 1), graph.read(trailing, "t", kOneThread), "blank lines");
  const std::string extra = graph.text + "1 1\n";
  EXPECT_NE(error_of(graph.read, extra, 1), "");
  EXPECT_EQ(error_of(graph.read, extra, 1), error_of(graph.read, extra, kOneThread));
  const std::string truncated = graph.text.substr(0, graph.text.rfind('\n', graph.text.size() - 2) + 1);
  EXPECT_NE(error_of(graph.read, truncated, 1), "");
  EXPECT_EQ(error_of(graph.read, truncated, 1), error_of(graph.read, truncated, kOneThread));
}

// A .csv file is read in pieces from its first data line when a
// "# ranks=" line above declares the ranks (format_csv writes one); a
// second declaration among the data, or none at all, is read on one thread,
// which names the error or finds the largest rank.
TEST(ReadPieces, CsvDeclarationsAsOnOneThread) {
  const Format csv = formats()[3];
  ASSERT_EQ(csv.text.rfind("# ranks=", 0), 0u);
  const std::size_t lines = count_lines(csv.text);
  const std::string second = with_line(csv.text, lines / 2, "# ranks=300\n" + line_at(csv.text, lines / 2));
  const std::string undeclared = csv.text.substr(csv.text.find('\n') + 1);
  const detail::ThreadsScope scope(3);
  const std::string error = error_of(csv.read, second, 1);
  EXPECT_NE(error.find("a second 'ranks=' line"), std::string::npos) << error;
  EXPECT_EQ(error, error_of(csv.read, second, kOneThread));
  expect_same_graph(csv.read(undeclared, "t", 1), csv.read(csv.text, "t", kOneThread), "undeclared");
  const std::string comment = with_line(csv.text, lines / 2, "# a comment\n\n" + line_at(csv.text, lines / 2));
  expect_same_graph(csv.read(comment, "t", 1), csv.read(csv.text, "t", kOneThread), "comment");
}

// Shuffled lines (.mtx, .csv) and shuffled neighbour lists (.graph, .grf),
// as other tools write them: the same graph as the reference, and as the
// sorted file's, for any number of pieces.
TEST(ReadPieces, AnyOrderGivesTheSortedGraph) {
  for (const Format& f : formats()) {
    const std::string text = disordered(f);
    ASSERT_NE(text, f.text) << f.name;
    const Graph sorted = f.read(f.text, "t", kOneThread);
    expect_same_graph(f.read(text, "t", kOneThread), sorted, std::string(f.name) + " one thread");
    for (int threads : {2, 3, 8}) {
      const detail::ThreadsScope scope(threads);
      expect_same_graph(f.read(text, "t", 1), sorted, std::string(f.name) + " " + std::to_string(threads));
    }
  }
}

// Two pieces of three edges each (sender, receiver, bytes), read through
// graph_from_pieces itself (not the one-thread reader behind it); `calls`
// counts the pieces' readings.
namespace {
std::optional<Graph> graph_of_pieces(const std::vector<std::vector<std::array<std::uint64_t, 3>>>& edges, int& calls) {
  std::vector<detail::Piece> pieces(2);
  for (std::size_t i = 0; i < 2; ++i) {
    pieces[i].edges = 3;
    pieces[i].first_edge = 3 * i;
    pieces[i].first_item = i;  // which list the reader takes
  }
  const detail::ThreadsScope scope(2);
  return detail::graph_from_pieces(3, 6, pieces, [&](const detail::Piece& p, auto& sink) {
    ++calls;
    for (const auto& e : edges[p.first_item])
      if (!sink.add(static_cast<std::uint32_t>(e[0]), static_cast<std::uint32_t>(e[1]), e[2])) return false;
    return true;
  });
}
}  // namespace

// Senders out of order, repeats: rows sorted by receiver with the repeats
// added up, worked out here edge by edge. Piece 0: 2->0 (5), 0->1 (1),
// 2->0 (7); piece 1: 0->2 (3), 1->0 (2), 0->1 (4).
TEST(ReadPieces, RowsFromShuffledPiecesByHand) {
  int calls = 0;
  const std::optional<Graph> g =
      graph_of_pieces({{{2, 0, 5}, {0, 1, 1}, {2, 0, 7}}, {{0, 2, 3}, {1, 0, 2}, {0, 1, 4}}}, calls);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(calls, 6);  // in order (stopped), counted, placed
  // Row 0: 1 (1 + 4, 2 messages), 2 (3); row 1: 0 (2); row 2: 0 (5 + 7, 2 messages).
  EXPECT_EQ(g->offsets, (std::vector<std::uint64_t>{0, 2, 3, 4}));
  EXPECT_EQ(g->targets, (std::vector<std::uint32_t>{1, 2, 0, 0}));
  EXPECT_EQ(g->bytes, (std::vector<std::uint64_t>{5, 3, 2, 12}));
  EXPECT_EQ(g->msgs, (std::vector<std::uint64_t>{2, 1, 1, 2}));
}

// Message counts with senders out of order (counted, then placed): each
// edge's count goes to its place with its bytes, edges of one message and
// of several alike. Piece 0: 2->0 (5 bytes, 3 messages), 0->1 (1, 1);
// piece 1: 1->0 (2, 4), 0->2 (3, 1).
TEST(ReadPieces, MessageCountsInAnyOrderByHand) {
  const std::vector<std::vector<std::array<std::uint64_t, 4>>> edges = {{{2, 0, 5, 3}, {0, 1, 1, 1}},
                                                                        {{1, 0, 2, 4}, {0, 2, 3, 1}}};
  std::vector<detail::Piece> pieces(2);
  for (std::size_t i = 0; i < 2; ++i) {
    pieces[i].edges = 2;
    pieces[i].first_edge = 2 * i;
    pieces[i].first_item = i;
  }
  const detail::ThreadsScope scope(2);
  const std::optional<Graph> g = detail::graph_from_pieces(3, 4, pieces, [&](const detail::Piece& p, auto& sink) {
    for (const auto& e : edges[p.first_item])
      if (!sink.add(static_cast<std::uint32_t>(e[0]), static_cast<std::uint32_t>(e[1]), e[2], e[3])) return false;
    return true;
  });
  ASSERT_TRUE(g.has_value());
  // Row 0: 1 (1 byte, 1 message), 2 (3, 1); row 1: 0 (2, 4); row 2: 0 (5, 3).
  EXPECT_EQ(g->offsets, (std::vector<std::uint64_t>{0, 2, 3, 4}));
  EXPECT_EQ(g->targets, (std::vector<std::uint32_t>{1, 2, 0, 0}));
  EXPECT_EQ(g->bytes, (std::vector<std::uint64_t>{1, 3, 2, 5}));
  EXPECT_EQ(g->msgs, (std::vector<std::uint64_t>{1, 1, 4, 3}));
}

// Senders in order, a row's receivers not (the first pass's own sort):
// piece 0: 0->2 (3), 0->1 (1), 0->2 (4); piece 1: 1->0 (2), 2->1 (5), 2->0 (6).
TEST(ReadPieces, RowsSortedAfterTheFirstPassByHand) {
  int calls = 0;
  const std::optional<Graph> g =
      graph_of_pieces({{{0, 2, 3}, {0, 1, 1}, {0, 2, 4}}, {{1, 0, 2}, {2, 1, 5}, {2, 0, 6}}}, calls);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(calls, 2);  // one pass: the senders came in order
  // Row 0: 1 (1), 2 (3 + 4, 2 messages); row 1: 0 (2); row 2: 0 (6), 1 (5).
  EXPECT_EQ(g->offsets, (std::vector<std::uint64_t>{0, 2, 3, 5}));
  EXPECT_EQ(g->targets, (std::vector<std::uint32_t>{1, 2, 0, 0, 1}));
  EXPECT_EQ(g->bytes, (std::vector<std::uint64_t>{1, 7, 2, 6, 5}));
  EXPECT_EQ(g->msgs, (std::vector<std::uint64_t>{1, 2, 1, 1, 1}));
}

// Repeats that add up past 2^64 - 1 are refused in pieces as on one thread:
// 65,536 entries of 2^48 bytes from rank 1 to rank 2, shuffled among
// others.
TEST(ReadPieces, AnyOrderRepeatsPastTheLimitAsOnOneThread) {
  std::string text = "%%MatrixMarket matrix coordinate integer general\n3 3 65538\n";
  text += "3 1 5\n";
  for (int k = 0; k < 65536; ++k) text += "1 2 281474976710656\n";
  text += "2 1 5\n";
  const std::string error = error_of(detail::read_mtx, text, kOneThread);
  EXPECT_EQ(error, "the bytes from rank 0 to rank 1 add up past 2^64 - 1");
  const detail::ThreadsScope scope(3);
  EXPECT_EQ(error_of(detail::read_mtx, text, 1), error);
}

// A row both pieces write, its receivers out of order across them:
// piece 0: 0->2 (3), 1->2 (5), 1->0 (2); piece 1: 1->1 (4), 2->1 (7),
// 2->0 (6). Each piece sorts its part of row 1 ([0, 2] and [1]); the two
// parts lie end to end and are sorted together after, in the same pass.
TEST(ReadPieces, RowAcrossPiecesSortedInOnePassByHand) {
  int calls = 0;
  const std::optional<Graph> g =
      graph_of_pieces({{{0, 2, 3}, {1, 2, 5}, {1, 0, 2}}, {{1, 1, 4}, {2, 1, 7}, {2, 0, 6}}}, calls);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(calls, 2);  // the senders came in order: no second reading
  // Row 0: 2 (3); row 1: 0 (2), 1 (4), 2 (5); row 2: 0 (6), 1 (7).
  EXPECT_EQ(g->offsets, (std::vector<std::uint64_t>{0, 1, 4, 6}));
  EXPECT_EQ(g->targets, (std::vector<std::uint32_t>{2, 0, 1, 2, 0, 1}));
  EXPECT_EQ(g->bytes, (std::vector<std::uint64_t>{3, 2, 4, 5, 6, 7}));
  EXPECT_EQ(g->msgs, (std::vector<std::uint64_t>(6, 1)));
}

// sort_row against std::stable_sort of (receiver, bytes, messages) by
// receiver, on rows short enough for its insertion sort and too long for
// it, with and without repeats.
TEST(ReadPieces, SortRowIsAStableSortByReceiver) {
  std::mt19937 random(5);
  for (const std::size_t n : {1, 2, 5, 32, 33, 40, 300})
    for (const std::uint32_t receivers : {3u, 1000000u}) {
      Graph g;
      g.ranks = 1;
      g.offsets = {0, 4 + n};  // four edges before the row, which stay
      std::vector<std::array<std::uint64_t, 3>> want;
      for (std::size_t i = 0; i < 4 + n; ++i) {
        const std::array<std::uint64_t, 3> e{random() % receivers, i, 1000 + i};
        g.targets.push_back(static_cast<std::uint32_t>(e[0]));
        g.bytes.push_back(e[1]);
        g.msgs.push_back(e[2]);
        want.push_back(e);
      }
      std::stable_sort(want.begin() + 4, want.end(), [](const auto& a, const auto& b) { return a[0] < b[0]; });
      bool repeats = false;
      for (std::size_t i = 5; i < want.size(); ++i) repeats = repeats || want[i][0] == want[i - 1][0];
      detail::RowScratch scratch;
      EXPECT_EQ(detail::sort_row(g, 4, 4 + n, scratch), repeats) << n << " " << receivers;
      for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(g.targets[i], want[i][0]) << n << " " << receivers << " at " << i;
        EXPECT_EQ(g.bytes[i], want[i][1]) << n << " " << receivers << " at " << i;
        EXPECT_EQ(g.msgs[i], want[i][2]) << n << " " << receivers << " at " << i;
      }
    }
}

// Every row's receivers in descending order, the senders in order, and
// long rows (a vertex of 300 neighbours): each piece sorts its rows as it
// reads them, rows split between pieces are sorted after, and the graph is
// the sorted file's, in every format, for any number of pieces.
TEST(ReadPieces, RowsInDescendingOrderGiveTheSortedGraph) {
  // Symmetric, no loops, the same load both ways: every format writes it
  // as it is (format_scotch, format_metis).
  GraphBuilder b(400);
  auto add = [&](std::uint32_t r, std::uint32_t s) {
    if (r == s) return;
    b.add(r, s, 10 + std::min(r, s) + 7 * std::max(r, s), 1);
    b.add(s, r, 10 + std::min(r, s) + 7 * std::max(r, s), 1);
  };
  for (std::uint32_t s = 0; s < 400; s += 4) add(7, s + 1);  // 100 neighbours, and 1 more from each
  for (std::uint32_t r = 0; r < 400; ++r)
    for (std::uint32_t k = 1; k <= 2 + r % 5; ++k) add(r, (r + k * 37) % 400);
  Graph g = b.build();
  std::fill(g.msgs.begin(), g.msgs.end(), 1);  // as each format reads back a pair added twice
  ASSERT_GT(g.offsets[8] - g.offsets[7], 100u);
  auto descending = [](const std::string& text, std::size_t first) {  // .mtx, .csv: each row's lines reversed
    return reordered_lines(text, first, [](std::vector<std::string>& lines, std::size_t from) {
      auto sender = [](const std::string& l) { return std::stoul(l); };
      std::size_t begin = from;
      for (std::size_t i = from + 1; i <= lines.size(); ++i)
        if (i == lines.size() || sender(lines[i]) != sender(lines[begin])) {
          std::reverse(lines.begin() + static_cast<std::ptrdiff_t>(begin),
                       lines.begin() + static_cast<std::ptrdiff_t>(i));
          begin = i;
        }
    });
  };
  auto reversed_pairs = [](const std::string& text, std::size_t first, std::size_t skip) {  // .graph, .grf
    return reordered_neighbours(text, first, skip, [](auto& pairs) { std::reverse(pairs.begin(), pairs.end()); });
  };
  const std::vector<Format> all = {{"mtx", detail::read_mtx, descending(format_mtx(g, "a comment"), 3)},
                                   {"graph", detail::read_metis, reversed_pairs(format_metis(g), 1, 0)},
                                   {"grf", detail::read_scotch, reversed_pairs(format_scotch(g), 3, 1)},
                                   {"csv", detail::read_csv, descending(format_csv(g), 2)}};
  for (const Format& f : all) {
    const Graph one = f.read(f.text, "t", kOneThread);
    expect_same_graph(one, g, std::string(f.name) + " one thread");
    for (int threads : {2, 3, 8}) {
      const detail::ThreadsScope scope(threads);
      expect_same_graph(f.read(f.text, "t", 1), one, std::string(f.name) + " " + std::to_string(threads));
    }
  }
}

// An edge line's sender read alone: a plain number up to its separator,
// else nothing (the reader then reads the whole line).
TEST(ReadPieces, FirstCountReadsAPlainSenderOnly) {
  std::uint64_t v = 0;
  EXPECT_TRUE(detail::first_count("12 3 4", ' ', v) && v == 12);
  EXPECT_TRUE(detail::first_count("  7\t1 1", ' ', v) && v == 7);
  EXPECT_TRUE(detail::first_count("12,3,4", ',', v) && v == 12);
  EXPECT_TRUE(detail::first_count(" 9 ,3,4", ',', v) && v == 9);
  for (const char* line : {"5", "5x 1 1", "+5 1 1", "-5 1 1", " ", "", "12345678901234567890 1 1"})
    EXPECT_FALSE(detail::first_count(line, ' ', v)) << line;
  for (const char* line : {"12 3,4", "12;3;4", "12", ",3,4", "1e3,1,1"})
    EXPECT_FALSE(detail::first_count(line, ',', v)) << line;
}

// A CSV line's numbers read in one sweep: how many, or 0 for any line
// the field-by-field reader must read (to its numbers or its error).
TEST(ReadPieces, SeparatedCountsReadsPlainLinesOnly) {
  std::uint64_t n[4] = {};
  EXPECT_EQ(detail::scan_separated_counts("12,3,4", ',', n, 4), 3);
  EXPECT_EQ(std::vector<std::uint64_t>(n, n + 3), (std::vector<std::uint64_t>{12, 3, 4}));
  EXPECT_EQ(detail::scan_separated_counts(" 7 ,\t0, 007 ,9 ", ',', n, 4), 4);
  EXPECT_EQ(std::vector<std::uint64_t>(n, n + 4), (std::vector<std::uint64_t>{7, 0, 7, 9}));
  EXPECT_EQ(detail::scan_separated_counts("1,2,9999999999999999999", ',', n, 4), 3);
  EXPECT_EQ(n[2], 9'999'999'999'999'999'999u);
  for (const char* line : {"1,2,3,4,5", "1,,2,3", ",1,2,3", "1,2,3,", "1,2,-3", "1,+2,3", "1 2,3", "1;2;3", "1,2,3x",
                           "1,2,12345678901234567890", "1,2,3.5", ""})
    EXPECT_EQ(detail::scan_separated_counts(line, ',', n, 4), 0) << line;
}

// Two pieces' counts of two rows become each piece's first place in each
// row, worked out here: piece 0 has 2 edges of row 0 and 1 of row 1,
// piece 1 has 1 and 1. Places that stop where the next piece's begin (the
// last piece's at the row's end) are as counted; one more edge in a row
// is not.
TEST(ReadPieces, PlacesFromCountsByHand) {
  Graph g = detail::graph_with_room(2, 5);
  std::vector<std::uint32_t> counts{2, 1, 1, 1};
  detail::rows_from_counts(g, counts, 2);
  EXPECT_EQ(g.offsets, (std::vector<std::uint64_t>{0, 3, 5}));
  EXPECT_EQ(counts, (std::vector<std::uint32_t>{0, 3, 2, 4}));
  EXPECT_TRUE(detail::rows_placed_as_counted(g, counts, {2, 4, 3, 5}, 2));
  EXPECT_FALSE(detail::rows_placed_as_counted(g, counts, {3, 4, 3, 5}, 2));  // piece 0 ran into piece 1's place
  EXPECT_FALSE(detail::rows_placed_as_counted(g, counts, {2, 4, 3, 4}, 2));  // piece 1 left a place empty
}
