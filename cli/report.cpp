#include "report.hpp"

#include "common.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "rankmap/baseline.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/io.hpp"

namespace rankmap::cli {

// A dragonfly's scores (Metrics): groups, bytes between them, the busiest
// global link, and the adaptive reading's busiest links.
static void add_dragonfly_json(nlohmann::ordered_json& doc, const Metrics& m) {
  doc["groups"] = m.groups;
  doc["inter_group_bytes"] = m.inter_group_bytes;
  doc["max_global_link_bytes"] = m.max_global_link_bytes;
  doc["adaptive"] = {{"max_link_bytes", m.adaptive_max_link_bytes},
                     {"max_global_link_bytes", m.adaptive_max_global_link_bytes}};
}

nlohmann::ordered_json metrics_json(const Metrics& m) {
  nlohmann::ordered_json doc = {
      {"ranks", m.ranks},
      {"nodes", m.nodes},
      {"total_bytes", m.total_bytes},
      {"total_msgs", m.total_msgs},
      {"hop_bytes", m.hop_bytes},
      {"avg_dilation", m.avg_dilation},
      {"avg_hops_by_msgs", m.avg_hops_by_msgs},
      {"max_dilation", m.max_dilation},
      {"max_link_bytes", m.max_link_bytes},
      {"inter_node_bytes", m.inter_node_bytes},
      {"cross_socket_bytes", m.cross_socket_bytes},
      {"same_host_bytes", m.same_host_bytes},
  };
  if (m.groups) add_dragonfly_json(doc, m);  // only a dragonfly's scores count groups
  return doc;
}

// Why the headline fell back to the mean message time: the limit the flow
// model met, for either mapping.
static const char* flow_stopped(const Prediction& p) {
  return !p.baseline_flow.computed ? p.baseline_flow.why : p.mapping_flow.why;
}

nlohmann::ordered_json report_json(const Metrics& mapping, const Metrics& baseline, double map_seconds,
                                   const std::optional<Prediction>& prediction, const std::string& baseline_name) {
  nlohmann::ordered_json doc = metrics_json(mapping);
  doc["map_seconds"] = map_seconds;
  doc["baseline"] = metrics_json(baseline);
  doc["baseline"]["name"] = baseline_name;
  if (prediction) {
    doc["p_mpi"] = prediction->p_mpi;
    doc["p_mpi_source"] = prediction->p_mpi_source;
    doc["predicted_gain"] = prediction->gain;
    doc["predicted_slower"] = prediction->gain < 0;
    doc["gain_model"] = prediction->model;
    if (prediction->model == "messages") doc["flow_model_stopped"] = flow_stopped(*prediction);
    doc["predicted_gain_by_messages"] = prediction->gain_by_messages;
    doc["predicted_gain_by_bytes"] =
        prediction->gain_by_bytes ? nlohmann::ordered_json(*prediction->gain_by_bytes) : nlohmann::ordered_json();
    doc["mean_message_ns"] = {{"mapping", prediction->mapping.by_messages_ns},
                              {"baseline", prediction->baseline.by_messages_ns}};
    doc["predicted_gain_slowest_sender"] = prediction->gain_slowest_sender;
    doc["slowest_sender_ns"] = {{"mapping", prediction->mapping_slowest_ns},
                                {"baseline", prediction->baseline_slowest_ns}};
    doc["predicted_gain_phase"] = prediction->gain_phase;
    doc["predicted_gain_phase_mean"] = prediction->gain_phase_mean;
    const auto phase_json = [](const PhaseTimes& t) {
      return nlohmann::ordered_json{
          {"phases", t.phases},   {"slowest_ns", t.slowest_ns},     {"mean_ns", t.mean_ns},
          {"link_ns", t.link_ns}, {"injection_ns", t.injection_ns}, {"ejection_ns", t.ejection_ns}};
    };
    doc["phase_model"] = {{"mapping", phase_json(prediction->mapping_phase)},
                          {"baseline", phase_json(prediction->baseline_phase)}};
    const auto flow_json = [](const FlowTimes& t) {
      return nlohmann::ordered_json{{"phases", t.phases},
                                    {"slowest_ns", t.slowest_ns},
                                    {"p2p_ns", t.p2p_ns},
                                    {"chain_ns", t.chain_ns},
                                    {"collectives", t.rounds ? "rounds" : "chains"},
                                    {"collective_floor_ns", t.collective_floor_ns}};
    };
    // The pipeline's and the programs' runs: their count of stages or
    // iterations, the compute solved from p_mpi, both runs' times.
    const auto run_json = [](const char* count_key, double count, double compute_ns, double mapping_ns,
                             double baseline_ns) {
      return nlohmann::ordered_json{
          {count_key, count}, {"compute_ns", compute_ns}, {"mapping_ns", mapping_ns}, {"baseline_ns", baseline_ns}};
    };
    if (const PipelineTimes& t = prediction->pipeline; t.computed)
      doc["pipeline_model"] = run_json("stages", t.stages, t.compute_ns, t.mapping_ns, t.baseline_ns);
    // The predicted communication time of each mapping (the slowest rank's,
    // which paces the run): the flow model's; the other models give none.
    if (prediction->model == "flow")
      doc["predicted_comm_ns"] = {{"mapping", prediction->mapping_flow.slowest_ns},
                                  {"baseline", prediction->baseline_flow.slowest_ns}};
    else
      doc["predicted_comm_ns"] = nullptr;
    if (const ExchangeProgramTimes& t = prediction->program; t.computed)
      doc["program_model"] = run_json("iterations", t.iterations, t.compute_ns, t.mapping_ns, t.baseline_ns);
    if (prediction->model != "messages")
      doc["flow_model"] = {{"mapping", flow_json(prediction->mapping_flow)},
                           {"baseline", flow_json(prediction->baseline_flow)}};
    else
      doc["flow_model"] = nullptr;
  } else {
    doc["predicted_gain"] = nullptr;
    doc["predicted_slower"] = nullptr;
    doc["predicted_comm_ns"] = nullptr;
  }
  return doc;
}

namespace {

std::optional<Prediction> predict(const Graph& graph, const Machine& machine, const Allocation& allocation,
                                  const Mapping& mapping, const Mapping& base_mapping, const Metrics& ours,
                                  const Metrics& base, const ReportRequest& request) {
  if (!request.p_mpi) return std::nullopt;
  const Network& net = machine.network;
  Prediction p;
  p.p_mpi = *request.p_mpi, p.p_mpi_source = request.p_mpi_source;
  p.baseline = mean_message_times(graph, net, base);
  p.mapping = mean_message_times(graph, net, ours);
  p.gain_by_messages = relative_gain(p.p_mpi, p.baseline.by_messages_ns, p.mapping.by_messages_ns);
  if (p.baseline.by_bytes_ns > 0)
    p.gain_by_bytes = relative_gain(p.p_mpi, p.baseline.by_bytes_ns, p.mapping.by_bytes_ns);
  p.baseline_slowest_ns = slowest_sender_ns(graph, machine, allocation, base_mapping);
  p.mapping_slowest_ns = slowest_sender_ns(graph, machine, allocation, mapping);
  p.gain_slowest_sender = relative_gain(p.p_mpi, p.baseline_slowest_ns, p.mapping_slowest_ns);
  p.baseline_phase = phase_times(graph, machine, allocation, base_mapping, base);
  p.mapping_phase = phase_times(graph, machine, allocation, mapping, ours);
  p.gain_phase = relative_gain(p.p_mpi, p.baseline_phase.slowest_ns, p.mapping_phase.slowest_ns);
  p.gain_phase_mean = relative_gain(p.p_mpi, p.baseline_phase.mean_ns, p.mapping_phase.mean_ns);
  const bool kinds = request.p2p && request.p2p->ranks != 0;
  const Graph& p2p = kinds ? *request.p2p : graph;
  const Graph none;
  const Graph& collective = kinds && request.collective ? *request.collective : none;
  const std::vector<CollectiveCalls>* calls = kinds ? request.calls : nullptr;
  const auto flow_start = std::chrono::steady_clock::now();
  // The model sees each rank's node only: a mapping on the nodes of one
  // already timed has its times, and where the mapping kept has the
  // launcher's nodes, its time is the launcher's (HPCC 64 on the 4x4x4
  // torus at one rank a node: 1.5 s each; bench/RESULTS.md, issue 54,
  // fourteenth and fifteenth sessions).
  const auto timed = [&](const Mapping& m) {
    for (const ReportRequest::KnownFlow& k : request.known_flows)
      if (k.times.computed && same_nodes(m, k.of)) return k.times;
    return flow_times(p2p, collective, machine, allocation, m, calls);
  };
  p.baseline_flow = timed(base_mapping);
  if (p.baseline_flow.computed) p.mapping_flow = same_nodes(mapping, base_mapping) ? p.baseline_flow : timed(mapping);
  p.flow_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - flow_start).count();
  p.pipeline =
      pipeline_times(p2p, machine, allocation, mapping, base_mapping, p.p_mpi);  // computed for one-way traffic
  // Exchanges between rare collectives: each rank's program, the engine's
  // reading there (map.hpp), with the compute that gives the baseline p_mpi.
  if (kinds && p.mapping_flow.computed && exchanges_as_programs(p2p, collective, calls)) {
    const std::optional<ReportRequest::KnownProgram>& k = request.known_program;
    const ExchangeProgramTimes t =
        k && k->times.computed && k->p_mpi == p.p_mpi && same_nodes(mapping, k->of) &&
                same_nodes(base_mapping, k->baseline)
            ? k->times
            : exchange_program_times(p2p, machine, allocation, mapping, base_mapping, p.p_mpi);
    if (t.computed) p.program = t;
  }
  if (p.pipeline.computed && p.mapping_flow.computed) {  // a wavefront: ranks wait along the pipe
    p.model = "pipeline";
    p.gain = (p.pipeline.baseline_ns - p.pipeline.mapping_ns) / p.pipeline.baseline_ns;
  } else if (p.program.computed) {
    p.model = "program";
    p.gain = (p.program.baseline_ns - p.program.mapping_ns) / p.program.baseline_ns;
  } else if (p.mapping_flow.computed) {
    p.model = "flow";
    p.gain = relative_gain(p.p_mpi, p.baseline_flow.slowest_ns, p.mapping_flow.slowest_ns);
  } else {  // too large a graph for the flow model
    p.model = "messages";
    p.gain = p.gain_by_messages;
  }
  return p;
}

}  // namespace

std::vector<ReportRequest::KnownFlow> known_flows_of(const MapResult& result, const Allocation& allocation,
                                                     std::uint32_t ranks, bool oversubscribe) {
  std::vector<ReportRequest::KnownFlow> known;
  if (result.mapping_flow.computed) known.push_back({result.mapping, result.mapping_flow});
  if (result.block_flow.computed)
    known.push_back({baseline_mapping(Baseline::block, allocation, ranks, 1, oversubscribe), result.block_flow});
  return known;
}

std::optional<ReportRequest::KnownProgram> known_program_of(const MapResult& result, const Allocation& allocation,
                                                            std::uint32_t ranks, bool oversubscribe,
                                                            std::optional<double> p_mpi) {
  if (!result.program.computed || !p_mpi) return std::nullopt;
  return ReportRequest::KnownProgram{
      result.mapping, baseline_mapping(Baseline::block, allocation, ranks, 1, oversubscribe), *p_mpi, result.program};
}

void print_comparison(std::ostream& out, const Metrics& m, const std::string& label, const Metrics& b,
                      const std::string& baseline_label) {
  char line[160];
  auto row = [&](const char* name, double ours, double base, const char* fmt) {
    char a[40], c[40];
    std::snprintf(a, sizeof a, fmt, ours);
    std::snprintf(c, sizeof c, fmt, base);
    // Against a baseline of 0 a ratio means nothing ("-"), unless both are 0.
    char ratio[16] = "-";
    if (base != 0 || ours == 0) std::snprintf(ratio, sizeof ratio, "%.3f", base != 0 ? ours / base : 1.0);
    std::snprintf(line, sizeof line, "%-20s %20s %20s %8s\n", name, a, c, ratio);
    out << line;
  };
  std::snprintf(line, sizeof line, "%-20s %20s %20s %8s\n", "", label.c_str(), baseline_label.c_str(), "ratio");
  out << line;
  auto u = [](std::uint64_t v) { return static_cast<double>(v); };
  row("hop-bytes", u(m.hop_bytes), u(b.hop_bytes), "%.0f");
  row("avg dilation", m.avg_dilation, b.avg_dilation, "%.4f");
  row("max dilation", m.max_dilation, b.max_dilation, "%.0f");
  row("max link bytes", u(m.max_link_bytes), u(b.max_link_bytes), "%.0f");
  row("inter-node bytes", u(m.inter_node_bytes), u(b.inter_node_bytes), "%.0f");
  row("cross-socket bytes", u(m.cross_socket_bytes), u(b.cross_socket_bytes), "%.0f");
  if (m.same_host_bytes || b.same_host_bytes)  // VMs on hosts
    row("same-host VM bytes", u(m.same_host_bytes), u(b.same_host_bytes), "%.0f");
  if (m.groups || b.groups) {  // a dragonfly
    row("groups used", u(m.groups), u(b.groups), "%.0f");
    row("inter-group bytes", u(m.inter_group_bytes), u(b.inter_group_bytes), "%.0f");
    row("max global link", u(m.max_global_link_bytes), u(b.max_global_link_bytes), "%.0f");
    row("adaptive max link", u(m.adaptive_max_link_bytes), u(b.adaptive_max_link_bytes), "%.0f");
    row("adaptive max global", u(m.adaptive_max_global_link_bytes), u(b.adaptive_max_global_link_bytes), "%.0f");
  }
  std::snprintf(line, sizeof line, "%llu ranks on %llu nodes, %llu bytes in %llu messages\n",
                static_cast<unsigned long long>(m.ranks), static_cast<unsigned long long>(m.nodes),
                static_cast<unsigned long long>(m.total_bytes), static_cast<unsigned long long>(m.total_msgs));
  out << line;
}

// On a dragonfly: what the mapping changes between groups, in both
// readings, and how far to trust a gain predicted with minimal routes
// (the published work finds adaptive routing hides most of a permutation's
// effect inside an allocation, but not the bytes between groups).
static std::string dragonfly_note(const Metrics& ours, const Metrics& base, const std::string& column,
                                  const std::optional<Prediction>& prediction) {
  // "0.429x block's", or where block has none, "1572864 against block's 0".
  auto versus = [&](std::uint64_t a, std::uint64_t b) {
    if (b == 0) return a == 0 ? "none, as " + column + "'s" : std::to_string(a) + " against " + column + "'s 0";
    char text[32];
    std::snprintf(text, sizeof text, "%.3fx ", static_cast<double>(a) / static_cast<double>(b));
    return text + column + "'s";
  };
  std::string note = "dragonfly: bytes between groups " + versus(ours.inter_group_bytes, base.inter_group_bytes) +
                     ", busiest global link " + versus(ours.max_global_link_bytes, base.max_global_link_bytes) +
                     " (adaptive reading " +
                     versus(ours.adaptive_max_global_link_bytes, base.adaptive_max_global_link_bytes) +
                     "); the predicted gain assumes minimal routing, and adaptive routing (Slingshot, Dragonfly+) "
                     "hides much of a mapping's effect inside groups";
  if (prediction && prediction->gain < 0.05) note += ": expect a small gain here";
  return note + "\n";
}

std::string report(const Graph& graph, const Machine& machine, const Allocation& allocation, const Mapping& mapping,
                   const ReportRequest& request) {
  // The two scores are independent passes over the whole graph (seconds
  // each at a million ranks): the baseline's runs on a second thread
  // unless the caller started it already.
  const Mapping block_mapping =
      // A mapping with more ranks than slots (verified already) is compared
      // with block repeated over the slots, as mpirun --oversubscribe runs.
      request.baseline
          ? Mapping{}
          : baseline_mapping(Baseline::block, allocation, graph.ranks, 1, graph.ranks > allocation.total_slots());
  const Mapping& base_mapping = request.baseline ? *request.baseline : block_mapping;
  std::shared_future<Metrics> base_score = request.baseline_score;
  if (!base_score.valid())
    base_score = std::async(request.threads == 1 ? std::launch::deferred : std::launch::async,
                            [&] { return evaluate(graph, machine, allocation, base_mapping, request.threads); });
  const Metrics ours = evaluate(graph, machine, allocation, mapping, request.threads);
  const Metrics base = base_score.get();
  // A launch file's path can be long: the table's column shows its name.
  const std::string column = printable(std::filesystem::path(request.baseline_name).filename().string());
  std::ostringstream out;
  print_comparison(out, ours, request.label, base, column);
  // Fewer ranks than slots: the engine may spread them over more nodes
  // than block packs them on (or fewer); the user sees both and why.
  const bool nodes_differ = ours.nodes != base.nodes;
  if (nodes_differ)
    out << "nodes: " << ours.nodes << " used by " << request.label << ", " << base.nodes << " by " << column
        << (request.nodes_why.empty() ? "" : ": " + request.nodes_why) << "\n";
  const std::optional<Prediction> prediction =
      predict(graph, machine, allocation, mapping, base_mapping, ours, base, request);
  if (prediction) {
    const std::string p_mpi_source = printable(prediction->p_mpi_source);
    char line[300];
    // The pipeline's and the programs' line: what ran, its compute, both runs.
    const auto run_line = [&](const char* what, double count, const char* unit, double compute_ns, double mapping_ns,
                              double baseline_ns) {
      std::snprintf(line, sizeof line,
                    "predicted gain %.2f %% over %s (%s, %.0f %s of %.1f us compute; p_mpi %.3f from %s; run %.1f us, "
                    "%s %.1f us)\n",
                    100 * prediction->gain, column.c_str(), what, count, unit, compute_ns / 1e3, prediction->p_mpi,
                    p_mpi_source.c_str(), mapping_ns / 1e3, column.c_str(), baseline_ns / 1e3);
    };
    if (const PipelineTimes& t = prediction->pipeline; prediction->model == "pipeline")
      run_line("pipeline model: one-way traffic", t.stages, "stages", t.compute_ns, t.mapping_ns, t.baseline_ns);
    else if (const ExchangeProgramTimes& p = prediction->program; prediction->model == "program")
      run_line("program model: exchanges as each rank's program", p.iterations, "iterations", p.compute_ns,
               p.mapping_ns, p.baseline_ns);
    else if (prediction->model == "flow")
      std::snprintf(line, sizeof line,
                    "predicted gain %.2f %% over %s (flow model, p_mpi %.3f from %s; slowest rank's "
                    "communication %.1f us, %s %.1f us%s%s)\n",
                    100 * prediction->gain, column.c_str(), prediction->p_mpi, p_mpi_source.c_str(),
                    prediction->mapping_flow.slowest_ns / 1e3, column.c_str(),
                    prediction->baseline_flow.slowest_ns / 1e3,
                    *prediction->pipeline.why ? "; not the pipeline model: " : "", prediction->pipeline.why);
    else
      std::snprintf(line, sizeof line,
                    "predicted gain %.2f %% over %s (mean message time: the flow model stopped after %.2f s, "
                    "%s; p_mpi %.3f from %s; mean message %.0f ns, %s %.0f ns)\n",
                    100 * prediction->gain, column.c_str(), prediction->flow_seconds, flow_stopped(*prediction),
                    prediction->p_mpi, p_mpi_source.c_str(), prediction->mapping.by_messages_ns, column.c_str(),
                    prediction->baseline.by_messages_ns);
    out << line;
    if (request.warn_if_slower && prediction->gain < 0) {
      // "although" only where hop-bytes point the other way: more of them
      // and slower is no surprise.
      std::snprintf(line, sizeof line,
                    "rankmap: warning: the gain model (%s) predicts this mapping %.2f %% slower than %s, %s "
                    "its hop-bytes are %.3fx %s's\n",
                    prediction->model.c_str(), -100 * prediction->gain, column.c_str(),
                    ours.hop_bytes < base.hop_bytes ? "although" : "and",
                    base.hop_bytes ? static_cast<double>(ours.hop_bytes) / static_cast<double>(base.hop_bytes) : 1.0,
                    column.c_str());
      std::cerr << line;
    }
  }
  // A dragonfly routes adaptively on real machines: say what the mapping
  // changes there, and that the prediction assumes minimal routes.
  const std::string dragonfly = machine.network.is_dragonfly() ? dragonfly_note(ours, base, column, prediction) : "";
  out << dragonfly;
  // The rule that let a mapping with more hop-bytes than block be written.
  const bool overruled = !request.kept.empty() && request.kept != "block" && prediction &&
                         prediction->model == "flow" && prediction->gain > 0 && ours.hop_bytes > base.hop_bytes;
  if (overruled) {
    char line[200];
    std::snprintf(line, sizeof line,
                  "the flow model overruled hop-bytes: %.3fx %s's hop-bytes, predicted %.2f %% faster. ",
                  static_cast<double>(ours.hop_bytes) / static_cast<double>(base.hop_bytes), column.c_str(),
                  100 * prediction->gain);
    out << line << kNeverWorseThanBlock << "\n";
  }
  if (!request.kept.empty())
    out << "kept " << request.kept << (request.kept_why.empty() ? "" : ": " + request.kept_why) << "\n";
  if (request.json.empty()) return out.str();
  nlohmann::ordered_json doc = report_json(ours, base, request.map_seconds, prediction, request.baseline_name);
  doc["nodes_differ"] = nodes_differ;
  if (!dragonfly.empty()) doc["dragonfly_note"] = dragonfly.substr(0, dragonfly.size() - 1);
  doc["nodes_why"] = request.nodes_why.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(request.nodes_why);
  if (!request.kept.empty()) {
    doc["model_overruled_hop_bytes"] = overruled;
    doc["kept"] = request.kept;
    doc["block_kept"] = request.kept == "block";
    doc["kept_why"] = request.kept_why.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(request.kept_why);
  }
  if (request.json_text)
    *request.json_text = doc.dump(2) + "\n";
  else
    write_json(request.json, doc);
  return out.str();
}

void write_json(const std::string& path, const nlohmann::ordered_json& doc) {
  check_outputs({path});
  write_files_atomically(path, {{"", doc.dump(2) + "\n"}});
}

}  // namespace rankmap::cli
