// rankmap eval GRAPH --machine M --mapping FILE: the scores of an existing
// mapping (any launch format), next to the block baseline's.
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "rankmap/error.hpp"
#include "rankmap/launch.hpp"
#include "report.hpp"

namespace rankmap::cli {
namespace {

struct EvalOptions {
  std::string graph, mapping, format, json;
  MachineOptions machine;
  std::optional<double> p_mpi;
  bool quiet = false;
};

int run_eval(const EvalOptions& o) {
  Progress progress(o.quiet);
  auto [machine, allocation] = load(o.machine);
  const auto [graph, profile_p_mpi] = load_graph(o.graph);
  // p_mpi from --p-mpi, else from the profile the graph came from.
  const std::optional<double> p_mpi = o.p_mpi ? o.p_mpi : profile_p_mpi;
  const std::string p_mpi_source = o.p_mpi ? "--p-mpi" : o.graph;
  progress.done("read " + o.graph);
  const LaunchFormat format = o.format.empty() ? detect_launch_format(o.mapping) : parse_launch_format(o.format);
  const Mapping mapping = read_launch_file(o.mapping, format, machine, allocation);
  verify_mapping(mapping, allocation, graph.ranks, o.mapping);
  progress.done("read " + o.mapping);
  report(graph, machine, allocation, mapping, {"mapping", o.json, 0.0, p_mpi, p_mpi_source, "", ""});
  progress.done("scored the mapping and the block baseline");
  return 0;
}

}  // namespace

void add_eval(CLI::App& app, Action& action) {
  auto o = std::make_shared<EvalOptions>();
  CLI::App* cmd = app.add_subcommand("eval", "Score an existing mapping against the block baseline");
  cmd->add_option("graph", o->graph, "Communication graph (.mtx .graph .grf .csv)")->required();
  o->machine.add_to(*cmd);
  cmd->add_option("--mapping", o->mapping, "Launch file to score (rankfile, machinefile, hostfile or csv)")->required();
  cmd->add_option("--mapping-format", o->format, "Its format (default: guessed from the content)")
      ->check(CLI::IsMember({"openmpi", "mpich", "slurm", "mvapich", "csv"}));
  cmd->add_option("--json", o->json, "Also write the scores as JSON to this file");
  cmd->add_option("--p-mpi", o->p_mpi, "Fraction of run time spent in MPI, for predicted_gain (default: the profile's, when GRAPH is a .rmp)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--quiet,-q", o->quiet, "No progress lines on stderr");
  cmd->callback([o, &action] { action = [o] { return run_eval(*o); }; });
}

}  // namespace rankmap::cli
