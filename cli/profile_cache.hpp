// Profiles kept between runs of one job (rankmap run), under a key of what
// decides its traffic: the program (its real path, size and modification
// time), its arguments, the rank count and the MPI.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace rankmap::cli {

// $RANKMAP_CACHE_DIR, else $XDG_CACHE_HOME/rankmap, else ~/.cache/rankmap.
std::filesystem::path default_cache_dir();

struct CachedProfile {
  std::filesystem::path profile;   // DIR/KEY.rmp
  std::filesystem::path key_file;  // DIR/KEY.key: the key's text, to tell a hash collision
  std::string key;                 // the text hashed
  bool hit = false;                // the profile is there, under this very key
};

// Looks the job up in `dir` (made, mode 0700, when missing; refused when
// it is a symlink or another user's).
CachedProfile find_cached_profile(const std::filesystem::path& dir, const std::vector<std::string>& application,
                                  std::size_t ranks, const std::string& mpi);

// Writes the key beside a profile just made (atomically).
void remember_profile(const CachedProfile& cached);

}  // namespace rankmap::cli
