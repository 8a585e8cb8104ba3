// "0-3", "5", "0-1;4": sorted whole numbers as ranges, and back. Internal.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/text_scanner.hpp"

namespace rankmap::detail {

std::vector<std::string> range_items(const std::vector<int>& sorted);  // {"0-1", "4"}
std::string format_ranges(const std::vector<int>& sorted, char sep);
// Parses "a", "a-b" items separated by `sep` (values up to 1,000,000, at
// most 65,536 of them); fails at the scanner's line.
std::vector<int> parse_ranges(std::string_view text, char sep, const LineScanner& at, const char* what);

}  // namespace rankmap::detail
