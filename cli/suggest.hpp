// "Did you mean ...?" for a mistyped command or flag, as git and cargo
// ask: the nearest of the known words by edit distance.
#pragma once

#include <string>
#include <vector>

namespace rankmap::cli {

// The candidate nearest `word` (adjacent swaps count as one edit), or ""
// when none is within a third of the word's length (at least 2 edits).
std::string nearest_word(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace rankmap::cli
