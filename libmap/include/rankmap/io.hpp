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
};

// Writes each part to a temporary file beside `base` (temporary base +
// suffix, so companions keep their names relative to each other), calls
// `check` with the temporary base (it throws to refuse), then renames every
// part into place. Nothing is left behind on failure.
void write_files_atomically(const std::filesystem::path& base, const std::vector<FilePart>& parts,
                            const std::function<void(const std::filesystem::path& temp_base)>& check = {});

}  // namespace rankmap
