// --what bytes: two bar charts. The bytes each rank sends (binned to at
// most kBins bars, each the mean of its ranks), and the bytes leaving each
// node, block's bar beside the mapping's, under each node's host name.
#include <algorithm>
#include <cmath>

#include "plot_parts.hpp"

namespace rankmap::cli {
namespace {

constexpr int kBins = 512;
constexpr std::size_t kNodeGroups = 600;  // node bars at most
constexpr double kLeft = 70;
constexpr Colour kMappingColour{0.229, 0.322, 0.546};
constexpr Colour kBlockColour{0.62, 0.62, 0.62};

// A chart's frame and its y axis: 0, half and the top, labelled.
void frame(Canvas& c, double x0, double y0, double w, double h, double top, const std::string& title) {
  c.rectangle(x0 - 0.5, y0 - 0.5, w + 1, h + 1, {0.85, 0.85, 0.85});
  c.rectangle(x0, y0, w, h, {1, 1, 1});
  c.text(x0, y0 - 8, title, 11);
  for (double f : {0.0, 0.5, 1.0}) {
    c.rectangle(x0 - 4, y0 + h * (1 - f) - 0.5, 4, 1, {0.1, 0.1, 0.1});
    c.text(x0 - 6, y0 + h * (1 - f) + 4, f == 0 ? "0" : human(top * f), 10, 1);
  }
}

void rank_bars(Canvas& c, double x0, double y0, double w, double h, const std::vector<double>& values,
               nlohmann::ordered_json& doc) {
  const int n = static_cast<int>(values.size()), bins = std::min(n, kBins);
  std::vector<double> mean(bins, 0), count(bins, 0);
  for (int i = 0; i < n; ++i) {
    const int b = static_cast<int>(std::int64_t{i} * bins / n);
    mean[b] += values[i], count[b] += 1;
  }
  double top = 0;
  for (int b = 0; b < bins; ++b) top = std::max(top, mean[b] /= std::max(1.0, count[b]));
  const std::string title = "bytes each rank sends" + (bins < n ? " (" + std::to_string(n) + " ranks in " +
                                                                      std::to_string(bins) + " bars, each the mean)"
                                                                : std::string());
  frame(c, x0, y0, w, h, top, title);
  const double bw = w / bins;
  for (int b = 0; b < bins; ++b)
    if (top > 0 && mean[b] > 0) {
      const int first = static_cast<int>((std::int64_t{b} * n + bins - 1) / bins);
      c.rectangle(
          x0 + b * bw, y0 + h * (1 - mean[b] / top), std::max(bw - (bw > 3 ? 1 : 0), 0.5), h * mean[b] / top,
          kMappingColour,
          (count[b] > 1 ? "ranks " + std::to_string(first) + "-" + std::to_string(first + count[b] - 1) + ": mean "
                        : "rank " + std::to_string(first) + ": ") +
              human(mean[b]),
          "bar");
    }
  c.text(x0 + w / 2, y0 + h + 18, "rank 0 .. " + std::to_string(n - 1), 10, 0.5);
  doc["charts"].push_back(
      {{"title", title}, {"x", x0}, {"y", y0}, {"width", w}, {"height", h}, {"bars", bins}, {"top", top}});
}

}  // namespace

Picture plot_bytes(const PlotInput& in) {
  const Graph& g = in.loaded.graph;
  const std::size_t nodes = in.allocation.size();
  std::vector<double> per_rank(g.ranks, 0), block_out(nodes, 0), mapped_out(nodes, 0);
  for (std::uint32_t r = 0; r < g.ranks; ++r)
    for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e) {
      const double b = static_cast<double>(g.bytes[e]);
      per_rank[r] += b;
      if (in.block.ranks[r].node != in.block.ranks[g.targets[e]].node) block_out[in.block.ranks[r].node] += b;
      if (in.mapping && in.mapping->ranks[r].node != in.mapping->ranks[g.targets[e]].node)
        mapped_out[in.mapping->ranks[r].node] += b;
    }
  // Node bars: one group a node (beyond kNodeGroups nodes, the mean of a
  // run of nodes), block's bar then the mapping's.
  const int per_group = in.mapping ? 2 : 1;
  const std::size_t groups = std::min(nodes, kNodeGroups);
  auto group_of = [&](std::size_t k) { return k * groups / nodes; };
  std::vector<double> block_group(groups, 0), mapped_group(groups, 0), members(groups, 0);
  for (std::size_t k = 0; k < nodes; ++k)
    block_group[group_of(k)] += block_out[k], mapped_group[group_of(k)] += mapped_out[k], members[group_of(k)] += 1;
  for (std::size_t k = 0; k < groups; ++k) block_group[k] /= members[k], mapped_group[k] /= members[k];
  const double group = std::max(2.0, std::min(40.0, 1200.0 / static_cast<double>(groups)));
  const double chart_w = std::max(580.0, group * static_cast<double>(groups));
  const int width = static_cast<int>(kLeft + chart_w + 40), height = 520;
  Picture p{std::make_unique<Canvas>(in.format, width, height), {}};
  Canvas& c = *p.canvas;
  nlohmann::ordered_json doc = {{"what", "bytes"}, {"width", width}, {"height", height}};
  c.text(kLeft, 24, in.graph_name + ": bytes per rank and per node", 13);
  rank_bars(c, kLeft, 60, chart_w, 130, per_rank, doc);

  const double x0 = kLeft, y0 = 260, h = 150;
  double top = 0;
  for (std::size_t k = 0; k < groups; ++k) top = std::max({top, block_group[k], in.mapping ? mapped_group[k] : 0.0});
  const std::string title =
      (in.mapping ? "bytes leaving each node: block (grey) and " + in.mapping_name + " (blue)"
                  : "bytes leaving each node under block") +
      (groups < nodes ? " (" + std::to_string(nodes) + " nodes in " + std::to_string(groups) + " groups, each the mean)"
                      : std::string());
  frame(c, x0, y0, chart_w, h, top, title);
  const double bw = std::max(0.5, (group - (group > 4 ? 2 : 0)) / per_group);
  const std::size_t label_every = static_cast<std::size_t>(std::ceil(11 / group));
  nlohmann::ordered_json bars = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < groups; ++k) {
    const double gx = x0 + static_cast<double>(k) * group;
    const std::size_t first = (k * nodes + groups - 1) / groups;  // the group's first node
    const std::string host =
        host_name(in, static_cast<int>(first)) +
        (members[k] > 1 ? " and " + std::to_string(static_cast<int>(members[k]) - 1) + " more" : "");
    auto bar = [&](int i, double v, Colour colour, const std::string& who) {
      if (top > 0 && v > 0)
        c.rectangle(gx + i * bw, y0 + h * (1 - v / top), bw, h * v / top, colour,
                    host + " under " + who + ": " + human(v), "bar");
    };
    bar(0, block_group[k], in.mapping ? kBlockColour : kMappingColour, "block");
    if (in.mapping) bar(1, mapped_group[k], kMappingColour, in.mapping_name);
    if (k % label_every == 0)
      c.text(gx + group / 2 + 3.5, y0 + h + 6, host_name(in, static_cast<int>(first)), 9, 1, true);
    nlohmann::ordered_json one = {
        {"host", host_name(in, static_cast<int>(first))}, {"nodes", members[k]}, {"block", block_group[k]}};
    if (in.mapping) one["mapping"] = mapped_group[k];
    bars.push_back(std::move(one));
  }
  doc["charts"].push_back({{"title", title},
                           {"x", x0},
                           {"y", y0},
                           {"width", chart_w},
                           {"height", h},
                           {"top", top},
                           {"host_labels_every", label_every},
                           {"nodes", std::move(bars)}});
  p.layout = std::move(doc);
  return p;
}

}  // namespace rankmap::cli
