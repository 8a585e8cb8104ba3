#include <unistd.h>

#include <fstream>

#include "rankmap/error.hpp"
#include "rankmap/launch.hpp"

namespace rankmap {

void write_launch_files(const std::filesystem::path& path, LaunchFormat format, const Machine& machine,
                        const Allocation& allocation, const Mapping& mapping) {
  const auto files = render_launch_files(format, machine, allocation, mapping);
  // Temporary names keep the companion's suffix, so the reader finds it.
  const std::string temp_base = path.string() + ".tmp." + std::to_string(::getpid());
  std::vector<std::filesystem::path> temps;
  try {
    for (const auto& f : files) {
      temps.emplace_back(temp_base + f.suffix);
      std::ofstream out(temps.back(), std::ios::binary | std::ios::trunc);
      out.write(f.text.data(), static_cast<std::streamsize>(f.text.size()));
      out.close();
      if (!out) throw Error(path.string() + f.suffix, 0, "cannot write");
    }
    // The re-read and the check use code that did not write the file.
    const Mapping back = read_launch_file(temp_base, format, machine, allocation);
    verify_mapping(back, allocation, mapping.size(), path.string());
    if (!(back == mapping))
      throw Error(path.string(), 0, "internal error: the written " + std::string(launch_format_name(format)) +
                                        " file reads back as a different mapping");
    for (std::size_t i = 0; i < files.size(); ++i) {
      std::error_code ec;
      std::filesystem::rename(temps[i], path.string() + files[i].suffix, ec);
      if (ec) throw Error(path.string() + files[i].suffix, 0, "cannot rename into place: " + ec.message());
    }
  } catch (...) {
    std::error_code ignored;
    for (const auto& t : temps) std::filesystem::remove(t, ignored);
    throw;
  }
}

}  // namespace rankmap
