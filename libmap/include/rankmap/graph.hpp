// The communication graph: directed traffic between ranks, with 64-bit byte
// and message counts. Stored as compressed rows of outgoing edges.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace rankmap {

namespace detail {
class BackgroundFault;
}

// The most ranks a graph may have: MPI ranks are ints.
inline constexpr std::uint64_t kMaxRanks = (std::uint64_t{1} << 31) - 1;
// The most edges a graph may have (before duplicates are added up).
inline constexpr std::uint64_t kMaxEdges = 0xffffffffULL;

struct Graph {
  std::uint32_t ranks = 0;
  std::vector<std::uint64_t> offsets;  // ranks + 1; edges of r: [offsets[r], offsets[r+1])
  std::vector<std::uint32_t> targets;  // ascending within a row, no repeats
  std::vector<std::uint64_t> bytes;
  std::vector<std::uint64_t> msgs;

  std::size_t num_edges() const { return targets.size(); }
  std::uint64_t total_bytes() const;
  std::uint64_t total_msgs() const;
};

// Collects edges in any order; build() adds up duplicates. Self-traffic is
// kept (it never crosses a network, but it is the application's traffic).
// Edges that arrive sorted by (src, dst), as most files list them, go
// straight into the result; the first one out of order switches to sorting.
class GraphBuilder {
 public:
  explicit GraphBuilder(std::uint32_t ranks);
  GraphBuilder(GraphBuilder&&) noexcept;
  GraphBuilder& operator=(GraphBuilder&&) noexcept;
  ~GraphBuilder();
  // Room for this many edges. For millions of edges in order, a second
  // thread faults the room's pages in while add() fills it.
  void reserve(std::size_t edges);
  void add(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint64_t msgs);
  // Consumes the builder's memory.
  Graph build();

 private:
  struct Entry {
    std::uint32_t src, dst;
    std::uint64_t bytes, msgs;
  };
  void switch_to_unsorted();

  Graph sorted_;  // the result so far while input is in order
  std::uint32_t last_src_ = 0;
  bool in_order_ = true;
  std::vector<Entry> entries_;                         // everything, once input was out of order
  std::unique_ptr<detail::BackgroundFault> faulting_;  // of sorted_'s room, while it fills
};

// Reads a graph by its extension: .rmp (the shim's profile, all traffic
// kinds added; rankmap/profile.hpp reads the rest of it), .mtx (Matrix Market coordinate, 1-based,
// entry "i j bytes" = bytes sent by i to j; symmetric entries count both
// ways; one message per entry), .graph (METIS; an edge weight is the bytes
// sent from the line's vertex to the neighbour, 1 when unweighted), .grf
// (Scotch, likewise), .csv ("src,dst,bytes[,msgs]", 0-based, optional header
// line). Throws Error(file, line, expected...) on malformed input.
Graph read_graph(const std::filesystem::path& path);
// The same, in the format of extension `ext` whatever the file's name (a
// temporary file read back before it is renamed).
Graph read_graph_as(const std::filesystem::path& path, const std::string& ext);

}  // namespace rankmap

namespace rankmap {

// Text forms that read_graph() reads back: Matrix Market ("integer general",
// 1-based, bytes as values; `comment` lines are prefixed with '%') and CSV
// ("src,dst,bytes,msgs", with a "# ranks=N" line).
std::string format_mtx(const Graph& graph, const std::string& comment = "");
std::string format_csv(const Graph& graph);
// Scotch source graph (.grf, base 0, edge loads) and METIS graph (.graph,
// edge weights). Both want a symmetric graph without loops and with equal
// loads both ways: traffic that is so (stencils, halo exchanges) is
// written as it is and reads back as the same graph. Otherwise an edge's
// load is the bytes sent both ways (Scotch's cost, the sum of load x
// distance over edges, is then rankmap's hop-bytes), and it reads back
// with that load each way. Self-traffic and pairs without bytes are left
// out.
std::string format_scotch(const Graph& graph);
std::string format_metis(const Graph& graph);

}  // namespace rankmap
