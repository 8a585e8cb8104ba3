#include "suggest.hpp"

#include <algorithm>

namespace rankmap::cli {
namespace {

// Damerau-Levenshtein (optimal string alignment): "ppm" -> "ppn" is 1,
// "mpa" -> "map" is 1.
std::size_t edits(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitute = d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, substitute});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string nearest_word(const std::string& word, const std::vector<std::string>& candidates) {
  if (word.size() > 64) return "";  // not a typo of a flag
  const std::size_t allowed = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::size_t best_edits = allowed + 1;
  for (const std::string& candidate : candidates)
    if (const std::size_t e = edits(word, candidate); e < best_edits) best = candidate, best_edits = e;
  return best;
}

}  // namespace rankmap::cli
