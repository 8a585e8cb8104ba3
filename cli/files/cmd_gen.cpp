// rankmap gen stencil --dims 16x8x8: synthetic communication graphs.
#include <charconv>
#include <iostream>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "common.hpp"
#include "rankmap/error.hpp"
#include "rankmap/generate.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/io.hpp"
#include "standard_output.hpp"

namespace rankmap::cli {
namespace {

struct GenOptions {
  std::string dims, grid, output;
  int points = 0;
  bool periodic = false;
  std::uint64_t bytes = 1024, col_bytes = 0, seed = 1;
  std::uint32_t ranks = 64, cells_per_rank = 64;
  double degree = 10;
  std::uint64_t peak_bytes = std::uint64_t{1} << 20;  // geometric: bytes at distance 0
  std::optional<std::uint64_t> renumber;              // seed of a random renumbering of the ranks
  bool quiet = false;
};

void write_graph(Graph g, const GenOptions& o, std::string description, Progress& progress) {
  progress.done("generated");
  if (o.renumber) {
    g = renumber_ranks(g, *o.renumber);
    description += " --renumber " + std::to_string(*o.renumber);
  }
  StandardOutput standard;
  const std::string output = standard.path_for(o.output, "graph.mtx", "output");  // "-": Matrix Market
  write_graph_file(g, output, "rankmap gen " + description);
  standard.flush();
  progress.done("wrote " + standard.shown(output));
  standard.lines() << "wrote " << printable(standard.shown(output)) << ": " << g.ranks << " ranks, " << g.num_edges()
                   << " edges\n";
}

int run_stencil(const GenOptions& o) {
  Progress progress(o.quiet);
  StencilSpec spec;
  spec.dims = parse_dims(o.dims, "--dims");
  spec.periodic = o.periodic;
  spec.bytes = o.bytes;
  const int nd = static_cast<int>(spec.dims.size());
  int full = 1;
  for (int d = 0; d < nd; ++d) full *= 3;
  const int faces = 2 * nd + 1;
  if (o.points == 0 || o.points == faces)
    spec.full = false;
  else if (o.points == full)
    spec.full = true;
  else
    throw Error("--points", 0,
                "a " + std::to_string(nd) + "D stencil has " + std::to_string(faces) + " or " + std::to_string(full) +
                    " points, not " + std::to_string(o.points));
  write_graph(make_stencil(spec), o,
              "stencil --dims " + o.dims + " --points " + std::to_string(spec.full ? full : faces) +
                  (o.periodic ? " --periodic" : "") + " --bytes " + std::to_string(o.bytes),
              progress);
  return 0;
}

int run_irregular(const GenOptions& o) {
  Progress progress(o.quiet);
  write_graph(make_irregular({o.ranks, o.cells_per_rank, o.bytes, o.seed}), o,
              "irregular --ranks " + std::to_string(o.ranks) + " --cells-per-rank " + std::to_string(o.cells_per_rank) +
                  " --bytes " + std::to_string(o.bytes) + " --seed " + std::to_string(o.seed),
              progress);
  return 0;
}

int run_geometric(const GenOptions& o) {
  Progress progress(o.quiet);
  std::ostringstream degree;
  degree << o.degree;
  write_graph(make_geometric({o.ranks, o.degree, o.peak_bytes, o.seed}), o,
              "geometric --ranks " + std::to_string(o.ranks) + " --degree " + degree.str() + " --bytes " +
                  std::to_string(o.peak_bytes) + " --seed " + std::to_string(o.seed),
              progress);
  return 0;
}

int run_alltoall(const GenOptions& o) {
  Progress progress(o.quiet);
  const std::vector<int> grid = parse_dims(o.grid, "--grid");
  if (grid.size() != 2) throw Error("--grid", 0, "expected ROWSxCOLS, e.g. 16x32");
  write_graph(make_row_alltoall({grid[0], grid[1], o.bytes, o.col_bytes}), o,
              "alltoall --grid " + o.grid + " --bytes " + std::to_string(o.bytes) + " --col-bytes " +
                  std::to_string(o.col_bytes),
              progress);
  return 0;
}

}  // namespace

void add_gen(Command& app, Action& action) {
  Command gen = app.subcommand("gen", "Generate synthetic communication graphs (.mtx, .csv, .grf or .graph)");
  gen.require_subcommand();
  auto o = std::make_shared<GenOptions>();
  auto output = [&](Command& cmd) {
    cmd.option("--output,-o", o->output, "Graph file to write (.mtx, .csv, .grf or .graph)").required();
    cmd.flag("--quiet,-q", o->quiet, "No progress lines on stderr");
    cmd.option("--renumber", o->renumber,
               "Renumber the ranks by a random permutation of this seed (same traffic, no order to lean on)");
  };

  Command stencil = gen.subcommand("stencil", "A structured-grid halo exchange, ranks X fastest");
  stencil.option("--dims", o->dims, "Ranks along each axis, e.g. 16x8x8").required();
  stencil.option("--points", o->points, "Stencil points: 2d+1 (faces, the default) or 3^d (with edges and corners)");
  stencil.flag("--periodic", o->periodic, "Neighbours wrap around the grid");
  stencil.option("--bytes", o->bytes, "Bytes sent to each neighbour (one message)").show_default();
  output(stencil);
  stencil.on_chosen([o, &action] { action = [o] { return run_stencil(*o); }; });

  Command irregular = gen.subcommand("irregular", "A random 3D mesh cut into ranks by METIS (the quotient graph)");
  irregular.option("--ranks", o->ranks, "Ranks").show_default().check(whole_number_from(2, 1 << 24, "ranks"));
  irregular.option("--cells-per-rank", o->cells_per_rank, "Mesh cells per rank")
      .show_default()
      .check(whole_number_from(1, 1 << 16, "cells"));
  irregular.option("--bytes", o->bytes, "Bytes per shared mesh edge").show_default();
  irregular.option("--seed", o->seed, "Seed of the random mesh").show_default();
  output(irregular);
  irregular.on_chosen([o, &action] { action = [o] { return run_irregular(*o); }; });

  Command geometric =
      gen.subcommand("geometric", "Ranks at random points in a cube, near ones exchanging more (particle codes)");
  geometric.option("--ranks", o->ranks, "Ranks").show_default().check(whole_number_from(2, 1 << 24, "ranks"));
  geometric.option("--degree", o->degree, "Mean neighbours a rank")
      .show_default()
      .check(number_from(0.1, 1000, "neighbours"));
  geometric.option("--bytes", o->peak_bytes, "Bytes between two ranks at the same point (falls to 0 at the radius)")
      .show_default();
  geometric.option("--seed", o->seed, "Seed of the random points").show_default();
  output(geometric);
  geometric.on_chosen([o, &action] { action = [o] { return run_geometric(*o); }; });

  Command alltoall = gen.subcommand("alltoall", "A 2D process grid with all-to-all in rows (FFT, PME)");
  alltoall.option("--grid", o->grid, "ROWSxCOLS, ranks row-major").required();
  alltoall.option("--bytes", o->bytes, "Bytes to each rank of the same row").show_default();
  alltoall.option("--col-bytes", o->col_bytes, "Bytes to each rank of the same column").show_default();
  output(alltoall);
  alltoall.on_chosen([o, &action] { action = [o] { return run_alltoall(*o); }; });
}

}  // namespace rankmap::cli
