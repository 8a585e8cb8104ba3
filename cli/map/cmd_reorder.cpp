// rankmap reorder --cart 8x8x4 [--periods 1,1,0] | --graph FILE -m M
// --mapping LAUNCH_FILE -f FORMAT -o OUT: the permutation the shim computes
// when the job's MPI_Cart_create (or graph create) asks for reorder = 1,
// without MPI. The launch file says where each process of the run is; the
// output says where each rank of the new communicator runs, with the
// topology's scores next to the old order's.
#include <chrono>
#include <iostream>

#include "commands.hpp"
#include "common.hpp"
#include "rankmap/context.hpp"
#include "rankmap/error.hpp"
#include "rankmap/launch.hpp"
#include "rankmap/reorder.hpp"
#include "report.hpp"
#include "standard_output.hpp"

namespace rankmap::cli {
namespace {

struct ReorderOptions {
  MachineOptions machine;
  std::string cart, periods, graph, mapping, mapping_format, format = "csv", output, json;
  bool quiet = false;
};

std::vector<char> parse_periods(const std::string& text, std::size_t dims) {
  std::vector<char> periods(dims, 0);
  if (text.empty()) return periods;
  std::size_t d = 0;
  for (std::size_t at = 0; at <= text.size(); ++d) {
    const std::size_t end = std::min(text.find(',', at), text.size());
    const std::string word = text.substr(at, end - at);
    if ((word != "0" && word != "1") || d >= dims)
      throw Error(
          "--periods", 0,
          "expected " + std::to_string(dims) + " values of 0 or 1 separated by commas, got '" + printable(text) + "'");
    periods[d] = word == "1";
    at = end + 1;
  }
  if (d != dims) throw Error("--periods", 0, "expected " + std::to_string(dims) + " values, got " + std::to_string(d));
  return periods;
}

int run_reorder(const ReorderOptions& o) {
  if (o.cart.empty() == o.graph.empty()) throw Error("reorder", 0, "give the topology: --cart DIMS or --graph FILE");
  Progress progress(o.quiet);
  Graph topology;
  if (!o.cart.empty()) {
    const std::vector<int> dims = parse_dims(o.cart, "--cart");
    topology = cartesian_graph(dims, parse_periods(o.periods, dims.size()));
  } else {
    topology = load_graph(o.graph).graph;
  }
  MachineOptions machine_options = o.machine;
  machine_options.quiet = o.quiet;
  Mapping run;
  const auto [machine, allocation] =
      load_for_launch_file(machine_options, o.mapping, o.mapping_format, topology.ranks, run);
  StandardOutput standard;
  const LaunchFormat format = parse_launch_format(o.format);
  const std::string output = standard.path_for_launch_file(o.output, format, "new-ranks");
  const std::string json = standard.path_for(o.json, "report.json", "json");
  check_outputs({output, output + ".env", json});
  // Where each process runs: its node, and its slot's first CPU.
  std::vector<ProcessPlace> places(run.size());
  for (std::size_t p = 0; p < run.size(); ++p) {
    const Placement at = run.ranks[p];
    const NodeType& type =
        machine.node_types[machine.nodes[static_cast<std::size_t>(allocation.nodes[static_cast<std::size_t>(at.node)])]
                               .type];
    places[p] = {
        at.node,
        static_cast<int>(
            type.pus[allocation.slots(static_cast<std::size_t>(at.node))[static_cast<std::size_t>(at.slot)].pus.front()]
                .os_index)};
  }
  const auto start = std::chrono::steady_clock::now();
  const Reordering r = reorder_processes(topology, machine, allocation, places, create_context("default"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.done("reordered");
  // Rank r of the new communicator runs where process process_of_rank[r] does.
  Mapping reordered;
  reordered.ranks.resize(run.size());
  for (std::size_t rank = 0; rank < run.size(); ++rank) reordered.ranks[rank] = run.ranks[r.process_of_rank[rank]];
  ReportRequest request{"reordered", json, seconds, std::nullopt, "", r.identity ? "identity" : "reordered", r.why, ""};
  request.baseline = &run;
  request.baseline_name = "identity";
  std::string json_text;
  request.json_text = &json_text;
  const std::string table = report(topology, machine, allocation, reordered, request);
  std::vector<FilePart> also;
  if (!json.empty()) also.push_back({"", json_text, json});
  write_launch_files(output, format, machine, allocation, reordered, also);
  standard.lines() << table;
  standard.flush();
  return 0;
}

}  // namespace

void add_reorder(Command& app, Action& action) {
  auto o = std::make_shared<ReorderOptions>();
  Command cmd = app.subcommand(
      "reorder", "The renumbering the shim gives MPI_Cart_create or MPI_Graph_create with reorder = 1, without MPI");
  o->machine.add_to(cmd);
  cmd.option("--cart", o->cart, "A Cartesian topology: sizes joined by 'x' (8x8x4), last dimension fastest");
  cmd.option("--periods", o->periods, "Which dimensions wrap: 0 or 1 each, separated by commas (default: none)");
  cmd.option("--graph", o->graph, "A graph topology instead (.mtx .graph .grf .csv .rmp)");
  cmd.option("--mapping", o->mapping, "Where the run's processes are: its launch file (rank r = process r)").required();
  cmd.option("--mapping-format", o->mapping_format, "Its format (default: guessed from the content)")
      .check(one_of(launch_format_names()));
  cmd.option("--format,-f", o->format, "Where each new rank runs, as a launch file of this format")
      .show_default()
      .check(one_of(launch_format_names()));
  cmd.option("--output,-o", o->output, "The file to write (-: standard output)").required();
  cmd.option("--json", o->json, "Also the topology's scores, reordered against the identity, as JSON");
  cmd.flag("--quiet,-q", o->quiet, "No progress lines on stderr");
  cmd.footer("Example: rankmap reorder --cart 4x4 --periods 1,1 -m m.toml --mapping run.rankfile -o new.csv");
  cmd.on_chosen([o, &action] { action = [o] { return run_reorder(*o); }; });
}

}  // namespace rankmap::cli
