// --what links on a dragonfly or Dragonfly+: each side a ring of groups.
// Between every two groups, one line each way (the outgoing direction on
// its right-hand side), coloured by the busiest of that direction's
// cables; each group a disc coloured by the busiest link inside it (its
// nodes' cables and local links), outlined dark where the allocation has
// nodes. The side's hottest link is ringed: on its line, or around its
// group. What bytes between groups cost is what a dragonfly shows first.
#include <algorithm>
#include <cmath>

#include "plot_links.hpp"

namespace rankmap::cli::links {

Picture dragonfly_links(const PlotInput& in, const std::vector<Side>& sides) {
  const Network& net = in.machine.network;
  const detail::DragonflyLinks l(net);
  const std::size_t groups = l.groups;
  const double panel = 560, radius = 220, disc = std::clamp(600.0 / static_cast<double>(groups), 4.0, 22.0);
  const double line_width = std::clamp(240.0 / static_cast<double>(groups), 0.4, 3.0);
  const int width = static_cast<int>(40 + sides.size() * panel + 120), height = static_cast<int>(panel + 110);
  const ColourScale scale = link_scale(sides);
  Picture p{std::make_unique<Canvas>(in.format, width, height), {}};
  Canvas& c = *p.canvas;
  c.text(20, 24,
         in.graph_name + ": bytes on the links of the " + net.kind_name() + " (" + std::to_string(groups) + " groups)",
         13);
  c.text(20, 40,
         "each way between two groups its busiest cable, outgoing on the right; a group's disc its busiest link "
         "inside",
         10);
  nlohmann::ordered_json doc = {{"what", "links"},
                                {"kind", net.kind_name()},
                                {"width", width},
                                {"height", height},
                                {"groups", groups},
                                {"disc", disc},
                                {"scale", {{"low", scale.low}, {"high", scale.high}}}};
  // Which groups hold allocated nodes.
  std::vector<char> allocated(groups, 0);
  for (int node : in.allocation.nodes)
    allocated[static_cast<std::size_t>(net.group_of(in.machine.nodes[static_cast<std::size_t>(node)].coord_index))] = 1;
  for (std::size_t k = 0; k < sides.size(); ++k) {
    const Side& side = sides[k];
    const double cx = 40 + k * panel + panel / 2, cy = 70 + panel / 2;
    c.text(40 + k * panel, 62, side_heading(in, side), 11);
    nlohmann::ordered_json side_doc = {{"title", side.name},
                                       {"hottest", side.metrics.max_link_bytes ? link_title(in, side.hottest) : ""},
                                       {"hottest_bytes", side.metrics.max_link_bytes}};
    auto at = [&](std::size_t g) {
      const double angle = 2 * M_PI * static_cast<double>(g) / static_cast<double>(groups) - M_PI / 2;
      return std::pair{cx + radius * std::cos(angle), cy + radius * std::sin(angle)};
    };
    // Between groups: per direction, its busiest cable.
    for (std::size_t g = 0; g < groups; ++g)
      for (std::size_t h = 0; h < groups; ++h) {
        if (g == h) continue;
        std::size_t busiest = l.global_link(g, h, 0);
        for (std::size_t j = 1; j < l.cables; ++j)
          if (side.metrics.link_bytes[l.global_link(g, h, j)] > side.metrics.link_bytes[busiest])
            busiest = l.global_link(g, h, j);
        if (side.hottest >= l.global && side.metrics.link_bytes[side.hottest] == side.metrics.link_bytes[busiest] &&
            net.global_link_groups(side.hottest) == std::pair{static_cast<int>(g), static_cast<int>(h)})
          busiest = side.hottest;  // so that its ring is drawn
        const auto [x1, y1] = at(g);
        const auto [x2, y2] = at(h);
        const double len = std::hypot(x2 - x1, y2 - y1), off = line_width;
        const double nx = (y2 - y1) / len * off, ny = -(x2 - x1) / len * off;  // right of g -> h (y grows down)
        draw_link(c, in, side, scale, busiest, x1 + nx, y1 + ny, x2 + nx, y2 + ny, line_width, side_doc);
      }
    // Inside groups: the busiest of each group's links.
    std::vector<std::uint64_t> inside(groups, 0);
    std::vector<std::size_t> inside_link(groups, 0);
    for (std::size_t link = 0; link < l.global; ++link) {
      const std::size_t g = l.group_of(link);
      if (side.metrics.link_bytes[link] >= inside[g]) inside[g] = side.metrics.link_bytes[link], inside_link[g] = link;
    }
    for (std::size_t g = 0; g < groups; ++g) {
      const auto [x, y] = at(g);
      const std::uint64_t v = inside[g];
      const std::string title = "group " + std::to_string(g) + ": busiest link inside " + link_bytes(v) +
                                (v ? ", " + link_title(in, inside_link[g]) : "");
      c.circle(x, y, disc, v > 0 ? scale.colour(static_cast<double>(v)) : kIdle, true, 1, title, "group");
      if (allocated[g]) c.circle(x, y, disc, {0.2, 0.2, 0.2}, false, 1.5);
      if (groups <= 40) c.text(x, y + 3.5, std::to_string(g), 9, 0.5);
      if (side.metrics.max_link_bytes > 0 && side.hottest < l.global && l.group_of(side.hottest) == g) {
        c.circle(x, y, disc + 5, kRing, false, 2,
                 "hottest link under " + side.name + ": " + link_title(in, side.hottest) + ", " +
                     link_bytes(side.metrics.max_link_bytes),
                 "hottest");
        side_doc["ring"] = {{"x", x}, {"y", y}, {"radius", disc + 5}};
      }
    }
    doc["sides"].push_back(side_doc);
  }
  doc["scale"]["labels"] = scale.draw_bar(c, width - 100, 90, panel - 60, "bytes", [](double v) { return human(v); });
  p.layout = std::move(doc);
  return p;
}

}  // namespace rankmap::cli::links
