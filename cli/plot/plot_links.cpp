// --what links: every directed link, coloured by the bytes it carries
// (log scale), block beside (torus) or above (tree) the mapping, each
// side's hottest link ringed in red and named in its title.
//   torus, mesh  XY slices (X across, Y down); links along Z and higher
//                dimensions leave each node as short diagonal strokes
//                (+Z up-right, -Z down-left; +W up-left, -W down-right;
//                V and U at half those angles), so every dimension's
//                links are in the slice of the node they leave. The
//                slices shown hold each side's hottest link first, then
//                the most loaded, at most kMaxSlices.
//   switch, tree nodes along the bottom, each level's switches above
//                (hosts, for VMs); each child's up and down links to its
//                parent side by side, a level's parallel uplinks apart.
//   dragonfly    groups on a circle, their global links between them
//                (plot_links_dragonfly.cpp).
// In SVG each link has a <title> with its name and bytes, and the rings
// are of class "hottest", so that a test finds them in the file.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "plot_links.hpp"
#include "rankmap/metrics.hpp"

namespace rankmap::cli::links {

ColourScale link_scale(const std::vector<Side>& sides) {
  ColourScale scale{0, 0};
  for (const Side& s : sides)
    for (std::uint64_t v : s.metrics.link_bytes)
      if (v > 0)
        scale.low = scale.low > 0 ? std::min<double>(scale.low, static_cast<double>(v)) : static_cast<double>(v),
        scale.high = std::max<double>(scale.high, static_cast<double>(v));
  if (scale.high <= 0) scale = {1, 1};
  // One value on every link (a single switch's VMs): a decade below it,
  // so the bar keeps its ticks and the links their top colour.
  if (scale.high <= scale.low) scale.low = scale.high / 10;
  return scale;
}

// A link's name for its titles, a tree's nodes by their hosts.
std::string link_title(const PlotInput& in, std::size_t link) { return in.machine.link_name(link); }

// Bytes on a link to three significant figures: 40.4 MB and 39.8 MB apart.
std::string link_bytes(std::uint64_t v) { return human(static_cast<double>(v), "B", 3); }

std::string side_heading(const PlotInput& in, const Side& s) {
  if (s.metrics.max_link_bytes == 0) return s.name + ": no link carries bytes";
  return s.name + ": most loaded link " + link_bytes(s.metrics.max_link_bytes) + ", " + link_title(in, s.hottest);
}

// Draws one link from (x1, y1) to (x2, y2), and its ring when it is the
// side's hottest; the ring's centre goes into `side_doc`.
void draw_link(Canvas& c, const PlotInput& in, const Side& s, const ColourScale& scale, std::size_t link, double x1,
               double y1, double x2, double y2, double width, nlohmann::ordered_json& side_doc) {
  const std::uint64_t v = s.metrics.link_bytes[link];
  c.line(x1, y1, x2, y2, width, v > 0 ? scale.colour(static_cast<double>(v)) : kIdle,
         link_title(in, link) + ": " + link_bytes(v), "link");
  if (link == s.hottest && v > 0) {
    const double cx = (x1 + x2) / 2, cy = (y1 + y2) / 2;
    const double radius = std::clamp(std::hypot(x2 - x1, y2 - y1) / 2 + 3, 6.0, 16.0);
    c.circle(cx, cy, radius, kRing, false, 2,
             "hottest link under " + s.name + ": " + link_title(in, link) + ", " + link_bytes(v), "hottest");
    side_doc["ring"] = {{"x", cx}, {"y", cy}, {"radius", radius}};
  }
}

}  // namespace rankmap::cli::links

namespace rankmap::cli {
namespace {

using namespace links;
constexpr int kMaxSlices = 8;

Picture torus_links(const PlotInput& in, const std::vector<Side>& sides) {
  const Network& net = in.machine.network;
  const int nd = net.num_dims();
  const int nx = net.dims[0], ny = nd > 1 ? net.dims[1] : 1;
  const std::size_t per_slice = static_cast<std::size_t>(nx) * ny, slices = net.num_coords() / per_slice;
  auto slice_of_link = [&](std::size_t link) { return link / (2 * static_cast<std::size_t>(nd)) / per_slice; };
  std::vector<std::uint64_t> slice_max(slices, 0);
  for (const Side& s : sides)
    for (std::size_t l = 0; l < s.metrics.link_bytes.size(); ++l)
      slice_max[slice_of_link(l)] = std::max(slice_max[slice_of_link(l)], s.metrics.link_bytes[l]);
  // Each side's hottest link's slice first, then the most loaded.
  std::vector<std::size_t> chosen;
  for (const Side& s : sides)
    if (s.metrics.max_link_bytes > 0 &&
        std::find(chosen.begin(), chosen.end(), slice_of_link(s.hottest)) == chosen.end())
      chosen.push_back(slice_of_link(s.hottest));
  std::vector<std::size_t> by_load(slices);
  std::iota(by_load.begin(), by_load.end(), 0);
  std::stable_sort(by_load.begin(), by_load.end(),
                   [&](std::size_t a, std::size_t b) { return slice_max[a] > slice_max[b]; });
  for (std::size_t s : by_load)
    if (chosen.size() < static_cast<std::size_t>(kMaxSlices) &&
        std::find(chosen.begin(), chosen.end(), s) == chosen.end())
      chosen.push_back(s);
  std::sort(chosen.begin(), chosen.end());
  const ColourScale scale = link_scale(sides);

  const double s = std::clamp(320.0 / std::max(nx, ny), 16.0, 48.0), pad = s;
  const double slice_w = nx * s + pad, slice_h = ny * s + pad + 16;
  const double side_w = slice_w * static_cast<double>(std::min<std::size_t>(chosen.size(), 2)) + 20;
  const double rows = std::ceil(static_cast<double>(chosen.size()) / 2.0);
  const int width = static_cast<int>(40 + sides.size() * side_w + 110),
            height = static_cast<int>(96 + rows * slice_h + 40);
  Picture p{std::make_unique<Canvas>(in.format, width, height), {}};
  Canvas& c = *p.canvas;
  c.text(40, 24,
         in.graph_name + ": bytes on each directed link (" + std::to_string(chosen.size()) + " of " +
             std::to_string(slices) + " XY slices: the hottest links' first, then the most loaded)",
         13);
  std::string legend = "X across, Y down";
  static constexpr const char* kDiagonals[4][2] = {{"up-right", "down-left"},
                                                   {"up-left", "down-right"},
                                                   {"right, rising", "left, falling"},
                                                   {"up, leaning right", "down, leaning left"}};
  for (int d = 2; d < nd; ++d)
    legend += std::string("; +") + "XYZWVU"[d] + " " + kDiagonals[d - 2][0] + ", -" + "XYZWVU"[d] + " " +
              kDiagonals[d - 2][1];
  c.text(40, 40, legend, 10);
  nlohmann::ordered_json doc = {{"what", "links"},
                                {"kind", net.kind_name()},
                                {"width", width},
                                {"height", height},
                                {"spacing", s},
                                {"offset", 3},
                                {"scale", {{"low", scale.low}, {"high", scale.high}}}};
  for (std::size_t k = 0; k < sides.size(); ++k) {
    const Side& side = sides[k];
    const double sx = 40 + k * side_w;
    c.text(sx, 62, side_heading(in, side), 11);
    nlohmann::ordered_json side_doc = {{"title", side.name},
                                       {"hottest", side.metrics.max_link_bytes ? link_title(in, side.hottest) : ""},
                                       {"hottest_bytes", side.metrics.max_link_bytes}};
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      const double ox = sx + static_cast<double>(i % 2) * slice_w + pad / 2,
                   oy = 96 + static_cast<double>(i / 2) * slice_h + pad / 2 + 12;
      // Coordinates are the machine's own (every coordinate holds a node).
      auto coord_of = [&](std::size_t coord) -> const std::vector<int>& {
        return in.machine.nodes[static_cast<std::size_t>(in.machine.node_at(coord))].coord;
      };
      std::string label = "slice";
      for (int d = 2; d < nd; ++d)
        label +=
            std::string(d == 2 ? " " : ",") + "XYZWVU"[d] + "=" + std::to_string(coord_of(chosen[i] * per_slice)[d]);
      c.text(ox - pad / 2, oy - pad / 2 - 2, nd > 2 ? label : "X across, Y down", 10);
      side_doc["slices"].push_back({{"slice", chosen[i]}, {"x", ox}, {"y", oy}});
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
          const std::size_t coord = chosen[i] * per_slice + static_cast<std::size_t>(y) * nx + x;
          const double cx = ox + x * s, cy = oy + y * s;
          const std::vector<int>& at = coord_of(coord);
          for (int d = 0; d < nd; ++d)
            for (int sign : {+1, -1}) {
              const int pos = at[d], size = net.dims[d];
              const bool edge = pos + sign < 0 || pos + sign >= size;
              if ((edge && !net.wrap[d]) || (size == 2 && sign < 0) || size == 1) continue;
              const std::size_t link = net.link_id(coord, d, sign);
              double x1, y1, x2, y2;
              if (d < 2) {
                const double len = edge ? 0.45 * s : s - 6;  // a wrap link leaves the slice
                const double off = sign > 0 ? -3 : 3;        // + above or left of -, - below or right
                if (d == 0)
                  y1 = y2 = cy + off, x1 = cx + sign * 3, x2 = cx + sign * (3 + len);
                else
                  x1 = x2 = cx + off, y1 = cy + sign * 3, y2 = cy + sign * (3 + len);
              } else {  // a stroke out of the slice, at the dimension's angle
                static constexpr double kAngle[4] = {45, 135, 22.5, 112.5};
                const double a = kAngle[d - 2] * M_PI / 180, dx = std::cos(a) * sign, dy = -std::sin(a) * sign;
                x1 = cx + 5 * dx, y1 = cy + 5 * dy, x2 = cx + 0.32 * s * dx, y2 = cy + 0.32 * s * dy;
              }
              draw_link(c, in, side, scale, link, x1, y1, x2, y2, d < 2 ? 3 : 2, side_doc);
            }
          c.circle(cx, cy, 2.5, {0.25, 0.25, 0.25}, true);
        }
    }
    doc["sides"].push_back(side_doc);
  }
  doc["scale"]["labels"] = scale.draw_bar(c, width - 100, 96, std::max(120.0, rows * slice_h - 40), "bytes",
                                          [](double v) { return human(v); });
  p.layout = std::move(doc);
  return p;
}

Picture tree_links(const PlotInput& in, const std::vector<Side>& sides) {
  const Network& net = in.machine.network;
  const int tiers = net.num_dims();
  const std::size_t nodes = net.num_coords();
  const double sp = std::clamp(900.0 / static_cast<double>(nodes), 1.0, 60.0), level_h = 70;
  const double left = 130, side_h = tiers * level_h + 110;  // room below the nodes for their names
  const int width = static_cast<int>(std::max(900.0, left + nodes * sp + 130)),
            height = static_cast<int>(70 + sides.size() * side_h + 20);
  const ColourScale scale = link_scale(sides);
  Picture p{std::make_unique<Canvas>(in.format, width, height), {}};
  Canvas& c = *p.canvas;
  c.text(20, 24, in.graph_name + ": bytes on each directed link of the " + net.kind_name(), 13);
  c.text(20, 40, "each child's links run straight up to its port on the level above: up left of down", 10);
  nlohmann::ordered_json doc = {{"what", "links"}, {"kind", net.kind_name()},
                                {"width", width},  {"height", height},
                                {"spacing", sp},   {"scale", {{"low", scale.low}, {"high", scale.high}}}};
  auto level_name = [&](int level) {
    if (level == 0) return std::string("nodes");
    const bool one = nodes / net.tree_span(level) == 1;  // a single switch (or host) at this level
    if (net.levels[level - 1].host) return std::string(one ? "host" : "hosts");
    return one ? std::string("switch") : "level-" + std::to_string(level) + " switches";
  };
  for (std::size_t k = 0; k < sides.size(); ++k) {
    const Side& side = sides[k];
    const double base = 70 + k * side_h + side_h - 70;  // the nodes' row
    c.text(20, base - tiers * level_h - 14, side_heading(in, side), 11);
    nlohmann::ordered_json side_doc = {{"title", side.name},
                                       {"hottest", side.metrics.max_link_bytes ? link_title(in, side.hottest) : ""},
                                       {"hottest_bytes", side.metrics.max_link_bytes}};
    auto x_of = [&](int level, std::size_t v) {
      const double span = static_cast<double>(net.tree_span(level));
      return left + (static_cast<double>(v) * span + span / 2) * sp;
    };
    for (int level = 0; level <= tiers; ++level) c.text(20, base - level * level_h + 4, level_name(level), 10);
    // Each switch (or host) a bar over its children; every link vertical.
    // A site's tree (TreeWiring) has empty ports: no bar, link or node
    // where its switches have none; its switches named where there is room.
    for (int level = 1; level <= tiers; ++level) {
      const double span = static_cast<double>(net.tree_span(level)) * sp;
      for (std::size_t v = 0; v < nodes / net.tree_span(level); ++v) {
        const int site_switch = net.wiring ? net.wiring->level_switch[level - 1][v] : 0;
        if (site_switch < 0) continue;
        c.rectangle(x_of(level, v) - span / 2 + std::min(2.0, span / 8), base - level * level_h - 2,
                    span - 2 * std::min(2.0, span / 8), 4, {0.35, 0.35, 0.35});
        if (net.wiring && span >= 40)
          c.text(x_of(level, v) - span / 2 + 3, base - level * level_h - 6,
                 net.wiring->switches[static_cast<std::size_t>(site_switch)], 8);
      }
    }
    for (int tier = 0; tier < tiers; ++tier) {
      const std::size_t children = nodes / net.tree_span(tier);
      const int parallel = tier == 0 ? 1 : net.levels[tier - 1].uplinks;
      const double gap = std::min(3.0, sp * static_cast<double>(net.tree_span(tier)) / (2.0 * parallel + 1));
      for (std::size_t v = 0; v < children; ++v) {
        const double xc = x_of(tier, v), yc = base - tier * level_h;
        for (int q = 0; q < parallel; ++q)
          for (bool down : {false, true}) {
            const double x = xc + (down ? 1 : -1) * gap * (q + 0.5);
            const std::size_t link = net.tree_link_id(tier, v, q, down);
            if (!net.has_link(link)) continue;
            draw_link(c, in, side, scale, link, x, yc - 4, x, yc - level_h + 3, std::max(0.6, std::min(2.0, gap)),
                      side_doc);
          }
      }
    }
    for (std::size_t i = 0; i < nodes; ++i) {  // the nodes, allocated ones dark, named where there is room
      const int node = in.machine.node_at(i);
      if (node < 0) continue;  // an empty port of a site's tree
      const bool allocated = in.allocation.position_of(node) >= 0;
      c.circle(x_of(0, i), base, std::min(2.5, sp / 2), allocated ? Colour{0.25, 0.25, 0.25} : kIdle, true);
      if (sp >= 10)
        c.text(x_of(0, i) + 3.5, base + 8, in.machine.nodes[static_cast<std::size_t>(node)].host, 9, 1, true);
    }
    doc["sides"].push_back(side_doc);
  }
  doc["scale"]["labels"] =
      scale.draw_bar(c, width - 110, 90, std::max(120.0, height - 140.0), "bytes", [](double v) { return human(v); });
  p.layout = std::move(doc);
  return p;
}

}  // namespace

Picture plot_links(const PlotInput& in) {
  std::vector<Side> sides;
  sides.push_back({"block", evaluate(in.loaded.graph, in.machine, in.allocation, in.block)});
  if (in.mapping) sides.push_back({in.mapping_name, evaluate(in.loaded.graph, in.machine, in.allocation, *in.mapping)});
  for (Side& s : sides)
    s.hottest = static_cast<std::size_t>(std::max_element(s.metrics.link_bytes.begin(), s.metrics.link_bytes.end()) -
                                         s.metrics.link_bytes.begin());
  if (in.machine.network.is_dragonfly()) return dragonfly_links(in, sides);
  return in.machine.network.is_tree() ? tree_links(in, sides) : torus_links(in, sides);
}

}  // namespace rankmap::cli
