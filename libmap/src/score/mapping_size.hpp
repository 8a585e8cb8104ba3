// Every score reads one placement per rank of the graph.
#pragma once

#include <string>

#include "rankmap/error.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/mapping.hpp"

namespace rankmap::detail {

inline void require_mapping_of(const Graph& graph, const Mapping& mapping) {
  if (mapping.size() != graph.ranks)
    throw Error(
        "mapping places " + std::to_string(mapping.size()) + " ranks but the graph has " + std::to_string(graph.ranks),
        ErrorKind::argument);
}

}  // namespace rankmap::detail
