// rankmap gen stencil --dims 16x8x8: synthetic communication graphs.
#include <charconv>
#include <iostream>

#include "commands.hpp"
#include "common.hpp"
#include "rankmap/error.hpp"
#include "rankmap/io.hpp"
#include "rankmap/stencil.hpp"

namespace rankmap::cli {
namespace {

struct GenOptions {
  std::string dims, output;
  int points = 0;
  bool periodic = false;
  std::uint64_t bytes = 1024;
  bool quiet = false;
};

std::vector<int> parse_dims(const std::string& text) {
  std::vector<int> dims;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t x = text.find('x', pos);
    if (x == std::string::npos) x = text.size();
    int v = 0;
    auto [p, ec] = std::from_chars(text.data() + pos, text.data() + x, v);
    if (ec != std::errc() || p != text.data() + x || v < 1)
      throw Error("--dims", 0, "expected sizes joined by 'x', e.g. 16x8x8, got '" + text + "'");
    dims.push_back(v);
    pos = x + 1;
  }
  return dims;
}

int run_stencil(const GenOptions& o) {
  Progress progress(o.quiet);
  StencilSpec spec;
  spec.dims = parse_dims(o.dims);
  spec.periodic = o.periodic;
  spec.bytes = o.bytes;
  const int nd = static_cast<int>(spec.dims.size());
  int full = 1;
  for (int d = 0; d < nd; ++d) full *= 3;
  const int faces = 2 * nd + 1;
  if (o.points == 0 || o.points == faces) spec.full = false;
  else if (o.points == full) spec.full = true;
  else
    throw Error("--points", 0, "a " + std::to_string(nd) + "D stencil has " + std::to_string(faces) + " or " +
                                   std::to_string(full) + " points, not " + std::to_string(o.points));
  const Graph g = make_stencil(spec);
  progress.done("generated");
  const std::string ext = std::filesystem::path(o.output).extension().string();
  std::string text;
  if (ext == ".mtx")
    text = format_mtx(g, "rankmap gen stencil --dims " + o.dims + " --points " +
                             std::to_string(spec.full ? full : faces) + (o.periodic ? " --periodic" : "") +
                             " --bytes " + std::to_string(o.bytes));
  else if (ext == ".csv")
    text = format_csv(g);
  else if (ext == ".grf")
    text = format_scotch(g);
  else
    throw Error(o.output, 0, "expected an output ending in .mtx, .csv or .grf");
  write_files_atomically({{o.output, std::move(text)}});
  progress.done("wrote " + o.output);
  std::cout << "wrote " << o.output << ": " << g.ranks << " ranks, " << g.num_edges() << " edges\n";
  return 0;
}

}  // namespace

void add_gen(CLI::App& app, Action& action) {
  CLI::App* gen = app.add_subcommand("gen", "Generate synthetic communication graphs");
  gen->require_subcommand(1);
  auto o = std::make_shared<GenOptions>();
  CLI::App* cmd = gen->add_subcommand("stencil", "A structured-grid halo exchange, ranks X fastest");
  cmd->add_option("--dims", o->dims, "Ranks along each axis, e.g. 16x8x8")->required();
  cmd->add_option("--points", o->points, "Stencil points: 2d+1 (faces, the default) or 3^d (with edges and corners)");
  cmd->add_flag("--periodic", o->periodic, "Neighbours wrap around the grid");
  cmd->add_option("--bytes", o->bytes, "Bytes sent to each neighbour (one message)")->capture_default_str();
  cmd->add_option("--output,-o", o->output, "Graph file to write (.mtx, .csv or .grf)")->required();
  cmd->add_flag("--quiet,-q", o->quiet, "No progress lines on stderr");
  cmd->callback([o, &action] { action = [o] { return run_stencil(*o); }; });
}

}  // namespace rankmap::cli
