// Slurm hostlist syntax: "node[00-31]", "a[1-3,7]", "r[1-2]n[01-04]",
// comma lists of any of these. Zero padding follows the width of the
// range's lower bound; with several brackets the last one varies fastest.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rankmap {

// More hosts than any machine has: a list beyond it is a typo or an attack
// (a[0-999]b[0-999]c[0-99] would take gigabytes).
inline constexpr std::size_t kMaxHostlistHosts = 10'000'000;
// And at most this many bytes of host names (10^7 names of 13 bytes): a
// list of long names would take gigabytes before the count was reached.
inline constexpr std::size_t kMaxHostlistBytes = std::size_t{128} << 20;

// Throws Error(source, line, ...) when the list does not parse or names
// more than `most` hosts (checked before they are made: a machine file's
// torus of 2 nodes refuses n[0-9999999] at once).
std::vector<std::string> expand_hostlist(std::string_view list, const std::string& source = "hostlist",
                                         std::size_t line = 0, std::size_t most = kMaxHostlistHosts);

// The shortest bracket form of `hosts` that expand_hostlist() turns back into
// the same sequence (used for summaries; order is kept, not sorted).
std::string compress_hostlist(const std::vector<std::string>& hosts);

}  // namespace rankmap
