// rankmap plot: pictures of a graph and a mapping, drawn with cairo (PNG,
// SVG or PDF by the output's extension):
//   --what matrix  the traffic matrix, senders down, receivers across, on a
//                  log colour scale; a profile's point-to-point and
//                  collective traffic side by side; ranks in rank order, or
//                  grouped by node under --mapping;
//   --what links   each directed link of the torus coloured by its bytes,
//                  2D slices (X across, Y down) of block and of the mapping
//                  side by side, the hottest link ringed in red;
//   --what bytes   bytes sent per rank and bytes leaving each node.
// Large inputs are binned: at most kBins cells a side, bars a chart, and
// the slices with the most loaded links. --json writes where everything
// was drawn, for other tools (and the tests).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <numeric>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common.hpp"
#include "plot_canvas.hpp"
#include "rankmap/baseline.hpp"
#include "rankmap/error.hpp"
#include "rankmap/io.hpp"
#include "rankmap/metrics.hpp"
#include "standard_output.hpp"

namespace rankmap::cli {
namespace {

constexpr int kBins = 512;      // matrix cells a side, bars a chart
constexpr int kMaxSlices = 8;   // torus slices a mapping
constexpr double kMargin = 70;  // left of a panel: tick labels and axis title

struct PlotOptions {
  std::string graph, mapping, format, output, json, what = "matrix";
  MachineOptions machine;
};

std::string human(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (bytes >= 1000 && u < 5) bytes /= 1000, ++u;
  char s[32];
  std::snprintf(s, sizeof s, bytes < 10 && u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
  return s;
}

// Where rank r goes along the axes: rank order, or by (node, slot).
std::vector<std::uint32_t> positions(std::uint32_t ranks, const Mapping* mapping) {
  std::vector<std::uint32_t> order(ranks), at(ranks);
  std::iota(order.begin(), order.end(), 0u);
  if (mapping)
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      const Placement& x = mapping->ranks[a];
      const Placement& y = mapping->ranks[b];
      return x.node != y.node ? x.node < y.node : x.slot < y.slot;
    });
  for (std::uint32_t i = 0; i < ranks; ++i) at[order[i]] = i;
  return at;
}

nlohmann::ordered_json plot_matrix(std::unique_ptr<Canvas>& canvas, const PlotOptions& o, const LoadedGraph& g,
                                   const Mapping* mapping) {
  std::vector<std::pair<std::string, const Graph*>> panels;
  if (g.p2p.ranks != 0)
    panels = {{"point-to-point and one-sided bytes", &g.p2p}, {"collective bytes (the shim's models)", &g.collective}};
  else
    panels = {{"bytes sent", &g.graph}};
  const std::uint32_t n = g.graph.ranks;
  const int bins = static_cast<int>(std::min<std::uint32_t>(n, kBins));
  const double size = 512, cell = size / bins;
  const std::vector<std::uint32_t> at = positions(n, mapping);
  auto bin = [&](std::uint32_t r) {
    return static_cast<int>(std::uint64_t{at[r]} * static_cast<std::uint64_t>(bins) / n);
  };
  std::vector<std::vector<double>> sums;
  LogScale scale{0, 0};
  for (const auto& [title, graph] : panels) {
    std::vector<double> m(static_cast<std::size_t>(bins) * bins, 0);
    for (std::uint32_t r = 0; r < graph->ranks; ++r)
      for (std::uint64_t e = graph->offsets[r]; e < graph->offsets[r + 1]; ++e)
        m[static_cast<std::size_t>(bin(r)) * bins + bin(graph->targets[e])] += static_cast<double>(graph->bytes[e]);
    for (double v : m)
      if (v > 0) scale.low = scale.low > 0 ? std::min(scale.low, v) : v, scale.high = std::max(scale.high, v);
    sums.push_back(std::move(m));
  }
  if (scale.high <= 0) scale = {1, 1};
  const double top = 60, panel_width = size + kMargin + 30;
  const int width = static_cast<int>(kMargin + panels.size() * panel_width + 80),
            height = static_cast<int>(top + size + 70);
  canvas = std::make_unique<Canvas>(picture_format(o.output), width, height);
  Canvas& c = *canvas;
  c.text(
      kMargin, 24,
      o.graph + ": traffic matrix" + (mapping ? ", ranks grouped by node under " + o.mapping : "") +
          (bins < static_cast<int>(n) ? " (" + std::to_string(n) + " ranks in " + std::to_string(bins) + " bins a side)"
                                      : ""),
      13);
  nlohmann::ordered_json doc = {{"what", "matrix"},
                                {"width", width},
                                {"height", height},
                                {"ranks", n},
                                {"bins", bins},
                                {"cell", cell},
                                {"scale", {{"low", scale.low}, {"high", scale.high}}}};
  for (std::size_t p = 0; p < panels.size(); ++p) {
    const double x0 = kMargin + p * panel_width, y0 = top;
    c.rectangle(x0 - 0.5, y0 - 0.5, size + 1, size + 1, 0.85, 0.85, 0.85);
    c.rectangle(x0, y0, size, size, 1, 1, 1);
    for (int i = 0; i < bins; ++i)
      for (int j = 0; j < bins; ++j)
        if (const double v = sums[p][static_cast<std::size_t>(i) * bins + j]; v > 0) {
          double r, gr, b;
          scale.colour(v, r, gr, b);
          c.rectangle(x0 + j * cell, y0 + i * cell, cell, cell, r, gr, b);
        }
    if (mapping) {  // node boundaries, where few enough to see
      std::vector<int> node_at(n);
      for (std::uint32_t r = 0; r < n; ++r) node_at[at[r]] = mapping->ranks[r].node;
      int boundaries = 0;
      for (std::uint32_t i = 1; i < n; ++i) boundaries += node_at[i] != node_at[i - 1];
      if (boundaries <= 64)
        for (std::uint32_t i = 1; i < n; ++i)
          if (node_at[i] != node_at[i - 1]) {
            const double pos = size * i / n;
            c.rectangle(x0 + pos - 0.25, y0, 0.5, size, 0.6, 0.6, 0.6);
            c.rectangle(x0, y0 + pos - 0.25, size, 0.5, 0.6, 0.6, 0.6);
          }
    }
    for (int k = 0; k <= 4; ++k) {  // ticks at 0, n/4, ... n-1
      const std::uint32_t pos = k == 4 ? n - 1 : static_cast<std::uint32_t>(std::uint64_t{n} * k / 4);
      const double along = size * (pos + 0.5) / n;
      c.rectangle(x0 + along - 0.5, y0 + size, 1, 4, 0.1, 0.1, 0.1);
      c.rectangle(x0 - 4, y0 + along - 0.5, 4, 1, 0.1, 0.1, 0.1);
      c.text(x0 + along, y0 + size + 16, std::to_string(pos), 10, 0.5);
      c.text(x0 - 6, y0 + along + 4, std::to_string(pos), 10, 1);
    }
    const std::string axis = mapping ? "rank position, grouped by node" : "rank";
    c.text(x0 + size / 2, y0 + size + 34, "receiver " + axis, 11, 0.5);
    c.text(x0 - 44, y0 + size / 2, "sender " + axis, 11, 0.5, true);
    c.text(x0, y0 - 8, panels[p].first + " (total " + human(static_cast<double>(panels[p].second->total_bytes())) + ")",
           11);
    doc["panels"].push_back({{"title", panels[p].first}, {"x", x0}, {"y", y0}, {"size", size}});
  }
  scale.draw_bar(c, kMargin + panels.size() * panel_width - 10, top + 20, size - 40, "bytes");
  return doc;
}

// A torus's links in 2D slices: X across, Y down, the other coordinates
// fixed per slice.
nlohmann::ordered_json plot_links(std::unique_ptr<Canvas>& canvas, const PlotOptions& o, const Machine& machine,
                                  const std::vector<std::pair<std::string, Metrics>>& sides) {
  const Network& net = machine.network;
  if (net.is_tree())
    throw Error("--what", 0, "links are drawn for tori and meshes; this machine is a " + net.kind_name());
  const int nx = net.dims[0], ny = net.num_dims() > 1 ? net.dims[1] : 1;
  const std::size_t per_slice = static_cast<std::size_t>(nx) * ny, slices = net.num_coords() / per_slice;
  // The slices holding the most loaded links of either side, in order.
  std::vector<std::uint64_t> slice_max(slices, 0);
  for (const auto& [name, m] : sides)
    for (std::size_t l = 0; l < m.link_bytes.size(); ++l)
      slice_max[l / (2 * net.dims.size()) / per_slice] =
          std::max(slice_max[l / (2 * net.dims.size()) / per_slice], m.link_bytes[l]);
  std::vector<std::size_t> chosen(slices);
  std::iota(chosen.begin(), chosen.end(), 0);
  std::stable_sort(chosen.begin(), chosen.end(),
                   [&](std::size_t a, std::size_t b) { return slice_max[a] > slice_max[b]; });
  chosen.resize(std::min<std::size_t>(chosen.size(), kMaxSlices));
  std::sort(chosen.begin(), chosen.end());
  LogScale scale{0, 0};
  for (const auto& [name, m] : sides)
    for (std::uint64_t v : m.link_bytes)
      if (v > 0)
        scale.low = scale.low > 0 ? std::min<double>(scale.low, v) : v, scale.high = std::max<double>(scale.high, v);
  if (scale.high <= 0) scale = {1, 1};
  const double s = std::clamp(320.0 / std::max(nx, ny), 12.0, 48.0), pad = s;
  const double slice_w = nx * s + pad, slice_h = ny * s + pad + 16;
  const double side_w = slice_w * std::min<std::size_t>(chosen.size(), 2) + 20;
  const double rows = std::ceil(chosen.size() / 2.0);
  const int width = static_cast<int>(40 + sides.size() * side_w + 90),
            height = static_cast<int>(90 + rows * slice_h + 40);
  canvas = std::make_unique<Canvas>(picture_format(o.output), width, height);
  Canvas& c = *canvas;
  cairo_t* cr = c.cr();
  c.text(40, 24,
         o.graph + ": bytes on each directed link (" + std::to_string(chosen.size()) + " of " + std::to_string(slices) +
             " XY slices, those with the most loaded links)",
         13);
  nlohmann::ordered_json doc = {{"what", "links"},  {"width", width},
                                {"height", height}, {"spacing", s},
                                {"offset", 3},      {"scale", {{"low", scale.low}, {"high", scale.high}}}};
  for (std::size_t k = 0; k < sides.size(); ++k) {
    const auto& [name, m] = sides[k];
    const double sx = 40 + k * side_w;
    const std::size_t hottest =
        static_cast<std::size_t>(std::max_element(m.link_bytes.begin(), m.link_bytes.end()) - m.link_bytes.begin());
    c.text(sx, 52,
           name + ": most loaded link " + human(static_cast<double>(m.max_link_bytes)) + ", " + net.link_name(hottest),
           11);
    nlohmann::ordered_json side = {{"title", name}, {"hottest", net.link_name(hottest)}};
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      const double ox = sx + (i % 2) * slice_w + pad / 2, oy = 80 + (i / 2) * slice_h + pad / 2 + 12;
      std::string label = "slice";
      std::size_t rest = chosen[i];
      for (int d = 2; d < net.num_dims(); ++d) {
        label += std::string(d == 2 ? " " : ",") + "XYZWVU"[d] + "=" + std::to_string(rest % net.dims[d]);
        rest /= net.dims[d];
      }
      c.text(ox - pad / 2, oy - pad / 2 - 2, net.num_dims() > 2 ? label : "X across, Y down", 10);
      side["slices"].push_back({{"slice", chosen[i]}, {"x", ox}, {"y", oy}});
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
          const std::size_t coord = chosen[i] * per_slice + static_cast<std::size_t>(y) * nx + x;
          const double cx = ox + x * s, cy = oy + y * s;
          for (int d = 0; d < std::min(2, net.num_dims()); ++d)
            for (int sign : {+1, -1}) {
              const int pos = d == 0 ? x : y, size = net.dims[d];
              const bool edge = pos + sign < 0 || pos + sign >= size;
              if ((edge && !net.wrap[d]) || (size == 2 && sign < 0) || size == 1) continue;
              const std::uint64_t v = m.link_bytes[net.link_id(coord, d, sign)];
              double r = 0.88, g = 0.88, b = 0.88;
              if (v > 0) scale.colour(static_cast<double>(v), r, g, b);
              const double len = edge ? 0.45 * s : s - 6;  // a wrap link leaves the slice
              const double off = sign > 0 ? -3 : 3;        // + above or left of -, - below or right
              double x1 = cx, y1 = cy, x2 = cx, y2 = cy;
              if (d == 0)
                y1 = y2 = cy + off, x1 = cx + sign * 3, x2 = cx + sign * (3 + len);
              else
                x1 = x2 = cx + off, y1 = cy + sign * 3, y2 = cy + sign * (3 + len);
              cairo_set_source_rgb(cr, r, g, b);
              cairo_set_line_width(cr, 3);
              cairo_move_to(cr, x1, y1);
              cairo_line_to(cr, x2, y2);
              cairo_stroke(cr);
              if (net.link_id(coord, d, sign) == hottest && v > 0) {
                cairo_set_source_rgb(cr, 0.85, 0.1, 0.1);
                cairo_set_line_width(cr, 2);
                cairo_arc(cr, (x1 + x2) / 2, (y1 + y2) / 2, std::max(6.0, len / 2 + 3), 0, 2 * M_PI);
                cairo_stroke(cr);
              }
            }
          cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
          cairo_arc(cr, cx, cy, 2.5, 0, 2 * M_PI);
          cairo_fill(cr);
        }
    }
    doc["sides"].push_back(side);
  }
  if (net.num_dims() > 2) {
    std::uint64_t other = 0;
    for (const auto& [name, m] : sides)
      for (std::size_t l = 0; l < m.link_bytes.size(); ++l)
        if (static_cast<int>(l % (2 * net.dims.size()) / 2) >= 2) other = std::max(other, m.link_bytes[l]);
    c.text(40, height - 14,
           "Links along Z and higher are not drawn; the most loaded carries " + human(static_cast<double>(other)) + ".",
           10);
  }
  scale.draw_bar(c, width - 80, 90, std::max(120.0, rows * slice_h - 40), "bytes");
  return doc;
}

// Bars of `values` (binned: the mean of each bin) in a box.
void bars(Canvas& c, double x0, double y0, double w, double h, const std::vector<double>& values,
          const std::string& title, const std::string& axis, nlohmann::ordered_json& doc) {
  const int n = static_cast<int>(values.size()), bins = std::min(n, kBins);
  std::vector<double> mean(bins, 0), count(bins, 0);
  for (int i = 0; i < n; ++i) {
    const int b = static_cast<int>(std::int64_t{i} * bins / n);
    mean[b] += values[i], count[b] += 1;
  }
  double top = 0;
  for (int b = 0; b < bins; ++b) top = std::max(top, mean[b] /= std::max(1.0, count[b]));
  c.rectangle(x0 - 0.5, y0 - 0.5, w + 1, h + 1, 0.85, 0.85, 0.85);
  c.rectangle(x0, y0, w, h, 1, 1, 1);
  const double bw = w / bins;
  for (int b = 0; b < bins; ++b)
    if (top > 0 && mean[b] > 0)
      c.rectangle(x0 + b * bw, y0 + h * (1 - mean[b] / top), std::max(bw - (bw > 3 ? 1 : 0), 0.5), h * mean[b] / top,
                  0.229, 0.322, 0.546);
  c.text(x0, y0 - 8,
         title + (bins < n ? " (" + std::to_string(n) + " in " + std::to_string(bins) + " bars, each the mean)" : ""),
         11);
  c.text(x0 - 6, y0 + 4, human(top), 10, 1);
  c.text(x0 - 6, y0 + h + 4, "0", 10, 1);
  c.text(x0 + w / 2, y0 + h + 18, axis + " 0 .. " + std::to_string(n - 1), 10, 0.5);
  doc["charts"].push_back(
      {{"title", title}, {"x", x0}, {"y", y0}, {"width", w}, {"height", h}, {"bars", bins}, {"top", top}});
}

nlohmann::ordered_json plot_bytes(std::unique_ptr<Canvas>& canvas, const PlotOptions& o, const Graph& g,
                                  const Mapping& mapping, const std::string& mapping_name, std::size_t nodes) {
  std::vector<double> per_rank(g.ranks, 0), per_node(nodes, 0);
  for (std::uint32_t r = 0; r < g.ranks; ++r)
    for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e) {
      per_rank[r] += static_cast<double>(g.bytes[e]);
      if (mapping.ranks[r].node != mapping.ranks[g.targets[e]].node)
        per_node[mapping.ranks[r].node] += static_cast<double>(g.bytes[e]);
    }
  const int width = 700, height = 420;
  canvas = std::make_unique<Canvas>(picture_format(o.output), width, height);
  nlohmann::ordered_json doc = {{"what", "bytes"}, {"width", width}, {"height", height}};
  canvas->text(kMargin, 24, o.graph + ": bytes per rank and per node", 13);
  bars(*canvas, kMargin, 60, 580, 130, per_rank, "bytes each rank sends", "rank", doc);
  bars(*canvas, kMargin, 250, 580, 130, per_node, "bytes leaving each node under " + mapping_name, "node", doc);
  return doc;
}

int run_plot(const PlotOptions& given) {
  StandardOutput standard;  // "-": the picture as SVG, text for a pipe
  PlotOptions o = given;
  o.output = standard.path_for(given.output, "picture.svg", "output");
  o.json = standard.path_for(given.json, "layout.json", "json");
  picture_format(o.output);  // refuses a bad extension before any work
  const LoadedGraph g = load_graph(o.graph);
  std::optional<Mapping> mapping;
  Mapping read;
  const auto [machine, allocation] =
      o.mapping.empty() ? load(o.machine) : load_for_launch_file(o.machine, o.mapping, o.format, g.graph.ranks, read);
  if (!o.mapping.empty()) mapping = std::move(read);
  check_outputs({o.output, o.json});
  std::unique_ptr<Canvas> canvas;
  nlohmann::ordered_json doc;
  if (o.what == "matrix") {
    doc = plot_matrix(canvas, o, g, mapping ? &*mapping : nullptr);
  } else {
    const Mapping block = baseline_mapping(Baseline::block, allocation, g.graph.ranks);
    if (o.what == "links") {
      std::vector<std::pair<std::string, Metrics>> sides{{"block", evaluate(g.graph, machine, allocation, block)}};
      if (mapping) sides.push_back({o.mapping, evaluate(g.graph, machine, allocation, *mapping)});
      doc = plot_links(canvas, o, machine, sides);
    } else {
      doc =
          plot_bytes(canvas, o, g.graph, mapping ? *mapping : block, mapping ? o.mapping : "block", allocation.size());
    }
  }
  std::vector<FilePart> parts{{"", canvas->finish()}};
  if (!o.json.empty()) parts.push_back({"", doc.dump(2) + "\n", o.json});  // the picture and its layout land together
  write_files_atomically(o.output, parts);
  standard.flush();
  standard.lines() << "wrote " << printable(standard.shown(o.output)) << "\n";
  return 0;
}

}  // namespace

void add_plot(CLI::App& app, Action& action) {
  auto o = std::make_shared<PlotOptions>();
  CLI::App* cmd =
      app.add_subcommand("plot", "Draw the traffic matrix, the link loads or the bytes per rank (PNG, SVG, PDF)");
  cmd->add_option("graph", o->graph, "Communication graph (.rmp .mtx .graph .grf .csv)")->required();
  o->machine.add_to(*cmd);
  cmd->add_option("--what", o->what, "matrix, links or bytes")
      ->capture_default_str()
      ->check(CLI::IsMember({"matrix", "links", "bytes"}));
  cmd->add_option("--mapping", o->mapping, "A launch file: group the matrix by node, draw its links next to block's");
  cmd->add_option("--mapping-format", o->format, "Its format (default: guessed from the content)");
  cmd->add_option("--output,-o", o->output, "Picture to write: .png, .svg or .pdf")->required();
  cmd->add_option("--json", o->json, "Where each panel was drawn, as JSON");
  cmd->footer("Example: rankmap plot app.rmp -m machine.toml --mapping job.rankfile --what links -o links.png");
  cmd->callback([o, &action] { action = [o] { return run_plot(*o); }; });
}

}  // namespace rankmap::cli
