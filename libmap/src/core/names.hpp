// "a, b or c": the names an unknown value could have been, for messages
// that list them from the same table the callers offer.
#pragma once

#include <string>
#include <vector>

namespace rankmap::detail {

inline std::string one_of(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

}  // namespace rankmap::detail
