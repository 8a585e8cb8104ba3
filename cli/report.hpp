// How scores are shown: a side-by-side table for people, JSON for tools.
#pragma once

#include <future>
#include <nlohmann/json_fwd.hpp>  // the JSON itself only where it is built (report.cpp)
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "rankmap/gain.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/map.hpp"
#include "rankmap/mapping.hpp"
#include "rankmap/metrics.hpp"

namespace rankmap::cli {

// ordered_json: keys stay in the order written, the mapping's before `baseline`.
nlohmann::ordered_json metrics_json(const Metrics& m);

// What the gain model predicts for the mapping over its baseline (block
// unless the request names another; measured model).
struct Prediction {
  double p_mpi = 0;
  std::string p_mpi_source;                                // "--p-mpi" or the profile's path
  MessageTimes baseline, mapping;                          // mean message times
  double gain = 0;                                         // the headline, by `model`
  std::optional<double> gain_by_bytes;                     // when any bytes flow
  double baseline_slowest_ns = 0, mapping_slowest_ns = 0;  // slowest_sender_ns
  double gain_slowest_sender = 0;
  PhaseTimes baseline_phase, mapping_phase;    // the phase model (gain.hpp)
  double gain_phase = 0, gain_phase_mean = 0;  // on slowest_ns, on mean_ns
  FlowTimes baseline_flow, mapping_flow;       // the flow model (gain.hpp)
  double flow_seconds = 0;                     // what the flow model took, both mappings
  PipelineTimes pipeline;                      // the pipeline term, for one-way traffic
  ExchangeProgramTimes program;                // exchanges between rare collectives, as programs
  double gain_by_messages = 0;
  // The headline: the pipeline term's for one-way traffic, the program
  // model's for exchanges between rare collectives, the flow model's when
  // it ran for both mappings, else the mean message time's ("pipeline",
  // "program", "flow" or "messages").
  std::string model;
};

// The one statement of rankmap's rule, in the report, map --help and README.
inline constexpr const char* kNeverWorseThanBlock =
    "Never worse than block: rankmap writes no mapping that the flow model (or its pipeline or program reading) "
    "predicts slower than the launcher's "
    "block mapping when it times the candidates (a profile of at most 16,384 communicating pairs on a machine with "
    "link_gbps), and none with more hop-bytes than block otherwise.";

// The report of docs/formats.md: the mapping's keys, `baseline` with the same keys
// for the baseline (block unless named), `map_seconds`, and `predicted_gain`
// (null without p_mpi).
nlohmann::ordered_json report_json(const Metrics& mapping, const Metrics& baseline, double map_seconds,
                                   const std::optional<Prediction>& prediction,
                                   const std::string& baseline_name = "block");

void print_comparison(std::ostream& out, const Metrics& mapping, const std::string& label, const Metrics& baseline,
                      const std::string& baseline_label = "block");

struct ReportRequest {
  std::string label;  // the mapping's column heading
  std::string json;   // JSON path, or empty
  double map_seconds = 0;
  std::optional<double> p_mpi;  // for predicted_gain; none: no prediction
  std::string p_mpi_source;     // "--p-mpi" or the profile's path
  std::string kept;             // map: the engine's candidate kept ("block" too); empty elsewhere
  std::string kept_why;         // when block was kept: why
  std::string nodes_why;        // map: why the mapping uses another number of nodes than block
  // What the mapping is compared with: block when null, else this mapping,
  // called `baseline_name` in the table and the JSON (baseline.name).
  const Mapping* baseline = nullptr;
  std::string baseline_name = "block";
  // map: say on stderr when the gain model predicts the mapping slower than
  // its baseline (the engine weighs hop-bytes, the model time).
  bool warn_if_slower = false;
  // A profile's traffic kinds for the flow model (LoadedGraph's); null or
  // empty: all of `graph` is point-to-point.
  const Graph* p2p = nullptr;
  const Graph* collective = nullptr;
  const std::vector<CollectiveCalls>* calls = nullptr;  // empty or null: collectives as chains
  // Flow model times already known (map: the engine's MapResult), each of
  // a mapping: used for a mapping on the same nodes, when computed, in
  // place of running the model again (HPCC 64 on the 4x4x4 torus: 1.5 s a
  // mapping).
  struct KnownFlow {
    Mapping of;
    FlowTimes times;
  };
  std::vector<KnownFlow> known_flows{};
  // The program model's times already known (map: MapResult::program), of
  // `of` against `baseline` at `p_mpi`: used when the report's mapping,
  // baseline and p_mpi are those (on the same nodes), in place of five
  // runs of the model (a second on the 128-rank irregular app).
  struct KnownProgram {
    Mapping of, baseline;
    double p_mpi = 0;
    ExchangeProgramTimes times;
  };
  std::optional<KnownProgram> known_program{};
  // Block's score when already under way (valid()), else computed here:
  // map starts it while the engine runs, as it takes seconds at a million
  // ranks.
  std::shared_future<Metrics> baseline_score{};
  // Threads for scoring (--threads; 0: every CPU). With 1, nothing runs
  // beside this thread.
  int threads = 0;
  // When set, the JSON report is put here, not written to `json`: map
  // writes it with the launch file, both or neither.
  std::string* json_text = nullptr;
};

// The engine's own flow times of what it kept and of block (MapResult), as
// the request's known_flows: the report does not run the model on them
// again.
std::vector<ReportRequest::KnownFlow> known_flows_of(const MapResult& result, const Allocation& allocation,
                                                     std::uint32_t ranks, bool oversubscribe);
// The engine's program model times (MapResult::program), found with p_mpi,
// as the request's known_program; none when it did not compute them.
std::optional<ReportRequest::KnownProgram> known_program_of(const MapResult& result, const Allocation& allocation,
                                                            std::uint32_t ranks, bool oversubscribe,
                                                            std::optional<double> p_mpi);

// Scores `mapping` and its baseline (block of the same allocation unless the
// request names another), writes the JSON report when asked and returns the
// comparison table, which the caller prints once its files have landed (a
// failed write shows no scores); with a prediction, the JSON's
// `predicted_slower` says whether the model expects the mapping to be
// slower than its baseline.
[[nodiscard]] std::string report(const Graph& graph, const Machine& machine, const Allocation& allocation,
                                 const Mapping& mapping, const ReportRequest& request);

// Writes through a temporary file; nothing is left on failure.
void write_json(const std::string& path, const nlohmann::ordered_json& doc);

}  // namespace rankmap::cli
