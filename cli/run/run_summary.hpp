// What `rankmap run`'s one line says of a mapping, read from the report's
// JSON, its own or a cached one: checked field by field, so that a cached
// report that is damaged or not rankmap's is an Error naming it, never an
// internal one.
#pragma once

#include <optional>
#include <string>

namespace rankmap::cli {

struct RunSummary {
  double hop_bytes = 0, baseline_hop_bytes = 0;
  int nodes = 0, baseline_nodes = 0;
  std::optional<double> gain;  // none without p_mpi
};

// Throws an input Error naming `name` for text that is not such a report.
RunSummary summary_of(const std::string& json_text, const std::string& name);

}  // namespace rankmap::cli
