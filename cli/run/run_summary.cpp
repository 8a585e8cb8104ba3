#include "run_summary.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "rankmap/error.hpp"

namespace rankmap::cli {

RunSummary summary_of(const std::string& json_text, const std::string& name) {
  const nlohmann::json doc = nlohmann::json::parse(json_text, nullptr, false);
  auto number = [&](const nlohmann::json& v, const char* what) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || std::abs(v.get<double>()) > 1e300)
      throw Error(name, 0, std::string("expected a report with a number '") + what + "'");
    return v.get<double>();
  };
  auto count = [&](const nlohmann::json& v, const char* what) {
    const double n = number(v, what);
    if (n < 0 || n > 1e9 || n != static_cast<double>(static_cast<long long>(n)))
      throw Error(name, 0, std::string("expected a report with a count '") + what + "'");
    return static_cast<int>(n);
  };
  if (!doc.is_object() || !doc.contains("baseline") || !doc["baseline"].is_object())
    throw Error(name, 0, "expected a report of rankmap's (a JSON object with 'baseline')");
  RunSummary r;
  r.hop_bytes = number(doc.value("hop_bytes", nlohmann::json()), "hop_bytes");
  r.baseline_hop_bytes = number(doc["baseline"].value("hop_bytes", nlohmann::json()), "baseline.hop_bytes");
  r.nodes = count(doc.value("nodes", nlohmann::json()), "nodes");
  r.baseline_nodes = count(doc["baseline"].value("nodes", nlohmann::json()), "baseline.nodes");
  if (doc.contains("predicted_gain") && doc["predicted_gain"].is_number())
    r.gain = number(doc["predicted_gain"], "predicted_gain");
  return r;
}

}  // namespace rankmap::cli
