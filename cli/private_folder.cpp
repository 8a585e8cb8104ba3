#include "private_folder.hpp"

#include <stdlib.h>
#include <sys/stat.h>

#include <cstdlib>

#include "rankmap/error.hpp"
#include "rankmap/io.hpp"

namespace rankmap::cli {

PrivateFolder::PrivateFolder(const std::string& prefix) {
  // std::filesystem::temp_directory_path() throws a bare filesystem_error
  // for a missing $TMPDIR: say which variable, in one line.
  const char* tmpdir = std::getenv("TMPDIR");
  const std::filesystem::path base = tmpdir && *tmpdir ? tmpdir : "/tmp";
  struct stat st {};
  if (::stat(base.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error(tmpdir && *tmpdir ? "TMPDIR=" + base.string() : base.string(), 0,
                "is not a directory; set TMPDIR to one where rankmap may make a private folder", ErrorKind::io);
  std::string pattern = (base / (prefix + "XXXXXX")).string();
  if (!::mkdtemp(pattern.data())) throw Error(pattern, 0, "cannot make a private folder", ErrorKind::io);
  path_ = pattern;
  handle_ = register_temporary_folder(path_.string());
}

PrivateFolder::~PrivateFolder() { remove(); }

void PrivateFolder::keep() {
  forget_temporary_folder(handle_);
  handle_ = -1;
  kept_ = true;
}

void PrivateFolder::remove() {
  forget_temporary_folder(handle_);
  handle_ = -1;
  std::error_code ec;
  if (!kept_ && !path_.empty()) std::filesystem::remove_all(path_, ec);
  kept_ = true;
}

}  // namespace rankmap::cli
