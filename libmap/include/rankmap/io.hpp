// File helpers shared by the readers and writers.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace rankmap {

// Whole file as a string; throws Error(path, 0, ...) if it cannot be read.
std::string read_text_file(const std::filesystem::path& path);

// Writes every (path, text) pair to a temporary file beside it, then renames
// all of them into place. Nothing is left behind on failure.
void write_files_atomically(
    const std::vector<std::pair<std::filesystem::path, std::string>>& files);

}  // namespace rankmap
