// One reader per graph format; read_graph() picks by extension. Internal.
#pragma once

#include <string>
#include <string_view>

#include "graph/row_pieces.hpp"
#include "rankmap/graph.hpp"

namespace rankmap::detail {

// .mtx, .graph, .grf and .csv bodies of piece_bytes or more are read in pieces,
// a thread each (row_pieces.hpp); tests pass a small size.
Graph read_mtx(std::string_view text, const std::string& source, std::size_t piece_bytes = kPieceBytes);
Graph read_metis(std::string_view text, const std::string& source, std::size_t piece_bytes = kPieceBytes);
Graph read_scotch(std::string_view text, const std::string& source, std::size_t piece_bytes = kPieceBytes);
Graph read_csv(std::string_view text, const std::string& source, std::size_t piece_bytes = kPieceBytes);

}  // namespace rankmap::detail
