// Small helpers shared by the unit tests.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <tuple>

#include "rankmap/error.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/machine.hpp"

namespace rankmap::test {

inline std::filesystem::path source_dir() { return RANKMAP_SOURCE_DIR; }

// Whether this build runs under AddressSanitizer (scripts/sanitize.sh),
// where the engine is 10-20x slower: a test whose heaviest runs only repeat
// code paths its lighter runs take leaves them to the release build, which
// runs them all.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

// A fresh directory per test, removed at the end.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("rankmap-" + std::string(info->test_suite_name()) + "-" + info->name() + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const auto p = path_ / name;
    std::ofstream(p) << text;
    return p;
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Runs `f`, expecting an Error at `line` whose message contains `part`.
template <class F>
void expect_error(F&& f, std::size_t line, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing '" << part << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

// A fat tree of `leaves` leaves of `ports` nodes with `uplinks` each
// (D-mod-k: the destination's port modulo uplinks picks one), `cores` a node.
inline Machine fat_tree(int leaves, int ports, int uplinks, int cores) {
  const std::string last = std::to_string(leaves * ports - 1);
  const std::string hosts = "n[" + std::string(last.size(), '0') + "-" + last + "]";
  return parse_machine("name = \"t\"\n[network]\nkind = \"fattree\"\nlevels = [{fanout = " + std::to_string(ports) +
                           ", uplinks = " + std::to_string(uplinks) + "}, {fanout = " + std::to_string(leaves) +
                           "}]\nt_hop_ns = 50\nt_inj_ns = 450\nt_ej_ns = 450\n[[nodes]]\nhosts = \"" + hosts +
                           "\"\nhwloc = \"core:" + std::to_string(cores) + "\"\n",
                       "tree.toml");
}

// A dragonfly of 2 groups of 4 routers cabled all-to-all, 2 nodes of
// `cores` cores a router, every cable at one byte a ns.
inline Machine two_group_dragonfly(int cores = 2) {
  return parse_machine(
      "name = \"d2\"\n[network]\nkind = \"dragonfly\"\ngroups = 2\nglobal_links = 1\nrouters = 4\n"
      "nodes_per_router = 2\nt_hop_ns = 100\nt_inj_ns = 400\nt_ej_ns = 400\nlink_gbps = 8\n"
      "[[nodes]]\nhosts = \"d[00-15]\"\nhwloc = \"package:1 core:" +
          std::to_string(cores) + " pu:1\"\n",
      "d2.toml");
}

// A machine from TOML text, nodes of the given hwloc synthetic string.
inline Machine make_machine(const std::string& dims, const std::string& wrap, const std::string& hosts,
                            const std::string& hwloc = "package:1 core:1 pu:1", const std::string& routing = "") {
  std::string toml = "name = \"test\"\n[network]\ndims = " + dims + "\n";
  if (!wrap.empty()) toml += "wrap = " + wrap + "\n";
  toml += "t_hop_ns = 100\nt_inj_ns = 400\nt_ej_ns = 400\n";
  if (!routing.empty()) toml += "routing = \"" + routing + "\"\n";
  toml += "[[nodes]]\nhosts = \"" + hosts + "\"\nhwloc = \"" + hwloc + "\"\n";
  return parse_machine(toml, "test.toml");
}

// An LU-like wavefront as apps/wavefront.c sends it: `rows` x `cols` ranks
// row-major, each passing `stages` messages of `bytes` to its east (r + 1)
// and south (r + cols) neighbours.
// A graph of the listed (source, destination, bytes, messages) pairs.
inline Graph graph_of(
    std::uint32_t ranks,
    std::initializer_list<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t, std::uint64_t>> list) {
  GraphBuilder b(ranks);
  for (const auto& [s, d, bytes, msgs] : list) b.add(s, d, bytes, msgs);
  return b.build();
}

inline Graph wavefront(std::uint32_t rows, std::uint32_t cols, std::uint64_t stages, std::uint64_t bytes) {
  GraphBuilder b(rows * cols);
  for (std::uint32_t r = 0; r < rows * cols; ++r) {
    if (r % cols != cols - 1) b.add(r, r + 1, stages * bytes, stages);
    if (r + cols < rows * cols) b.add(r, r + cols, stages * bytes, stages);
  }
  return b.build();
}

}  // namespace rankmap::test
