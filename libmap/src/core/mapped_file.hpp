// A read-only view of a whole file, memory-mapped: large graphs (hundreds of
// MB) are parsed in place instead of being copied into a string. Internal.
#pragma once

#include <filesystem>
#include <string_view>

namespace rankmap::detail {

class MappedFile {
 public:
  // Throws Error(path, 0, ...) when the file cannot be opened or mapped.
  explicit MappedFile(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view text() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace rankmap::detail
