#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/workers.hpp"
#include "gen/points.hpp"
#include "graph/undirected.hpp"
#include "partition/metis.hpp"
#include "rankmap/error.hpp"
#include "rankmap/generate.hpp"
#include "rankmap/random.hpp"

namespace rankmap {
namespace {

// METIS k-way into every rank at once costs more a cell as the ranks grow
// (57 us a cell at 16,384 ranks, 90 us at 262,144, nearly all of it in
// METIS), so a 2M-rank mesh would take over an hour. Above kOneCut ranks
// the mesh is first cut into blocks of about kOneCut ranks' cells, then
// each block into its own ranks; the parts are as compact as before, and a
// graph of at most kOneCut ranks is the one it always was.
constexpr std::uint32_t kOneCut = 65536;

std::vector<int> cut_into_ranks(const detail::UndirectedGraph& mesh, const IrregularSpec& spec) {
  if (spec.ranks <= kOneCut)
    return detail::partition_metis_kway(mesh, std::vector<std::uint32_t>(spec.ranks, spec.cells_per_rank), spec.seed,
                                        1);
  const std::uint32_t blocks = (spec.ranks + kOneCut - 1) / kOneCut;
  std::vector<std::uint32_t> block_ranks(blocks, spec.ranks / blocks), block_cells(blocks);
  for (std::uint32_t b = 0; b < spec.ranks % blocks; ++b) ++block_ranks[b];
  for (std::uint32_t b = 0; b < blocks; ++b) block_cells[b] = block_ranks[b] * spec.cells_per_rank;
  const std::vector<int> block = detail::partition_metis_kway(mesh, block_cells, spec.seed, 1);
  std::vector<std::vector<std::uint32_t>> cells(blocks);
  for (std::uint32_t v = 0; v < mesh.n; ++v) cells[static_cast<std::size_t>(block[v])].push_back(v);
  // The blocks are cut a block a thread (METIS calls overlap:
  // partition/metis_threads.hpp); each writes only its own cells.
  std::vector<int> first_rank(blocks + 1, 0);
  for (std::uint32_t b = 0; b < blocks; ++b) first_rank[b + 1] = first_rank[b] + static_cast<int>(block_ranks[b]);
  std::vector<int> part(mesh.n);
  detail::InducedSubgraphs subgraphs(mesh);
  detail::run_jobs(detail::scoped_threads(), blocks, [&](std::size_t b) {
    const detail::UndirectedGraph sub = subgraphs.of(cells[b]);
    const std::vector<int> sub_part = detail::partition_metis_kway(
        sub, std::vector<std::uint32_t>(block_ranks[b], spec.cells_per_rank), spec.seed + 1 + b, 1);
    for (std::size_t i = 0; i < cells[b].size(); ++i) part[cells[b][i]] = first_rank[b] + sub_part[i];
  });
  return part;
}

}  // namespace

Graph make_irregular(const IrregularSpec& spec) {
  if (spec.ranks < 2 || spec.cells_per_rank < 1)
    throw Error(ErrorKind::argument, Parameter{"ranks"}, "expected at least 2 ranks and 1 cell per rank");
  const std::uint64_t n64 = static_cast<std::uint64_t>(spec.ranks) * spec.cells_per_rank;
  if (n64 > 50'000'000)
    throw Error(ErrorKind::argument, Parameter{"cells_per_rank"}, "too many mesh cells (at most 50 million)");
  const auto n = static_cast<std::uint32_t>(n64);
  // Points joined to those within r, about 8 neighbours a point on average.
  Rng rng(spec.seed);
  const std::vector<detail::Point> p = detail::random_points(n, rng);
  const int side = std::max(1, static_cast<int>(std::cbrt(n / 2.0)));
  detail::NearPoints near = detail::near_points(p, 1.2 / side, side);
  detail::UndirectedGraph mesh;
  mesh.n = n;
  mesh.xadj = std::move(near.xadj);
  mesh.adjncy = std::move(near.adj);
  mesh.weight.assign(mesh.adjncy.size(), 1);
  const std::vector<int> part = cut_into_ranks(mesh, spec);
  // The quotient: bytes per mesh edge between two ranks' cells.
  std::unordered_map<std::uint64_t, std::uint64_t> shared;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint64_t e = mesh.xadj[i]; e < mesh.xadj[i + 1]; ++e) {
      const int a = part[i], b = part[mesh.adjncy[e]];
      if (a != b) ++shared[static_cast<std::uint64_t>(a) << 32 | static_cast<std::uint32_t>(b)];
    }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> edges(shared.begin(), shared.end());
  std::sort(edges.begin(), edges.end());
  GraphBuilder builder(spec.ranks);
  for (const auto& [key, count] : edges)
    builder.add(static_cast<std::uint32_t>(key >> 32), static_cast<std::uint32_t>(key), count * spec.bytes, count);
  return builder.build();
}

}  // namespace rankmap
