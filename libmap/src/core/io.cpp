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

void write_files_atomically(const std::filesystem::path& base, const std::vector<FilePart>& parts,
                            const std::function<void(const std::filesystem::path& temp_base)>& check) {
  // Beside the target so that rename() stays on one file system.
  const std::string temp_base = base.string() + ".tmp." + std::to_string(::getpid());
  std::vector<std::filesystem::path> temps;
  try {
    for (const FilePart& part : parts) {
      temps.emplace_back(temp_base + part.suffix);
      std::ofstream out(temps.back(), std::ios::binary | std::ios::trunc);
      if (!out) throw Error(base.string() + part.suffix, 0, std::string("cannot write: ") + std::strerror(errno));
      out.write(part.text.data(), static_cast<std::streamsize>(part.text.size()));
      out.close();
      if (!out) throw Error(base.string() + part.suffix, 0, "write failed (disk full?)");
    }
    if (check) check(temp_base);
    for (std::size_t i = 0; i < parts.size(); ++i) {
      std::error_code ec;
      std::filesystem::rename(temps[i], base.string() + parts[i].suffix, ec);
      if (ec) throw Error(base.string() + parts[i].suffix, 0, "cannot rename into place: " + ec.message());
    }
  } catch (...) {
    std::error_code ignored;
    for (const auto& t : temps) std::filesystem::remove(t, ignored);
    throw;
  }
}

}  // namespace rankmap
