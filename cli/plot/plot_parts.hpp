// The pictures of `rankmap plot`, one file each: what they are given and
// what they give back (the drawing and, for --json, where each part was
// drawn, so that other tools and the tests can find it in the file).
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "common.hpp"
#include "plot_canvas.hpp"

namespace rankmap::cli {

struct PlotInput {
  std::string graph_name;    // for titles
  std::string mapping_name;  // "block" without --mapping
  std::string format;        // the picture's: png, svg or pdf
  std::string weight;        // the matrix's cells: bytes, msgs or mean (bytes a message)
  const LoadedGraph& loaded;
  const Machine& machine;
  const Allocation& allocation;
  const Mapping& block;    // the launcher's default, always
  const Mapping* mapping;  // --mapping, or nullptr
};

struct Picture {
  std::unique_ptr<Canvas> canvas;
  nlohmann::ordered_json layout;
};

// --what matrix: traffic between ranks, grouped by node, hosts named.
Picture plot_matrix(const PlotInput& in);
// --what hops: each pair's hops under block and under the mapping.
Picture plot_hops(const PlotInput& in);
// --what links: every directed link of a torus, mesh or tree, coloured by
// its bytes, block beside the mapping, each side's hottest link ringed.
Picture plot_links(const PlotInput& in);
// --what bytes: bytes each rank sends, and each node's bytes leaving it
// under block and under the mapping, side by side.
Picture plot_bytes(const PlotInput& in);

// 1234567 -> "1.2 MB"; with `unit` empty, a count: "1.2 M". With
// `figures`, that many significant figures: "1.23 MB" (whole numbers of
// the unit stay whole).
std::string human(double value, const std::string& unit = "B", int figures = 0);
// The host of allocated node `node`.
const std::string& host_name(const PlotInput& in, int node);

}  // namespace rankmap::cli
