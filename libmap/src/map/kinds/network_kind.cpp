#include "map/kinds/network_kind.hpp"

namespace rankmap::detail {

const EngineKind& engine_kind(const Network& net) {
  switch (net.kind) {
    case NetworkKind::tree: return tree_engine_kind();
    case NetworkKind::dragonfly: return dragonfly_engine_kind();
    case NetworkKind::torus: break;
  }
  return torus_engine_kind();
}

}  // namespace rankmap::detail
