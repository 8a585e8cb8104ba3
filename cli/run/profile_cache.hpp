// Profiles kept between runs of one job (rankmap run), under a key of what
// decides its traffic: the program (its real path, size and modification
// time), its arguments (and, for those that name a regular file, the
// file's real path, size and modification time), the rank count and the
// MPI.
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
  bool usable = true;              // false: the cache folder cannot be made (why), so nothing is kept
  std::string why;
};

// Looks the job up in `dir` (made, mode 0700, when missing; never changed
// when it exists; refused, an io Error, when it is a symlink, not a
// directory, another user's, or writable by others). A folder that cannot
// be made (a full or read-only file system) is no hit and not usable.
// Arguments naming files inside `own_files` (the run's --keep folder,
// whose files rankmap rewrites every run) are keyed by their words only.
CachedProfile find_cached_profile(const std::filesystem::path& dir, const std::vector<std::string>& application,
                                  std::size_t ranks, const std::string& mpi,
                                  const std::filesystem::path& own_files = {});

// Writes the key beside a profile just made (atomically).
void remember_profile(const CachedProfile& cached);

// A file's identity for a key: its real path, size and modification time.
std::string file_identity(const std::filesystem::path& file);

// A mapping kept between runs: the csv of the mapping, the report's JSON
// and table, under a key of everything that decides them (the profile's
// identity, the machine's files, the allocation, the engine's settings,
// rankmap's version), so that a cache hit costs no engine time.
struct CachedMapping {
  std::filesystem::path csv, json, table, key_file;
  std::string key;
  bool hit = false;
  bool usable = true;  // as CachedProfile's
  std::string why;
};
CachedMapping find_cached_mapping(const std::filesystem::path& dir, const std::string& key);
// Writes the three files and the key, together (atomically).
void remember_mapping(const CachedMapping& cached, const std::string& csv, const std::string& json,
                      const std::string& table);

}  // namespace rankmap::cli
