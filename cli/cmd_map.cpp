// rankmap map GRAPH --machine M --format F -o FILE: computes a mapping and
// writes the launch file (verified by re-reading it before it is renamed
// into place), then prints its scores next to the block baseline's.
#include <chrono>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "rankmap/baseline.hpp"
#include "rankmap/error.hpp"
#include "rankmap/launch.hpp"
#include "report.hpp"

namespace rankmap::cli {
namespace {

struct MapOptions {
  std::string graph, baseline, format = "openmpi", output, json;
  MachineOptions machine;
  std::uint64_t seed = 1;
  std::optional<double> p_mpi;
  bool quiet = false;
};

int run_map(const MapOptions& o) {
  Progress progress(o.quiet);
  const LaunchFormat format = parse_launch_format(o.format);
  if (o.baseline.empty())
    throw Error("map: the topology-aware engine is not built yet; choose --baseline block, rr or random");
  const Baseline kind = parse_baseline(o.baseline);
  auto [machine, allocation] = load(o.machine);
  const Graph graph = read_graph(o.graph);
  progress.done("read " + o.graph);

  const auto start = std::chrono::steady_clock::now();
  const Mapping mapping = baseline_mapping(kind, allocation, graph.ranks, o.seed);
  const double map_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.done("mapped");

  write_launch_files(o.output, format, machine, allocation, mapping);
  progress.done("wrote and re-checked " + o.output);
  report(graph, machine, allocation, mapping, {std::string(baseline_name(kind)), o.json, map_seconds, o.p_mpi});
  progress.done("scored");
  return 0;
}

}  // namespace

void add_map(CLI::App& app, Action& action) {
  auto o = std::make_shared<MapOptions>();
  CLI::App* cmd = app.add_subcommand("map", "Compute a mapping and write the launch file");
  cmd->add_option("graph", o->graph, "Communication graph (.mtx .graph .grf .csv)")->required();
  o->machine.add_to(*cmd);
  cmd->add_option("--baseline", o->baseline, "Write a launcher's default mapping instead: block, rr or random")
      ->check(CLI::IsMember({"block", "rr", "random"}));
  cmd->add_option("--format,-f", o->format, "Launch file format")->capture_default_str()
      ->check(CLI::IsMember({"openmpi", "mpich", "slurm", "mvapich", "csv"}));
  cmd->add_option("--output,-o", o->output, "Launch file to write")->required();
  cmd->add_option("--seed", o->seed, "Seed of every random choice (same seed, same output)")->capture_default_str();
  cmd->add_option("--json", o->json, "Also write the report as JSON to this file");
  cmd->add_option("--p-mpi", o->p_mpi, "Fraction of run time spent in MPI, for predicted_gain")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--quiet,-q", o->quiet, "No progress lines on stderr");
  cmd->callback([o, &action] { action = [o] { return run_map(*o); }; });
}

}  // namespace rankmap::cli
