// One reader per graph format; read_graph() picks by extension. Internal.
#pragma once

#include <string>
#include <string_view>

#include "rankmap/graph.hpp"

namespace rankmap::detail {

Graph read_mtx(std::string_view text, const std::string& source);
Graph read_metis(std::string_view text, const std::string& source);
Graph read_scotch(std::string_view text, const std::string& source);
Graph read_csv(std::string_view text, const std::string& source);

}  // namespace rankmap::detail
