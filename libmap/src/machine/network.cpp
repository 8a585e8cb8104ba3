#include <cctype>
#include <cstdlib>

#include "rankmap/error.hpp"
#include "rankmap/machine.hpp"

namespace rankmap {
namespace {
constexpr char kDimLetters[kMaxDims + 1] = "XYZWVU";
}

std::size_t Network::num_coords() const {
  std::size_t n = 1;
  for (int d : dims) n *= static_cast<std::size_t>(d);
  return n;
}

int Network::diameter() const {
  int d = 0;
  for (int i = 0; i < num_dims(); ++i) d += wrap[i] ? dims[i] / 2 : dims[i] - 1;
  return d;
}

std::string Network::routing_string() const {
  std::string s;
  for (const auto& step : routing) {
    s += step.sign > 0 ? '+' : '-';
    s += kDimLetters[step.dim];
  }
  return s;
}

std::vector<RouteStep> default_routing(int ndims) {
  std::vector<RouteStep> steps;
  for (int sign : {+1, -1})
    for (int d = 0; d < ndims; ++d) steps.push_back({d, sign});
  return steps;
}

std::vector<RouteStep> parse_routing(std::string_view text, int ndims, const std::string& source,
                                     std::size_t line) {
  std::vector<RouteStep> steps;
  bool seen[kMaxDims][2] = {};
  Network example;
  example.routing = default_routing(ndims);
  auto fail = [&](const std::string& why) {
    throw Error(source, line,
                "bad routing '" + std::string(text) + "': " + why +
                    "; expected each of +D and -D once per dimension, e.g. \"" +
                    example.routing_string() + "\"");
  };
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == '\t' || text[i] == ',') {
      ++i;
      continue;
    }
    if (text[i] != '+' && text[i] != '-') fail("expected '+' or '-' at position " + std::to_string(i + 1));
    const int sign = text[i] == '+' ? +1 : -1;
    if (++i >= text.size()) fail("a sign without a dimension");
    const char letter = static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
    int dim = -1;
    for (int d = 0; d < ndims; ++d)
      if (kDimLetters[d] == letter) dim = d;
    if (dim < 0) fail(std::string("no dimension '") + text[i] + "' in a " + std::to_string(ndims) + "D network");
    if (seen[dim][sign < 0]) fail(std::string("'") + (sign > 0 ? '+' : '-') + kDimLetters[dim] + "' appears twice");
    seen[dim][sign < 0] = true;
    steps.push_back({dim, sign});
    ++i;
  }
  if (static_cast<int>(steps.size()) != 2 * ndims) fail("it names " + std::to_string(steps.size()) + " moves, not " + std::to_string(2 * ndims));
  return steps;
}

}  // namespace rankmap
