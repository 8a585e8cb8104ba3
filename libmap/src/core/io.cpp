#include "rankmap/io.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "rankmap/error.hpp"

namespace rankmap {

std::string read_text_file(const std::filesystem::path& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw Error(path.string(), 0, std::string("cannot open: ") + std::strerror(errno));
  std::string text;
  char buffer[1 << 16];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
  const bool failed = std::ferror(f);
  std::fclose(f);
  if (failed) throw Error(path.string(), 0, "read error");
  return text;
}

void write_files_atomically(
    const std::vector<std::pair<std::filesystem::path, std::string>>& files) {
  std::vector<std::filesystem::path> temps;
  auto remove_temps = [&] {
    std::error_code ignored;
    for (const auto& t : temps) std::filesystem::remove(t, ignored);
  };
  try {
    for (const auto& [path, text] : files) {
      // Beside the target so that rename() stays on one file system.
      auto temp = path;
      temp += ".tmp." + std::to_string(::getpid());
      temps.push_back(temp);
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      if (!out) throw Error(path.string(), 0, std::string("cannot write: ") + std::strerror(errno));
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
      out.close();
      if (!out) throw Error(path.string(), 0, "write failed (disk full?)");
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
      std::error_code ec;
      std::filesystem::rename(temps[i], files[i].first, ec);
      if (ec) throw Error(files[i].first.string(), 0, "cannot rename into place: " + ec.message());
    }
  } catch (...) {
    remove_temps();
    throw;
  }
}

}  // namespace rankmap
