// rankmap map GRAPH --machine M --format F -o FILE: computes a mapping and
// writes the launch file (verified by re-reading it before it is renamed
// into place), then prints its scores next to the block baseline's.
#include <chrono>
#include <future>
#include <iostream>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "rankmap/baseline.hpp"
#include "rankmap/context.hpp"
#include "rankmap/error.hpp"
#include "rankmap/launch.hpp"
#include "rankmap/map.hpp"
#include "report.hpp"
#include "standard_output.hpp"

namespace rankmap::cli {
namespace {

struct MapOptions {
  std::string graph, baseline, format = "openmpi", output, json, preset = "default", config;
  MachineOptions machine;
  std::optional<std::uint64_t> seed;
  std::optional<int> threads;
  std::optional<double> p_mpi;
  bool quiet = false, verbose = false, dump_config = false, oversubscribe = false;
};

Context context_of(const MapOptions& o) {
  note_input(o.config);
  Context c = o.config.empty() ? create_context(o.preset) : load_context(o.config);
  if (o.seed) c.seed = *o.seed;
  if (o.oversubscribe) c.oversubscribe = true;
  if (o.threads) c.threads = *o.threads;
  return c;
}

int run_map(const MapOptions& o) {
  const Context context = context_of(o);
  if (o.dump_config) {
    std::cout << dump_context(context);
    return 0;
  }
  if (o.graph.empty() || o.machine.machine.empty() || o.output.empty())
    throw Error("map needs GRAPH, --machine and --output (see rankmap map --help)");
  Progress progress(o.quiet, o.verbose);
  const LaunchFormat format = parse_launch_format(o.format);
  StandardOutput standard;
  const std::string output = standard.path_for_launch_file(o.output, format, "mapping");
  const std::string json = standard.path_for(o.json, "report.json", "json");
  MachineOptions machine_options = o.machine;
  machine_options.quiet = o.quiet;
  auto [machine, allocation] = load(machine_options);
  const auto [graph, profile_p_mpi, p2p_traffic, collective_traffic, calls] = load_graph(o.graph);
  // p_mpi from --p-mpi, else from the profile the graph came from.
  const std::optional<double> p_mpi = o.p_mpi ? o.p_mpi : profile_p_mpi;
  const std::string p_mpi_source = o.p_mpi ? "--p-mpi" : o.graph;
  progress.done("read " + o.graph);
  warn_if_job_tasks_differ(graph.ranks, o.graph, o.quiet);
  // Before any work: the outputs must be new files, none of them an input.
  std::vector<std::filesystem::path> outputs{json};
  for (const std::string& suffix : launch_file_suffixes(format)) outputs.emplace_back(output + suffix);
  check_outputs(outputs);
  // Block's score does not depend on the mapping: it runs while the engine
  // does (a failure to make it, as when the ranks do not fit, surfaces from
  // the engine first).
  const Graph* g = &graph;
  const Machine* m = &machine;
  const Allocation* a = &allocation;
  const bool over = context.oversubscribe;
  const int threads = context.threads;
  std::shared_future<Metrics> block_score =
      std::async(threads == 1 ? std::launch::deferred : std::launch::async, [g, m, a, over, threads] {
        return evaluate(*g, *m, *a, baseline_mapping(Baseline::block, *a, g->ranks, 1, over), threads);
      }).share();

  const auto start = std::chrono::steady_clock::now();
  const MapResult result =
      o.baseline.empty()
          ? map_explained(
                graph, machine, allocation, context, [&](std::string_view s) { progress.done(std::string(s)); },
                TrafficKinds{&p2p_traffic, &collective_traffic, &calls, p_mpi})
          : MapResult{baseline_mapping(parse_baseline(o.baseline), allocation, graph.ranks, context.seed,
                                       context.oversubscribe),
                      "", "", ""};
  const Mapping& mapping = result.mapping;
  const double map_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.done("mapped");

  // Scored and reported first, then the launch file and the JSON report are
  // written together: both land, or neither.
  ReportRequest request{o.baseline.empty() ? "rankmap " + context.preset : o.baseline,
                        json,
                        map_seconds,
                        p_mpi,
                        p_mpi_source,
                        result.kept,
                        result.why,
                        result.nodes_why};
  request.warn_if_slower = true;  // any mapping map writes, --baseline ones too (README)
  request.p2p = &p2p_traffic;
  request.collective = &collective_traffic;
  request.calls = &calls;
  request.baseline_score = block_score;
  request.known_flows = known_flows_of(result, allocation, graph.ranks, over);
  request.known_program = known_program_of(result, allocation, graph.ranks, over, p_mpi);
  request.threads = threads;
  std::string json_text;
  request.json_text = &json_text;
  const std::string table = report(graph, machine, allocation, mapping, request);
  std::vector<FilePart> also;
  if (!json.empty()) also.push_back({"", json_text, json});
  write_launch_files(output, format, machine, allocation, mapping, also);
  // srun's one --cpu-bind list cannot say where each local rank goes.
  const bool bind_each_task = format == LaunchFormat::slurm && !one_cpu_list_binds(machine, allocation, mapping);
  standard.lines() << table;
  standard.flush();
  progress.done("wrote and re-checked " + standard.shown(output) +
                (json.empty() ? "" : " and " + standard.shown(json)));
  progress.done("scored");
  if (bind_each_task && !o.quiet)
    std::fprintf(stderr,
                 "rankmap: srun's --cpu-bind list is one for every node, and this mapping's local ranks sit on "
                 "different CPUs on different nodes: %s.env sets SLURM_CPU_BIND=none; run each task as "
                 "'srun rankmap bind-task %s.bind -- ./app' (or srun --rankmap with the SPANK plugin)\n",
                 printable(o.output).c_str(), printable(o.output).c_str());
  if (allocation.cpus_per_rank > 0 && !o.quiet) {  // the threads inside each rank's block
    const std::string n = std::to_string(allocation.cpus_per_rank);
    std::fprintf(stderr,
                 "rankmap: each rank holds %s %s: start its threads with OMP_NUM_THREADS=%s OMP_PLACES=%s "
                 "OMP_PROC_BIND=close (Open MPI: mpirun -x OMP_NUM_THREADS -x OMP_PLACES -x OMP_PROC_BIND)\n",
                 n.c_str(), allocation.hwthreads ? "hardware threads" : "cores", n.c_str(),
                 allocation.hwthreads ? "threads" : "cores");
  }
  return 0;
}

}  // namespace

void add_map(Command& app, Action& action) {
  auto o = std::make_shared<MapOptions>();
  Command cmd = app.subcommand("map", "Compute a mapping and write the launch file");
  cmd.option("graph", o->graph, "Communication graph (.rmp .mtx .graph .grf .csv)");
  o->machine.add_to(cmd, false);
  cmd.option("--baseline", o->baseline, "Write a launcher's default mapping instead").check(one_of(baseline_names()));
  cmd.option("--format,-f", o->format, "Launch file format").show_default().check(one_of(launch_format_names()));
  cmd.option("--output,-o", o->output, "Launch file to write (-: standard output)");
  cmd.option("--preset", o->preset, "How much the engine tries").show_default().check(one_of(preset_names()));
  cmd.option("-C,--config", o->config, "Read the engine's settings from a file written by --dump-config");
  cmd.flag("--dump-config", o->dump_config, "Print the engine's settings (preset and options) as TOML and stop");
  cmd.flag("--oversubscribe", o->oversubscribe, "Allow more ranks than slots (ranks then share slots)");
  cmd.option("--seed", o->seed, "Seed of every random choice (default 1; same seed, same output)")
      .check(whole_number_from(0, INT64_MAX, ""));  // what a -C file holds
  cmd.option("--threads", o->threads,
             "Threads for the engine's independent work (default: the CPUs this process may use; the mapping "
             "is the same for any number)")
      .check(whole_number_from(1, kMaxThreads, "threads"));
  cmd.option("--json", o->json, "Also write the report as JSON to this file (-: standard output)");
  cmd.option("--p-mpi", o->p_mpi,
             "Fraction of run time spent in MPI, for predicted_gain and the compute between a pipeline's stages or "
             "exchanges the engine times (default: the profile's, when GRAPH is a .rmp)")
      .check(number_from(0, 1, "a fraction"));
  cmd.flag("--quiet,-q", o->quiet,
           "No progress or advice lines on stderr (the scores' table still goes to standard output)");
  cmd.flag("--verbose,-v", o->verbose, "A line on stderr for every stage and candidate, with its scores");
  cmd.footer(kNeverWorseThanBlock);
  cmd.on_chosen([o, &action] { action = [o] { return run_map(*o); }; });
}

}  // namespace rankmap::cli
