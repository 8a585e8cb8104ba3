// The reader alone: seconds rankmap::read_graph() takes on each file given,
// in turn, `rounds` times (issue 55, section 3: a graph file in any order
// against the sorted file, read in the same run). The whole command's
// figure (farm-bench of `rankmap map`) carries the stages after the read,
// which do not depend on the file's order; this one does not. Prints each
// file's median, least and most, in seconds, and its edges.
//
//   g++ -O2 -std=c++20 -Ilibmap/include bench/read_time.cpp -Lbuild/libmap
//       -Wl,-rpath,$PWD/build/libmap -lrankmap -o /tmp/read_time      (one line)
//   /tmp/read_time ROUNDS FILE...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "rankmap/graph.hpp"

int main(int argc, char** argv) {
  if (argc < 3 || std::atoi(argv[1]) < 1) {
    std::fprintf(stderr, "usage: read_time ROUNDS FILE...\n");
    return 2;
  }
  const int rounds = std::atoi(argv[1]);
  const int files = argc - 2;
  std::vector<std::vector<double>> seconds(static_cast<std::size_t>(files));
  std::vector<std::size_t> edges(static_cast<std::size_t>(files));
  try {
    // Files in turn within a round, so that a slow spell of the machine
    // falls on all of them.
    for (int r = 0; r < rounds; ++r)
      for (int f = 0; f < files; ++f) {
        const auto start = std::chrono::steady_clock::now();
        const rankmap::Graph g = rankmap::read_graph(argv[f + 2]);
        const auto stop = std::chrono::steady_clock::now();
        seconds[static_cast<std::size_t>(f)].push_back(std::chrono::duration<double>(stop - start).count());
        edges[static_cast<std::size_t>(f)] = g.num_edges();
      }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "read_time: %s\n", e.what());
    return 1;
  }
  std::printf("%-40s %9s %9s %9s %12s\n", "file", "median s", "least s", "most s", "edges");
  for (int f = 0; f < files; ++f) {
    std::vector<double>& s = seconds[static_cast<std::size_t>(f)];
    std::sort(s.begin(), s.end());
    const double median = s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
    std::printf("%-40s %9.3f %9.3f %9.3f %12zu\n", argv[f + 2], median, s.front(), s.back(),
                edges[static_cast<std::size_t>(f)]);
  }
  return 0;
}
