// rankmap plot: pictures of a graph and a mapping, PNG, SVG or PDF by the
// output's extension (plot_matrix.cpp, plot_links.cpp, plot_bytes.cpp draw
// them). --json writes where everything was drawn, for other tools and
// the tests; SVG keeps its text as text and a <title> on every cell, link
// and bar.
#include <cmath>
#include <cstdio>

#include "commands.hpp"
#include "plot_parts.hpp"
#include "rankmap/baseline.hpp"
#include "rankmap/io.hpp"
#include "standard_output.hpp"

namespace rankmap::cli {

std::string human(double value, const std::string& unit, int figures) {
  const char* prefixes[] = {"", "K", "M", "G", "T", "P"};
  int u = 0;
  while (std::fabs(value) >= 1000 && u < 5) value /= 1000, ++u;
  char s[48];
  const bool whole = u == 0 && value == std::floor(value);
  // Decimals: 1 under 10 (2 figures), or as many as `figures` need.
  int decimals = !whole && std::fabs(value) < 10 ? 1 : 0;
  if (figures > 0 && !whole)
    decimals = std::max(0, figures - 1 - static_cast<int>(std::floor(std::log10(std::max(std::fabs(value), 1.0)))));
  std::snprintf(s, sizeof s, "%.*f", decimals, value);
  std::string text = s;
  if (unit.empty()) return text + (u ? std::string(" ") + prefixes[u] : "");
  return text + " " + prefixes[u] + unit;
}

const std::string& host_name(const PlotInput& in, int node) {
  return in.machine.nodes[static_cast<std::size_t>(in.allocation.nodes[static_cast<std::size_t>(node)])].host;
}

namespace {

struct PlotOptions {
  std::string graph, mapping, format, output, json, what = "matrix", weight = "bytes";
  bool quiet = false;
  MachineOptions machine;
};

int run_plot(const PlotOptions& given) {
  StandardOutput standard;  // "-": the picture as SVG, text for a pipe
  PlotOptions o = given;
  o.machine.quiet = o.quiet;
  o.output = standard.path_for(given.output, "picture.svg", "output");
  o.json = standard.path_for(given.json, "layout.json", "json");
  const std::string format = picture_format(o.output);  // refuses a bad extension before any work
  const LoadedGraph g = load_graph(o.graph);
  Mapping read;
  const auto [machine, allocation] =
      o.mapping.empty() ? load(o.machine) : load_for_launch_file(o.machine, o.mapping, o.format, g.graph.ranks, read);
  check_outputs({o.output, o.json});
  const Mapping block = baseline_mapping(Baseline::block, allocation, g.graph.ranks);
  const PlotInput in{o.graph, o.mapping.empty() ? "block" : o.mapping, format, o.weight, g, machine, allocation,
                     block,   o.mapping.empty() ? nullptr : &read};
  const Picture picture = o.what == "matrix"  ? plot_matrix(in)
                          : o.what == "hops"  ? plot_hops(in)
                          : o.what == "links" ? plot_links(in)
                                              : plot_bytes(in);
  std::vector<FilePart> parts{{"", picture.canvas->finish()}};
  if (!o.json.empty())
    parts.push_back({"", picture.layout.dump(2) + "\n", o.json});  // the picture and its layout land together
  write_files_atomically(o.output, parts);
  standard.flush();
  if (!o.quiet) standard.lines() << "wrote " << printable(standard.shown(o.output)) << "\n";
  return 0;
}

}  // namespace

void add_plot(Command& app, Action& action) {
  auto o = std::make_shared<PlotOptions>();
  Command cmd = app.subcommand(
      "plot", "Draw the traffic matrix, each pair's hops, the link loads or the bytes per node (PNG, SVG, PDF)");
  cmd.option("graph", o->graph, "Communication graph (.rmp .mtx .graph .grf .csv)").required();
  o->machine.add_to(cmd);
  cmd.option("--what", o->what,
             "matrix (traffic between ranks, grouped by node), hops (each pair's hops under block and the "
             "mapping), links (every link's bytes, torus or tree) or bytes (per rank and per node)")
      .show_default()
      .check(one_of({"matrix", "hops", "links", "bytes"}));
  cmd.option("--weight", o->weight, "The matrix's cells: bytes, msgs (messages) or mean (bytes a message)")
      .show_default()
      .check(one_of({"bytes", "msgs", "mean"}));
  cmd.option("--mapping", o->mapping,
             "A launch file: group the matrix by its nodes, draw its hops and links next to block's");
  cmd.option("--mapping-format", o->format, "Its format (default: guessed from the content)");
  cmd.option("--output,-o", o->output, "Picture to write: .png, .svg or .pdf ('-': SVG to standard output)").required();
  cmd.option("--json", o->json, "Where each part was drawn, as JSON");
  cmd.flag("--quiet,-q", o->quiet, "No lines on stderr but errors");
  cmd.footer("Example: rankmap plot app.rmp -m machine.toml --mapping job.rankfile --what links -o links.svg");
  cmd.on_chosen([o, &action] { action = [o] { return run_plot(*o); }; });
}

}  // namespace rankmap::cli
