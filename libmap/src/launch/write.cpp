#include "rankmap/error.hpp"
#include "rankmap/io.hpp"
#include "rankmap/launch.hpp"

namespace rankmap {

void write_launch_files(const std::filesystem::path& path, LaunchFormat format, const Machine& machine,
                        const Allocation& allocation, const Mapping& mapping, const std::vector<FilePart>& also) {
  std::vector<FilePart> parts = render_launch_files(format, machine, allocation, mapping);
  parts.insert(parts.end(), also.begin(), also.end());
  write_files_atomically(path, parts, [&](const std::filesystem::path& written) {
    // The re-read and the check use code that did not write the file.
    const Mapping back = read_launch_file(written, format, machine, allocation);
    verify_mapping(back, allocation, mapping.size(), path.string());
    if (!(back == mapping))
      throw Error(path.string(), 0,
                  "internal error: the written " + std::string(launch_format_name(format)) +
                      " file reads back as a different mapping");
  });
}

}  // namespace rankmap
