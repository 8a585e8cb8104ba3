// The graph readers (.mtx, METIS .graph, Scotch .grf, .csv): the format is
// RANKMAP_FUZZ_FORMAT, one harness binary per format. Each input is also
// read in pieces on 3 threads, as files of 64 MiB are (graph/row_pieces.hpp,
// whose any-order path sorts what it reads): the same graph, or the same
// error, as the reader on one thread.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <variant>

#include "core/workers.hpp"
#include "fuzz_input.hpp"
#include "graph/readers.hpp"
#include "rankmap/graph.hpp"

namespace {

using Reader = rankmap::Graph (*)(std::string_view, const std::string&, std::size_t);

Reader reader() {
  const std::string format = RANKMAP_FUZZ_FORMAT;
  if (format == ".mtx") return rankmap::detail::read_mtx;
  if (format == ".graph") return rankmap::detail::read_metis;
  if (format == ".grf") return rankmap::detail::read_scotch;
  return rankmap::detail::read_csv;
}

// The graph read, or the error's text (which must keep the one-line
// promise).
template <class Read>
std::variant<rankmap::Graph, std::string> outcome(Read&& read) {
  try {
    return read();
  } catch (const rankmap::Error& e) {
    fuzz::expect_one_line(e);
    return std::string(e.what());
  }
}

bool same(const rankmap::Graph& a, const rankmap::Graph& b) {
  return a.ranks == b.ranks && a.offsets == b.offsets && a.targets == b.targets && a.bytes == b.bytes &&
         a.msgs == b.msgs;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::write_file(fuzz::text(data, size), std::string("input") + RANKMAP_FUZZ_FORMAT);
  // From the file, as rankmap reads it: on one thread, fuzz inputs being
  // far below the piece size.
  const auto one = outcome([&] { return rankmap::read_graph_as(path, RANKMAP_FUZZ_FORMAT); });
  const rankmap::detail::ThreadsScope threads(3);
  const auto pieces = outcome([&] { return reader()(fuzz::text(data, size), path.string(), 1); });
  const bool agree = one.index() == pieces.index() && (one.index() == 0 ? same(std::get<0>(one), std::get<0>(pieces))
                                                                        : std::get<1>(one) == std::get<1>(pieces));
  if (!agree) {
    std::fprintf(stderr, "fuzz: in pieces, not as on one thread: %s | %s\n",
                 one.index() ? std::get<1>(one).c_str() : "a graph",
                 pieces.index() ? std::get<1>(pieces).c_str() : "a graph");
    std::abort();
  }
  return 0;
}
