#include "report.hpp"

#include <cstdio>
#include <iostream>

#include "rankmap/baseline.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/io.hpp"

namespace rankmap::cli {

nlohmann::ordered_json metrics_json(const Metrics& m) {
  return {
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
  };
}

nlohmann::ordered_json report_json(const Metrics& mapping, const Metrics& block, const Network& net,
                           double map_seconds, std::optional<double> p_mpi) {
  nlohmann::ordered_json doc = metrics_json(mapping);
  doc["map_seconds"] = map_seconds;
  doc["baseline"] = metrics_json(block);
  doc["baseline"]["name"] = "block";
  if (p_mpi) {
    doc["p_mpi"] = *p_mpi;
    doc["predicted_gain"] = predicted_gain(net, *p_mpi, block.avg_hops_by_msgs, mapping.avg_hops_by_msgs);
  } else {
    doc["predicted_gain"] = nullptr;
  }
  return doc;
}

void print_comparison(std::ostream& out, const Metrics& m, const std::string& label, const Metrics& b) {
  char line[160];
  auto row = [&](const char* name, double ours, double base, const char* fmt) {
    char a[40], c[40];
    std::snprintf(a, sizeof a, fmt, ours);
    std::snprintf(c, sizeof c, fmt, base);
    const double ratio = base != 0 ? ours / base : (ours == 0 ? 1.0 : 0.0);
    std::snprintf(line, sizeof line, "%-20s %20s %20s %8.3f\n", name, a, c, base != 0 || ours == 0 ? ratio : 0.0);
    out << line;
  };
  std::snprintf(line, sizeof line, "%-20s %20s %20s %8s\n", "", label.c_str(), "block", "ratio");
  out << line;
  auto u = [](std::uint64_t v) { return static_cast<double>(v); };
  row("hop-bytes", u(m.hop_bytes), u(b.hop_bytes), "%.0f");
  row("avg dilation", m.avg_dilation, b.avg_dilation, "%.4f");
  row("max dilation", m.max_dilation, b.max_dilation, "%.0f");
  row("max link bytes", u(m.max_link_bytes), u(b.max_link_bytes), "%.0f");
  row("inter-node bytes", u(m.inter_node_bytes), u(b.inter_node_bytes), "%.0f");
  row("cross-socket bytes", u(m.cross_socket_bytes), u(b.cross_socket_bytes), "%.0f");
  std::snprintf(line, sizeof line, "%llu ranks on %llu nodes, %llu bytes in %llu messages\n",
                static_cast<unsigned long long>(m.ranks), static_cast<unsigned long long>(m.nodes),
                static_cast<unsigned long long>(m.total_bytes), static_cast<unsigned long long>(m.total_msgs));
  out << line;
}

void report(const Graph& graph, const Machine& machine, const Allocation& allocation, const Mapping& mapping,
            const ReportRequest& request) {
  const Metrics ours = evaluate(graph, machine, allocation, mapping);
  const Metrics block = evaluate(graph, machine, allocation, baseline_mapping(Baseline::block, allocation, graph.ranks));
  print_comparison(std::cout, ours, request.label, block);
  if (!request.json.empty())
    write_json(request.json, report_json(ours, block, machine.network, request.map_seconds, request.p_mpi));
}

void write_json(const std::string& path, const nlohmann::ordered_json& doc) {
  write_files_atomically(path, {{"", doc.dump(2) + "\n"}});
}

}  // namespace rankmap::cli
