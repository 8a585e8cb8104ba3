// rankmap convert IN -o OUT: a graph or profile into another graph format.
#include <iostream>

#include "commands.hpp"
#include "common.hpp"
#include "rankmap/error.hpp"
#include "rankmap/profile.hpp"
#include "standard_output.hpp"

namespace rankmap::cli {
namespace {

struct ConvertOptions {
  std::string input, output, traffic = "all";
};

int run_convert(const ConvertOptions& o) {
  note_input(o.input);
  Graph g;
  if (std::filesystem::path(o.input).extension() == ".rmp") {
    Profile p = read_profile(o.input);
    g = o.traffic == "p2p"    ? std::move(p.p2p)
        : o.traffic == "coll" ? std::move(p.collective)
        : o.traffic == "rma"  ? std::move(p.rma)
                              : p.total();
  } else {
    if (o.traffic != "all") throw Error("--traffic", 0, "only a profile (.rmp) keeps traffic kinds apart");
    g = read_graph(o.input);
  }
  StandardOutput standard;
  const std::string output = standard.path_for(o.output, "graph.mtx", "output");  // "-": Matrix Market
  write_graph_file(g, output, "rankmap convert " + o.input + " (" + o.traffic + " traffic)");
  // Only .csv has a column for message counts: .mtx and .grf readers count
  // one message per entry, which the gain model then sees.
  if (std::filesystem::path(output).extension() != ".csv") {
    std::size_t pairs = 0;
    for (std::size_t e = 0; e < g.num_edges(); ++e) pairs += g.msgs[e] != 1;
    if (pairs > 0)
      std::cerr << "rankmap: warning: " << printable(standard.shown(output)) << " keeps bytes only: " << pairs
                << " pair(s) sent other than one message, and read back each counts as one (the gain model "
                   "reads message counts); write .csv to keep them\n";
  }
  standard.flush();
  standard.lines() << "wrote " << printable(standard.shown(output)) << ": " << g.ranks << " ranks, " << g.num_edges()
                   << " edges, " << g.total_bytes() << " bytes\n";
  return 0;
}

}  // namespace

void add_convert(Command& app, Action& action) {
  auto o = std::make_shared<ConvertOptions>();
  Command cmd = app.subcommand("convert", "Convert a profile or graph to another graph format");
  cmd.option("input", o->input, "Profile (.rmp) or graph (.mtx .graph .grf .csv)").required();
  cmd.option("--output,-o", o->output, "Graph to write (.mtx, .csv, .grf or .graph)").required();
  cmd.option("--traffic", o->traffic, "Which traffic of a profile: all, p2p, coll or rma")
      .show_default()
      .check(one_of({"all", "p2p", "coll", "rma"}));
  cmd.on_chosen([o, &action] { action = [o] { return run_convert(*o); }; });
}

}  // namespace rankmap::cli
