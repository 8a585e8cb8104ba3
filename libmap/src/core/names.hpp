// Named choices (launch formats, baselines, presets): one table per choice
// gives the names callers offer, the value of a name, and "a, b or c" for
// the message about a name that is none of them. Internal to libmap.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rankmap::detail {

inline std::string one_of(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

// `name_of(value)` is each value's name.
template <class T, class NameOf>
std::vector<std::string> names_of(std::span<const T> table, NameOf name_of) {
  std::vector<std::string> names;
  for (const T& value : table) names.emplace_back(name_of(value));
  return names;
}

template <class T, class NameOf>
std::optional<T> find_named(std::span<const T> table, NameOf name_of, std::string_view name) {
  for (const T& value : table)
    if (name_of(value) == name) return value;
  return std::nullopt;
}

}  // namespace rankmap::detail
