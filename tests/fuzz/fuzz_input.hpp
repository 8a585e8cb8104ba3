// What every fuzz harness shares: the input as a file, and the promise
// each one checks. A reader may refuse any input, but only with a
// rankmap::Error of one printable line of bounded length; any other
// exception, a crash, a sanitizer report, a hang (libFuzzer's -timeout)
// or a runaway allocation (-rss_limit_mb) is a finding.
#pragma once

#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "rankmap/error.hpp"

namespace fuzz {

// The input as text.
inline std::string_view text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The files write_file made, removed when the process ends normally: a
// ctest run replays every harness, and each replay is a new process id,
// so files left behind would pile up in the temporary directory.
class OwnFiles {
 public:
  void add(const std::filesystem::path& path) {
    for (const auto& known : paths_)
      if (known == path) return;
    paths_.push_back(path);
  }
  ~OwnFiles() {
    std::error_code ignored;
    for (const auto& path : paths_) std::filesystem::remove(path, ignored);
  }

 private:
  std::vector<std::filesystem::path> paths_;
};

// A file of this process's own under the temporary directory, rewritten
// for each input; `name` gives its extension.
inline std::filesystem::path write_file(std::string_view content, const std::string& name) {
  static OwnFiles own_files;
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("rankmap-fuzz-" + std::to_string(getpid()) + "-" + name);
  own_files.add(path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) std::abort();  // the harness itself failed, not the reader
  return path;
}

// A rankmap::Error must be one line of at most 1,024 bytes.
inline void expect_one_line(const rankmap::Error& e) {
  const std::string_view what = e.what();
  if (what.empty() || what.size() > 1024 || what.find('\n') != std::string_view::npos) {
    std::fprintf(stderr, "fuzz: an error message breaks the one-line promise (%zu bytes): %.200s\n", what.size(),
                 e.what());
    std::abort();
  }
}

// Runs `read`; any rankmap::Error it throws must keep the one-line promise.
template <class F>
void expect_only_errors(F&& read) {
  try {
    read();
  } catch (const rankmap::Error& e) {
    expect_one_line(e);
  }
}

}  // namespace fuzz
