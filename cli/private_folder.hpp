// A folder of the command's own under $TMPDIR: made private (mkdtemp),
// emptied and removed when the object goes, and by the signal handler
// (rankmap::remove_temporary_files) if SIGTERM, SIGINT or SIGHUP ends the
// command first.
#pragma once

#include <filesystem>
#include <string>

namespace rankmap::cli {

class PrivateFolder {
 public:
  // `prefix`: the folder's name before mkdtemp's six letters
  // ("rankmap-run-"). Throws an io Error naming $TMPDIR when it is no
  // directory, or the folder cannot be made.
  explicit PrivateFolder(const std::string& prefix);
  PrivateFolder(const PrivateFolder&) = delete;
  PrivateFolder& operator=(const PrivateFolder&) = delete;
  ~PrivateFolder();
  const std::filesystem::path& path() const { return path_; }
  // Left in place (a dry run's, shown to the user): no longer removed.
  void keep();
  // Emptied and removed now (unless kept).
  void remove();

 private:
  std::filesystem::path path_;
  int handle_ = -1;
  bool kept_ = false;
};

}  // namespace rankmap::cli
