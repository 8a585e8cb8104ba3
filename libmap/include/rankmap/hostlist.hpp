// Slurm hostlist syntax: "node[00-31]", "a[1-3,7]", "r[1-2]n[01-04]",
// comma lists of any of these. Zero padding follows the width of the
// range's lower bound; with several brackets the last one varies fastest.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rankmap {

// Throws Error(source, line, ...) when the list does not parse.
std::vector<std::string> expand_hostlist(std::string_view list, const std::string& source = "hostlist",
                                         std::size_t line = 0);

// The shortest bracket form of `hosts` that expand_hostlist() turns back into
// the same sequence (used for summaries; order is kept, not sorted).
std::string compress_hostlist(const std::vector<std::string>& hosts);

}  // namespace rankmap
