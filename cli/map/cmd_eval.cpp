// rankmap eval GRAPH --machine M --mapping FILE [--against WHAT]: the scores
// of an existing mapping (any launch format) next to another's: the
// launcher's block mapping by default, rr or a seeded random one, or a
// second launch file (what does my current launch file cost?).
#include <algorithm>
#include <iostream>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "rankmap/baseline.hpp"
#include "rankmap/error.hpp"
#include "rankmap/launch.hpp"
#include "report.hpp"
#include "standard_output.hpp"

namespace rankmap::cli {
namespace {

struct EvalOptions {
  std::string graph, mapping, format, json;
  std::string against = "block", against_format;
  std::uint64_t seed = 1;
  MachineOptions machine;
  std::optional<double> p_mpi;
  bool quiet = false;
};

// --against: a launcher's default by name, else a launch file.
bool is_baseline_name(const std::string& what) {
  const std::vector<std::string> names = baseline_names();
  return std::find(names.begin(), names.end(), what) != names.end();
}

int run_eval(const EvalOptions& o) {
  Progress progress(o.quiet);
  const auto [graph, profile_p_mpi, p2p_traffic, collective_traffic, calls] = load_graph(o.graph);
  // p_mpi from --p-mpi, else from the profile the graph came from.
  const std::optional<double> p_mpi = o.p_mpi ? o.p_mpi : profile_p_mpi;
  const std::string p_mpi_source = o.p_mpi ? "--p-mpi" : o.graph;
  progress.done("read " + o.graph);
  MachineOptions machine_options = o.machine;
  machine_options.quiet = o.quiet;
  Mapping mapping;
  auto [machine, allocation] = load_for_launch_file(machine_options, o.mapping, o.format, graph.ranks, mapping);
  progress.done("read " + o.mapping);
  std::optional<Mapping> against;
  if (o.against != "block") {
    if (is_baseline_name(o.against)) {
      against = baseline_mapping(parse_baseline(o.against), allocation, graph.ranks, o.seed);
    } else {
      against = read_checked(o.against, o.against_format, machine, allocation, graph.ranks);
      progress.done("read " + o.against);
    }
  }
  StandardOutput standard;
  const std::string json = standard.path_for(o.json, "report.json", "json");
  check_outputs({json});
  ReportRequest request{"mapping", json, 0.0, p_mpi, p_mpi_source, "", "", ""};
  request.baseline = against ? &*against : nullptr;
  request.baseline_name = o.against;
  request.p2p = &p2p_traffic;
  request.collective = &collective_traffic;
  request.calls = &calls;
  standard.lines() << report(graph, machine, allocation, mapping, request);
  standard.flush();
  progress.done("scored the mapping and " + o.against);
  return 0;
}

}  // namespace

void add_eval(Command& app, Action& action) {
  auto o = std::make_shared<EvalOptions>();
  Command cmd = app.subcommand("eval", "Score an existing mapping against block, rr, random or another mapping");
  cmd.option("graph", o->graph, "Communication graph (.rmp .mtx .graph .grf .csv)").required();
  o->machine.add_to(cmd);
  cmd.option("--mapping", o->mapping, "Launch file to score (rankfile, machinefile, hostfile or csv)").required();
  cmd.option("--mapping-format", o->format, "Its format (default: guessed from the content)")
      .check(one_of(launch_format_names()));
  cmd.option("--against", o->against,
             "What to compare with: block (the launcher's default), rr, random (seeded by --seed), "
             "or a second launch file (write ./rr for a file named rr)")
      .show_default();
  cmd.option("--against-format", o->against_format, "The second launch file's format (default: guessed)")
      .check(one_of(launch_format_names()));
  cmd.option("--seed", o->seed, "Seed of --against random").show_default();
  cmd.option("--json", o->json, "Also write the scores as JSON to this file (-: standard output)");
  cmd.option("--p-mpi", o->p_mpi,
             "Fraction of run time spent in MPI, for predicted_gain (default: the profile's, when GRAPH is a .rmp)")
      .check(number_from(0, 1, "a fraction"));
  cmd.flag("--quiet,-q", o->quiet, "No progress lines on stderr");
  cmd.on_chosen([o, &action] { action = [o] { return run_eval(*o); }; });
}

}  // namespace rankmap::cli
