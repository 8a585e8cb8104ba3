// The temporary files of the writes under way, so that a signal handler
// can remove them (remove_temporary_files() in rankmap/io.hpp). Internal.
#pragma once

#include <string>
#include <vector>

namespace rankmap::detail {

// The temporaries of one write, registered for remove_temporary_files()
// while they exist.
class Temporaries {
 public:
  Temporaries() = default;
  Temporaries(const Temporaries&) = delete;
  Temporaries& operator=(const Temporaries&) = delete;
  ~Temporaries();
  // A file just created: registered before anything is written to it.
  void add(const std::string& path);
  // Renamed into place or removed: no longer the handler's to unlink.
  void forget(const std::string& path);
  // Unlinks every one not forgotten (a write that failed).
  void remove_all();

 private:
  std::vector<std::string> paths_;
  std::vector<int> slots_;
};

}  // namespace rankmap::detail
