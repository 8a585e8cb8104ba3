// Opening a file to read it, for every reader of the library. Internal.
#pragma once

#include <filesystem>

namespace rankmap::detail {

// A descriptor open for reading on a regular file; throws an io Error
// naming the file otherwise. Opened non-blocking and checked with fstat
// before the flag is cleared: a FIFO would block open() until a writer
// came, and /dev/zero would be read until memory ran out.
int open_regular_file(const std::filesystem::path& path);

}  // namespace rankmap::detail
