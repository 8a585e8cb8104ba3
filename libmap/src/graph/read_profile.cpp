// The shim's .rmp profile: a header of "key value" lines, then one block per
// rank in rank order ("rank R host H wall_s W mpi_s M", then
// "p2p|coll|rma PEER BYTES MSGS" lines and, from version 2, "call ALGORITHM
// SLOT CALLS FIRST" lines each followed by its "step ROUND PEER BYTES MSGS"
// lines), then "end". A file without "end" was cut short.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>

#include "core/mapped_file.hpp"
#include "core/text_scanner.hpp"
#include "rankmap/error.hpp"
#include "rankmap/profile.hpp"

namespace rankmap {
namespace {

using detail::Fields;
using detail::LineScanner;
using detail::need;
using detail::parse_bytes;
using detail::parse_count;

constexpr int kVersion = 2;  // and version 1, which has no call records

// Calls of one group, and a call's number: a rank making a call every
// nanosecond for three days stays below 2^48.
constexpr std::uint64_t kMaxCalls = std::uint64_t{1} << 48;

double parse_seconds(std::string_view field, const LineScanner& at, const char* what) {
  double v = 0;
  auto [p, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec != std::errc() || p != field.data() + field.size() || !std::isfinite(v) || v < 0)
    at.fail(std::string("expected ") + what + " (a non-negative number), got '" + std::string(field) + "'");
  return v;
}

void expect_word(Fields& f, const LineScanner& at, std::string_view word) {
  if (need(f, at, word.data()) != word) at.fail("expected '" + std::string(word) + "' here");
}

// Graphs of the same ranks added up, row by row so that the builder
// stays in order.
Graph sum_of(std::initializer_list<const Graph*> graphs, std::uint32_t ranks) {
  GraphBuilder builder(ranks);
  struct Edge {
    std::uint32_t dst;
    std::uint64_t bytes, msgs;
  };
  std::vector<Edge> row;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    row.clear();
    for (const Graph* g : graphs)
      for (std::uint64_t e = g->offsets[r]; e < g->offsets[r + 1]; ++e)
        row.push_back({g->targets[e], g->bytes[e], g->msgs[e]});
    std::sort(row.begin(), row.end(), [](const Edge& a, const Edge& b) { return a.dst < b.dst; });
    for (const Edge& e : row) builder.add(r, e.dst, e.bytes, e.msgs);
  }
  return builder.build();
}

// A rank block's "calls_complete 0", "call ALGORITHM SLOT CALLS FIRST" or
// "step ROUND PEER BYTES MSGS" (of the rank's last call line).
void read_call_line(std::string_view kind, Fields& f, const LineScanner& in, std::uint32_t rank, std::uint32_t ranks,
                    Profile& p) {
  if (kind == "calls_complete") {
    const std::uint64_t complete = parse_count(need(f, in, "0 or 1"), in, "0 or 1");
    if (complete > 1) in.fail("expected 'calls_complete 0' or 'calls_complete 1', got " + std::to_string(complete));
    if (complete == 0) p.calls_complete = false;
  } else if (kind == "call") {
    CollectiveCalls c;
    c.rank = rank;
    const std::string_view name = need(f, in, "an algorithm name");
    if (name.size() > 64 || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string_view::npos)
      in.fail("expected an algorithm name (up to 64 of a-z, 0-9 and _)");
    c.algorithm = std::string(name);
    const std::uint64_t slot = parse_count(need(f, in, "a communicator slot"), in, "a communicator slot");
    if (slot > kMaxRanks) in.fail("communicator slot " + std::to_string(slot) + " is out of range");
    c.slot = static_cast<std::uint32_t>(slot);
    c.calls = parse_count(need(f, in, "a call count"), in, "a call count");
    c.first = parse_count(need(f, in, "the first call's number"), in, "the first call's number");
    if (c.calls == 0 || c.calls > kMaxCalls)
      in.fail("expected a call count from 1 to 2^48, got " + std::to_string(c.calls));
    if (c.first > kMaxCalls) in.fail("expected a first call's number of at most 2^48, got " + std::to_string(c.first));
    p.calls.push_back(std::move(c));
  } else {
    if (p.calls.empty() || p.calls.back().rank != rank) in.fail("a 'step' line must follow its rank's 'call' line");
    CollectiveCalls::Send s;
    const std::uint64_t round = parse_count(need(f, in, "a round"), in, "a round");
    if (round > kMaxRanks) in.fail("round " + std::to_string(round) + " is out of range");
    const std::uint64_t peer = parse_count(need(f, in, "a peer rank"), in, "a peer rank");
    if (peer >= ranks) in.fail("peer rank " + std::to_string(peer) + " is outside 0.." + std::to_string(ranks - 1));
    s.round = static_cast<std::uint32_t>(round), s.peer = static_cast<std::uint32_t>(peer);
    s.bytes = parse_bytes(need(f, in, "a byte count"), in, "a byte count");
    s.msgs = parse_count(need(f, in, "a message count"), in, "a message count");
    p.calls.back().sends.push_back(s);
  }
  if (!f.empty())
    in.fail("expected 'call ALGORITHM SLOT CALLS FIRST' or 'step ROUND PEER BYTES MSGS', found more fields");
}

// A rank's step lines, added up per peer, are its coll lines
// (profile-format.md): else the graph and the rounds the gain model
// replays would disagree. Checked when the calls are complete.
// `rank_lines`: each rank's "rank" line.
void check_steps_add_up(const Profile& p, const std::vector<std::size_t>& rank_lines, const std::string& source) {
  struct Sum {
    std::uint32_t peer;
    std::uint64_t bytes, msgs;
  };
  std::vector<Sum> steps, coll;
  std::size_t next_call = 0;
  const Graph& g = p.collective;
  for (std::uint32_t r = 0; r < g.ranks; ++r) {
    steps.clear(), coll.clear();
    for (; next_call < p.calls.size() && p.calls[next_call].rank == r; ++next_call)
      for (const CollectiveCalls::Send& s : p.calls[next_call].sends) steps.push_back({s.peer, s.bytes, s.msgs});
    std::sort(steps.begin(), steps.end(), [](const Sum& a, const Sum& b) { return a.peer < b.peer; });
    std::size_t kept = 0;
    for (const Sum& s : steps) {
      if (kept > 0 && steps[kept - 1].peer == s.peer) {
        Sum& to = steps[kept - 1];
        if (__builtin_add_overflow(to.bytes, s.bytes, &to.bytes) || __builtin_add_overflow(to.msgs, s.msgs, &to.msgs))
          throw Error(
              source, rank_lines[r],
              "rank " + std::to_string(r) + "'s steps to rank " + std::to_string(s.peer) + " add up past 2^64 - 1");
      } else {
        steps[kept++] = s;
      }
    }
    steps.resize(kept);
    std::erase_if(steps, [](const Sum& s) { return s.bytes == 0 && s.msgs == 0; });
    for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e)
      if (g.bytes[e] || g.msgs[e]) coll.push_back({g.targets[e], g.bytes[e], g.msgs[e]});
    for (std::size_t i = 0; i < std::max(steps.size(), coll.size()); ++i) {
      const Sum none{0, 0, 0};
      const Sum& s = i < steps.size() ? steps[i] : none;
      const Sum& c = i < coll.size() ? coll[i] : none;
      if (s.peer == c.peer && s.bytes == c.bytes && s.msgs == c.msgs) continue;
      // The first peer where they differ, with what each side says of it.
      const std::uint32_t peer = i >= steps.size() ? c.peer : i >= coll.size() ? s.peer : std::min(s.peer, c.peer);
      auto said = [&](const std::vector<Sum>& v) {
        for (const Sum& x : v)
          if (x.peer == peer) return std::to_string(x.bytes) + " bytes in " + std::to_string(x.msgs) + " messages";
        return std::string("nothing");
      };
      throw Error(source, rank_lines[r],
                  "rank " + std::to_string(r) + "'s step lines send rank " + std::to_string(peer) + " " + said(steps) +
                      ", its coll lines " + said(coll) + " (the coll lines are the steps added up)");
    }
  }
}

}  // namespace

Graph Profile::total() const { return sum_of({&p2p, &collective, &rma}, p2p.ranks); }

Graph Profile::exchanges() const { return sum_of({&p2p, &rma}, p2p.ranks); }

Profile parse_profile(std::string_view text, const std::string& source) {
  LineScanner in(text, source);
  std::string_view line;
  int format = 0;
  if (!in.next(line)) in.fail("expected 'rankmap-profile 1', found an empty file");
  {
    Fields f(line);
    if (need(f, in, "'rankmap-profile VERSION'") != "rankmap-profile")
      in.fail("expected 'rankmap-profile VERSION' (a profile written by the rankmap shim)");
    const std::uint64_t version = parse_count(need(f, in, "a format version"), in, "a format version");
    if (version < 1 || version > kVersion)
      in.fail("profile format version " + std::to_string(version) +
              " is not supported (this rankmap reads versions 1 to " + std::to_string(kVersion) + ")");
    format = static_cast<int>(version);
  }
  Profile p;
  p.calls_complete = format >= 2;
  std::uint64_t ranks = 0;
  bool have_ranks = false;
  // Header lines until the first rank block.
  while (true) {
    if (!in.next(line)) in.fail("truncated: expected 'rank 0 ...' after the header, found the end of the file");
    if (detail::is_blank(line)) continue;
    Fields f(line);
    const std::string_view key = need(f, in, "a header key");
    if (key == "rank") break;
    std::string_view value;
    if (key == "mpi_library") {
      const std::size_t at = line.find_first_not_of(" \t", line.find(key) + key.size());
      p.mpi_library = at == std::string_view::npos ? "" : std::string(line.substr(at));
      continue;
    }
    value = need(f, in, "a value after the key");
    if (key == "mpi_version")
      p.mpi_version = std::string(value);
    else if (key == "ranks")
      ranks = parse_count(value, in, "the number of ranks"), have_ranks = true;
    else if (key == "wall_s")
      p.wall_seconds = parse_seconds(value, in, "wall_s");
    else if (key == "p_mpi")
      p.p_mpi = parse_seconds(value, in, "p_mpi");
    else if (key == "incomplete_ranks")
      p.incomplete_ranks = static_cast<int>(parse_count(value, in, "incomplete_ranks"));
    else
      in.fail("unknown header key '" + std::string(key) +
              "' (expected mpi_library, mpi_version, ranks, wall_s, p_mpi, incomplete_ranks or 'rank')");
    if (!f.empty()) in.fail("expected one value after '" + std::string(key) + "'");
  }
  if (!have_ranks || ranks == 0 || ranks > kMaxRanks)
    in.fail("expected a 'ranks N' line (1 <= N <= " + std::to_string(kMaxRanks) + ") before the first rank");
  // Every rank has a line of 20 bytes or more ("rank R host H wall_s ..."):
  // checked before the builders are sized.
  if (ranks > text.size() / 20)
    in.fail("'ranks " + std::to_string(ranks) + "' in a file of " + std::to_string(text.size()) +
            " bytes, too small to list them");
  if (p.p_mpi > 1) in.fail("p_mpi must be between 0 and 1");
  const auto n = static_cast<std::uint32_t>(ranks);
  GraphBuilder kinds[3] = {GraphBuilder(n), GraphBuilder(n), GraphBuilder(n)};
  std::uint32_t current = 0;
  std::vector<std::size_t> rank_lines;
  bool ended = false;
  // `line` holds a "rank" line here.
  while (true) {
    {
      Fields f(line);
      expect_word(f, in, "rank");
      const std::uint64_t r = parse_count(need(f, in, "a rank"), in, "a rank");
      if (r != p.ranks.size())
        in.fail("expected 'rank " + std::to_string(p.ranks.size()) + "' (ranks in order), got rank " +
                std::to_string(r));
      if (r >= n)
        in.fail("rank " + std::to_string(r) + " is outside 0.." + std::to_string(n - 1) + " (the header's ranks)");
      ProfiledRank info;
      expect_word(f, in, "host");
      info.host = std::string(need(f, in, "a host name"));
      expect_word(f, in, "wall_s");
      info.wall_seconds = parse_seconds(need(f, in, "wall_s"), in, "wall_s");
      expect_word(f, in, "mpi_s");
      info.mpi_seconds = parse_seconds(need(f, in, "mpi_s"), in, "mpi_s");
      if (!f.empty()) in.fail("expected 'rank R host H wall_s W mpi_s M', found more fields");
      p.ranks.push_back(std::move(info));
      rank_lines.push_back(in.line());
      current = static_cast<std::uint32_t>(r);
    }
    bool next_rank = false;
    while (in.next(line)) {
      if (detail::is_blank(line)) continue;
      Fields f(line);
      const std::string_view kind = need(f, in, "'p2p', 'coll', 'rma', 'rank' or 'end'");
      if (kind == "rank") {
        next_rank = true;
        break;
      }
      if (kind == "end") {
        if (!f.empty()) in.fail("expected nothing after 'end'");
        ended = true;
        break;
      }
      if (format >= 2 && (kind == "call" || kind == "step" || kind == "calls_complete")) {
        read_call_line(kind, f, in, current, n, p);
        continue;
      }
      const int k = kind == "p2p" ? 0 : kind == "coll" ? 1 : kind == "rma" ? 2 : -1;
      if (k < 0)
        in.fail(std::string("expected 'p2p', 'coll', 'rma', ") + (format >= 2 ? "'call', 'step', " : "") +
                "'rank' or 'end', got '" + std::string(kind) + "'");
      const std::uint64_t peer = parse_count(need(f, in, "a peer rank"), in, "a peer rank");
      if (peer >= n) in.fail("peer rank " + std::to_string(peer) + " is outside 0.." + std::to_string(n - 1));
      const std::uint64_t bytes = parse_bytes(need(f, in, "a byte count"), in, "a byte count");
      const std::uint64_t msgs = parse_count(need(f, in, "a message count"), in, "a message count");
      if (!f.empty()) in.fail("expected 'KIND PEER BYTES MSGS', found more fields");
      kinds[k].add(current, static_cast<std::uint32_t>(peer), bytes, msgs);
    }
    if (ended || !next_rank) break;
  }
  if (!ended) in.fail("truncated: the profile ends without 'end' (the job did not finish writing it)");
  if (p.ranks.size() != n)
    in.fail("the header announces " + std::to_string(n) + " ranks, the profile has " + std::to_string(p.ranks.size()));
  while (in.next(line))
    if (!detail::is_blank(line)) in.fail("expected nothing after 'end'");
  p.p2p = kinds[0].build();
  p.collective = kinds[1].build();
  p.rma = kinds[2].build();
  if (p.calls_complete && !p.calls.empty()) check_steps_add_up(p, rank_lines, source);
  return p;
}

Profile read_profile(const std::filesystem::path& path) {
  const detail::MappedFile file(path);
  return parse_profile(file.text(), path.string());
}

}  // namespace rankmap
