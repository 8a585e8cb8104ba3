// File helpers shared by the readers and writers.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace rankmap {

// Whole file as a string; throws Error(path, 0, ...) if it cannot be read.
std::string read_text_file(const std::filesystem::path& path);

// One of the files written together: `base` + suffix ("" or ".env").
struct FilePart {
  std::string suffix;
  std::string text;
  std::filesystem::path path = {};  // when set: this file instead of base + suffix (a report beside a launch file)
};

// Throws Error naming `path` when it exists and is not a regular file (a
// symlink, a device, a directory): an output may only replace a file.
void require_replaceable(const std::filesystem::path& path);

// Writes each part to a temporary file beside `base` (a mkstemp name +
// suffix, so companions keep their names relative to each other; created
// with O_EXCL, never through a symlink; fsync'ed), calls `check` with the
// temporary base (it throws to refuse), then renames every part into
// place. An existing output that is a symlink or not a regular file is
// refused. Nothing is left behind on failure: all parts land, or none; a
// part with its own `path` joins the same transaction.
void write_files_atomically(const std::filesystem::path& base, const std::vector<FilePart>& parts,
                            const std::function<void(const std::filesystem::path& temp_base)>& check = {});

}  // namespace rankmap
