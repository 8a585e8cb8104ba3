// A TOML node's value as a whole number, when it is an integer. toml++'s
// value<int64_t>() also converts floats, and converts one out of range
// with undefined behaviour (UBSan, fuzzing `seed = 1.8e20`): integers are
// read only from integer nodes. Internal to libmap.
#pragma once

#include <cstdint>
#include <optional>

#include <toml++/toml.h>

namespace rankmap::detail {

inline std::optional<std::int64_t> toml_integer(const toml::node& n) {
  if (const auto* i = n.as_integer()) return i->get();
  return std::nullopt;
}

}  // namespace rankmap::detail
