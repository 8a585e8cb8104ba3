#include "launch/ranges.hpp"

#include <cstdint>

namespace rankmap::detail {

std::vector<std::string> range_items(const std::vector<int>& v) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    out.push_back(std::to_string(v[i]) + (j > i ? "-" + std::to_string(v[j]) : ""));
    i = j + 1;
  }
  return out;
}

std::string format_ranges(const std::vector<int>& v, char sep) {
  std::string out;
  for (const auto& item : range_items(v)) out += (out.empty() ? "" : std::string(1, sep)) + item;
  return out;
}

// No node has this many CPUs: a longer list is refused before it is
// expanded (a 3 KB machinefile of "0-1000000" sets once took 2 GB).
constexpr std::uint64_t kMaxListed = std::uint64_t{1} << 16;

std::vector<int> parse_ranges(std::string_view text, char sep, const LineScanner& at, const char* what) {
  std::vector<int> out;
  Fields items(text, std::string_view(&sep, 1));
  std::string_view item;
  while (items.next(item)) {
    const auto dash = item.find('-');
    const auto lo = parse_count(item.substr(0, dash), at, what);
    const auto hi = dash == std::string_view::npos ? lo : parse_count(item.substr(dash + 1), at, what);
    if (hi < lo || hi > 1'000'000) at.fail(std::string("bad range '") + std::string(item) + "' in " + what);
    if (out.size() + (hi - lo + 1) > kMaxListed)
      at.fail(std::string("more than ") + std::to_string(kMaxListed) + " " + what + " in one list");
    for (auto v = lo; v <= hi; ++v) out.push_back(static_cast<int>(v));
  }
  if (out.empty()) at.fail(std::string("expected ") + what + ", found nothing");
  return out;
}

}  // namespace rankmap::detail
