// What the pictures of --what links share (plot_links.cpp): each side's
// scores, the colour scale over all of them, and how one link is drawn,
// named and ringed. Internal to the CLI.
#pragma once

#include <string>
#include <vector>

#include "plot_parts.hpp"
#include "rankmap/metrics.hpp"

namespace rankmap::cli::links {

constexpr Colour kIdle{0.88, 0.88, 0.88};
constexpr Colour kRing{0.85, 0.1, 0.1};

struct Side {
  std::string name;
  Metrics metrics;
  std::size_t hottest = 0;  // a link id; valid when metrics.max_link_bytes > 0
};

// Log scale from the least to the most loaded link of any side.
ColourScale link_scale(const std::vector<Side>& sides);
// A link's name for its titles, nodes by their hosts.
std::string link_title(const PlotInput& in, std::size_t link);
// Bytes on a link to three significant figures: 40.4 MB and 39.8 MB apart.
std::string link_bytes(std::uint64_t v);
// "block: most loaded link 1.2 MB, <its name>".
std::string side_heading(const PlotInput& in, const Side& s);
// One link from (x1, y1) to (x2, y2), and its ring when it is the side's
// hottest; the ring's centre goes into `side_doc`.
void draw_link(Canvas& c, const PlotInput& in, const Side& s, const ColourScale& scale, std::size_t link, double x1,
               double y1, double x2, double y2, double width, nlohmann::ordered_json& side_doc);

// A dragonfly's picture (plot_links_dragonfly.cpp).
Picture dragonfly_links(const PlotInput& in, const std::vector<Side>& sides);

}  // namespace rankmap::cli::links
