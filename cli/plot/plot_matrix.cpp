// --what matrix and --what hops: square panels of rank pairs, senders down
// and receivers across, binned to at most kBins cells a side.
//   matrix  the traffic (bytes, messages, or bytes a message by --weight)
//           on a log scale; a profile's point-to-point and collective
//           traffic side by side; ranks grouped by node under the mapping
//           (block's order without one), each node's host named along the
//           edges and its boundary drawn;
//   hops    the hops between each pair's nodes, bytes-weighted per cell,
//           under block and under the mapping, in rank order: what a
//           mapping changed, even at one rank a node where the matrix
//           only permutes. Each panel names its own mapping's hosts.
// In SVG each cell has a <title>: its ranks, their hosts and its value.
#include <algorithm>
#include <functional>
#include <numeric>

#include "plot_parts.hpp"
#include "rankmap/error.hpp"

namespace rankmap::cli {
namespace {

constexpr int kBins = 512;        // cells a side at most
constexpr double kSize = 512;     // a panel's side
constexpr double kLeft = 70;      // left of a panel: rank ticks and axis title
constexpr double kTop = 120;      // above the panels: title and receivers' hosts
constexpr double kHostRoom = 90;  // right of a panel: senders' hosts
constexpr double kLabel = 11;     // the least room for one host's label

// One panel's cells: a value per (sender bin, receiver bin), and whether
// any traffic fell in it (a cell of 0 hops is still drawn).
struct Panel {
  std::string title;
  std::vector<double> value;
  std::vector<char> used;
  const Mapping* hosts_by = nullptr;  // whose nodes name this panel's hosts; nullptr: the layout's
};

// The ranks in the order drawn: by (node, slot) of `grouping`, or rank
// order; order[position] = rank.
std::vector<std::uint32_t> drawing_order(std::uint32_t ranks, const Mapping* grouping) {
  std::vector<std::uint32_t> order(ranks);
  std::iota(order.begin(), order.end(), 0u);
  if (grouping)
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      const Placement& x = grouping->ranks[a];
      const Placement& y = grouping->ranks[b];
      return x.node != y.node ? x.node < y.node : x.slot < y.slot;
    });
  return order;
}

// Who a bin holds, for the cells' titles: "rank 5 (n03)", "ranks 4-7 (n03)",
// "ranks 4, 9, 13, ... (12 ranks on n03, n05)".
std::string who(const PlotInput& in, const Mapping& hosts_by, const std::vector<std::uint32_t>& order,
                std::size_t first, std::size_t last) {
  std::vector<std::uint32_t> ranks(order.begin() + static_cast<std::ptrdiff_t>(first),
                                   order.begin() + static_cast<std::ptrdiff_t>(last));
  std::sort(ranks.begin(), ranks.end());
  std::vector<int> nodes;
  for (std::uint32_t r : ranks)
    if (std::find(nodes.begin(), nodes.end(), hosts_by.ranks[r].node) == nodes.end())
      nodes.push_back(hosts_by.ranks[r].node);
  std::string text;
  if (ranks.size() == 1) {
    text = "rank " + std::to_string(ranks[0]);
  } else if (ranks.back() - ranks.front() + 1 == ranks.size()) {
    text = "ranks " + std::to_string(ranks.front()) + "-" + std::to_string(ranks.back());
  } else {
    text = "ranks ";
    for (std::size_t i = 0; i < std::min<std::size_t>(ranks.size(), 3); ++i) text += std::to_string(ranks[i]) + ", ";
    text += ranks.size() > 3 ? "..." : "";
    if (text.ends_with(", ")) text.resize(text.size() - 2);
  }
  std::string where;
  for (std::size_t i = 0; i < std::min<std::size_t>(nodes.size(), 3); ++i)
    where += (i ? ", " : "") + host_name(in, nodes[i]);
  if (nodes.size() > 3) where += ", ... (" + std::to_string(nodes.size()) + " nodes)";
  return text + " (" + (ranks.size() > 3 ? std::to_string(ranks.size()) + " ranks on " : "") + where + ")";
}

struct Layout {
  const PlotInput& in;
  std::uint32_t n;
  int bins;
  std::vector<std::uint32_t> order;  // position -> rank
  const Mapping* hosts_by;           // whose nodes name the hosts along the edges
  int bin_of(std::uint32_t position) const {
    return static_cast<int>(std::uint64_t{position} * static_cast<std::uint64_t>(bins) / n);
  }
  std::size_t bin_start(int b) const {
    return static_cast<std::size_t>((std::uint64_t{n} * static_cast<std::uint64_t>(b) + bins - 1) / bins);
  }
};

// Draws the panels side by side with the scale's bar; `describe` gives a
// cell's value in words for its title. The layout (for --json) says
// `what` was drawn.
Picture draw_panels(const std::string& what, const Layout& l, const std::vector<Panel>& panels,
                    const ColourScale& scale, const std::string& heading, const std::string& axis,
                    const std::string& bar_title, const std::function<std::string(double)>& bar_label,
                    const std::function<std::string(double)>& describe) {
  const double cell = kSize / l.bins, panel_width = kSize + kLeft + kHostRoom;
  const int width = static_cast<int>(kLeft + panels.size() * panel_width + 90),
            height = static_cast<int>(kTop + kSize + 70);
  Picture p{std::make_unique<Canvas>(l.in.format, width, height), {}};
  Canvas& c = *p.canvas;
  c.text(kLeft, 24, heading, 13);
  const bool svg = l.in.format == "svg";
  nlohmann::ordered_json doc = {
      {"what", what},          {"width", width},
      {"height", height},      {"ranks", l.n},
      {"bins", l.bins},        {"cell", cell},
      {"weight", l.in.weight}, {"scale", {{"low", scale.low}, {"high", scale.high}, {"log", scale.log}}}};
  for (std::size_t k = 0; k < panels.size(); ++k) {
    // The hosts' bands along the drawing order, under this panel's mapping.
    const Mapping& hosts_by = panels[k].hosts_by ? *panels[k].hosts_by : *l.hosts_by;
    struct Band {
      int node;
      std::uint32_t first, count;
    };
    std::vector<Band> bands;
    for (std::uint32_t pos = 0; pos < l.n; ++pos) {
      const int node = hosts_by.ranks[l.order[pos]].node;
      if (bands.empty() || bands.back().node != node) bands.push_back({node, pos, 0});
      ++bands.back().count;
    }
    const double band_px = kSize / static_cast<double>(bands.size());
    const bool boundaries = bands.size() > 1 && band_px >= 2;  // 2 ranks a node stay visible up to 512 ranks
    const std::size_t label_every = static_cast<std::size_t>(std::ceil(kLabel / band_px));
    std::vector<std::string> who_at;  // per bin, for titles
    if (svg)
      for (int b = 0; b < l.bins; ++b)
        who_at.push_back(who(l.in, hosts_by, l.order, l.bin_start(b), l.bin_start(b + 1)));

    const double x0 = kLeft + k * panel_width, y0 = kTop;
    c.rectangle(x0 - 0.5, y0 - 0.5, kSize + 1, kSize + 1, {0.85, 0.85, 0.85});
    c.rectangle(x0, y0, kSize, kSize, {1, 1, 1});
    for (int i = 0; i < l.bins; ++i)
      for (int j = 0; j < l.bins; ++j) {
        const std::size_t at = static_cast<std::size_t>(i) * l.bins + j;
        if (!panels[k].used[at]) continue;
        c.rectangle(x0 + j * cell, y0 + i * cell, cell, cell, scale.colour(panels[k].value[at]),
                    svg ? who_at[i] + " to " + who_at[j] + ": " + describe(panels[k].value[at]) : "", "cell");
      }
    if (boundaries)
      for (std::size_t b = 1; b < bands.size(); ++b) {
        const double pos = kSize * bands[b].first / l.n;
        c.rectangle(x0 + pos - 0.25, y0, 0.5, kSize, {0.6, 0.6, 0.6}, "", "boundary");
        c.rectangle(x0, y0 + pos - 0.25, kSize, 0.5, {0.6, 0.6, 0.6}, "", "boundary");
      }
    // Hosts: receivers along the top, senders down the right, each
    // band's name where it has room (else every label_every-th).
    for (std::size_t b = 0; b < bands.size(); b += label_every) {
      const double mid = kSize * (bands[b].first + bands[b].count / 2.0) / l.n;
      const std::string& host = host_name(l.in, bands[b].node);
      c.text(x0 + mid + 3.5, y0 - 4, host, 9, 0, true);
      c.text(x0 + kSize + 4, y0 + mid + 3.5, host, 9);
    }
    for (int t = 0; t <= 4; ++t) {  // rank positions at 0, n/4, ... n-1
      const std::uint32_t pos = t == 4 ? l.n - 1 : static_cast<std::uint32_t>(std::uint64_t{l.n} * t / 4);
      const double along = kSize * (pos + 0.5) / l.n;
      c.rectangle(x0 + along - 0.5, y0 + kSize, 1, 4, {0.1, 0.1, 0.1});
      c.rectangle(x0 - 4, y0 + along - 0.5, 4, 1, {0.1, 0.1, 0.1});
      c.text(x0 + along, y0 + kSize + 16, std::to_string(pos), 10, 0.5);
      c.text(x0 - 6, y0 + along + 4, std::to_string(pos), 10, 1);
    }
    c.text(x0 + kSize / 2, y0 + kSize + 34, "receiver " + axis, 11, 0.5);
    c.text(x0 - 44, y0 + kSize / 2, "sender " + axis, 11, 0.5, true);
    c.text(x0, 44, panels[k].title, 11);
    nlohmann::ordered_json hosts = nlohmann::ordered_json::array();
    for (const Band& b : bands)
      hosts.push_back({{"host", host_name(l.in, b.node)}, {"first", b.first}, {"count", b.count}});
    doc["panels"].push_back({{"title", panels[k].title},
                             {"x", x0},
                             {"y", y0},
                             {"size", kSize},
                             {"hosts", hosts},
                             {"host_labels_every", label_every},
                             {"boundaries", boundaries}});
    if (k == 0) {  // the first panel's, as before panels had hosts of their own
      doc["hosts"] = std::move(hosts);
      doc["host_labels_every"] = label_every;
      doc["boundaries"] = boundaries;
    }
  }
  doc["scale"]["labels"] =
      scale.draw_bar(c, kLeft + panels.size() * panel_width - 10, kTop + 20, kSize - 40, bar_title, bar_label);
  doc["order"] = l.order;
  p.layout = std::move(doc);
  return p;
}

}  // namespace

Picture plot_matrix(const PlotInput& in) {
  const LoadedGraph& g = in.loaded;
  std::vector<std::pair<std::string, const Graph*>> sources;
  if (g.p2p.ranks != 0)
    sources = {{"point-to-point and one-sided", &g.p2p}, {"collective (the shim's models)", &g.collective}};
  else
    sources = {{"all traffic", &g.graph}};
  const Layout l{in, g.graph.ranks, static_cast<int>(std::min<std::uint32_t>(g.graph.ranks, kBins)),
                 drawing_order(g.graph.ranks, in.mapping), in.mapping ? in.mapping : &in.block};
  std::vector<std::uint32_t> position(l.n);
  for (std::uint32_t pos = 0; pos < l.n; ++pos) position[l.order[pos]] = pos;
  const std::size_t cells = static_cast<std::size_t>(l.bins) * l.bins;
  std::vector<Panel> panels;
  ColourScale scale{0, 0};
  for (const auto& [name, graph] : sources) {
    std::vector<double> bytes(cells, 0), msgs(cells, 0);
    for (std::uint32_t r = 0; r < graph->ranks; ++r)
      for (std::uint64_t e = graph->offsets[r]; e < graph->offsets[r + 1]; ++e) {
        const std::size_t at = static_cast<std::size_t>(l.bin_of(position[r])) * l.bins +
                               static_cast<std::size_t>(l.bin_of(position[graph->targets[e]]));
        bytes[at] += static_cast<double>(graph->bytes[e]);
        msgs[at] += static_cast<double>(graph->msgs[e]);
      }
    Panel panel{name, std::vector<double>(cells, 0), std::vector<char>(cells, 0)};
    for (std::size_t at = 0; at < cells; ++at) {
      const double v = in.weight == "msgs"   ? msgs[at]
                       : in.weight == "mean" ? (msgs[at] > 0 ? bytes[at] / msgs[at] : 0)
                                             : bytes[at];
      if (v <= 0) continue;
      panel.value[at] = v, panel.used[at] = 1;
      scale.low = scale.low > 0 ? std::min(scale.low, v) : v, scale.high = std::max(scale.high, v);
    }
    const double total = static_cast<double>(in.weight == "msgs" ? graph->total_msgs() : graph->total_bytes());
    panel.title = name + " (total " + (in.weight == "msgs" ? human(total, "") + " messages" : human(total)) + ")";
    panels.push_back(std::move(panel));
  }
  if (scale.high <= 0) scale = {1, 1};
  // One value in every cell (a uniform matrix): a decade below it, so the
  // bar keeps its ticks (README: at least 4) and the cells their top colour.
  if (scale.high <= scale.low) scale.low = scale.high / 10;
  const std::string what = in.weight == "msgs" ? "messages" : in.weight == "mean" ? "bytes a message" : "bytes";
  const std::string unit = in.weight == "msgs" ? "" : "B";
  bool one_a_node = in.mapping != nullptr;
  if (in.mapping) {
    std::vector<int> per(in.allocation.size(), 0);
    for (const Placement& p : in.mapping->ranks) one_a_node = one_a_node && ++per[p.node] == 1;
  }
  const std::string heading = in.graph_name + ": " + what + " between ranks, grouped by node under " + in.mapping_name +
                              (l.bins < static_cast<int>(l.n) ? " (" + std::to_string(l.n) + " ranks in " +
                                                                    std::to_string(l.bins) + " bins a side)"
                                                              : "") +
                              (one_a_node ? "; one rank a node: --what hops shows what changed" : "");
  return draw_panels(
      "matrix", l, panels, scale, heading, in.mapping ? "position, grouped by node" : "rank", what,
      [&](double v) { return human(v, unit); },
      [&](double v) {
        if (in.weight == "msgs") return human(v, "") + (v == 1 ? " message" : " messages");
        return human(v, unit) + (in.weight == "mean" ? " a message" : "");
      });
}

Picture plot_hops(const PlotInput& in) {
  if (!in.mapping)
    throw Error(ErrorKind::argument, Parameter{"what"}, "hops compares a mapping with block: give --mapping");
  const Graph& g = in.loaded.graph;
  const Layout l{in, g.ranks, static_cast<int>(std::min<std::uint32_t>(g.ranks, kBins)),
                 drawing_order(g.ranks, nullptr), &in.block};
  const std::size_t cells = static_cast<std::size_t>(l.bins) * l.bins;
  const Network& net = in.machine.network;
  auto hops = [&](const Mapping& m, std::uint32_t a, std::uint32_t b) {
    const Node& x = in.machine.nodes[static_cast<std::size_t>(in.allocation.nodes[m.ranks[a].node])];
    const Node& y = in.machine.nodes[static_cast<std::size_t>(in.allocation.nodes[m.ranks[b].node])];
    return net.hops(x.coord, y.coord);
  };
  std::vector<Panel> panels;
  for (const auto& [name, m] :
       {std::pair<std::string, const Mapping*>{"block", &in.block}, {in.mapping_name, in.mapping}}) {
    std::vector<double> hop_bytes(cells, 0), bytes(cells, 0);
    Panel panel{name, std::vector<double>(cells, 0), std::vector<char>(cells, 0), m};
    double total_hop_bytes = 0, total_bytes = 0;
    for (std::uint32_t r = 0; r < g.ranks; ++r)
      for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e) {
        if (g.targets[e] == r) continue;
        const std::size_t at =
            static_cast<std::size_t>(l.bin_of(r)) * l.bins + static_cast<std::size_t>(l.bin_of(g.targets[e]));
        const double b = static_cast<double>(std::max<std::uint64_t>(g.bytes[e], 1));
        const double h = hops(*m, r, g.targets[e]);
        hop_bytes[at] += h * b, bytes[at] += b, panel.used[at] = 1;
        total_hop_bytes += h * static_cast<double>(g.bytes[e]), total_bytes += static_cast<double>(g.bytes[e]);
      }
    for (std::size_t at = 0; at < cells; ++at)
      if (panel.used[at]) panel.value[at] = hop_bytes[at] / bytes[at];
    char mean[32];
    std::snprintf(mean, sizeof mean, "%.2f", total_bytes > 0 ? total_hop_bytes / total_bytes : 0.0);
    panel.title = name + ": " + mean + " hops a byte";
    panels.push_back(std::move(panel));
  }
  const ColourScale scale{0, static_cast<double>(std::max(1, net.diameter())), false};
  auto hop_text = [](double v) {
    char s[32];
    std::snprintf(s, sizeof s, v == std::floor(v) ? "%.0f" : "%.1f", v);
    return std::string(s);
  };
  return draw_panels(
      "hops", l, panels, scale,
      in.graph_name + ": hops between the nodes of each communicating pair, block and " + in.mapping_name, "rank",
      "hops", hop_text, [&](double v) { return hop_text(v) + (v == 1 ? " hop" : " hops") + " (bytes-weighted)"; });
}

}  // namespace rankmap::cli
