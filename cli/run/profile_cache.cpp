#include "profile_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "job.hpp"
#include "rankmap/error.hpp"
#include "rankmap/io.hpp"

namespace rankmap::cli {
namespace {

// FNV-1a, 64 bits: a file name, not a defence (the key file is compared).
std::string hash_hex(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

// The cache folder, checked with lstat before anything is done to it: a
// folder rankmap did not just make is never changed (a chmod of /tmp, of a
// symlink's target or of another user's folder would lock others out), only
// used when it is this user's own private directory, else refused in one
// line. A missing one is made, mode 0700; returns why it cannot be (empty
// when it is there).
std::string require_private_dir(const std::filesystem::path& dir) {
  auto refuse = [&](const std::string& why) {
    throw Error(dir.string(), 0, why + "; choose a private cache of your own (--cache DIR or RANKMAP_CACHE_DIR)",
                ErrorKind::io);
  };
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) refuse(std::string("cannot be examined (") + std::strerror(errno) + ")");
    std::error_code ec;
    if (dir.has_parent_path()) std::filesystem::create_directories(dir.parent_path(), ec);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
      return dir.string() + " cannot be made (" + std::strerror(errno) + ")";
    if (::lstat(dir.c_str(), &st) != 0) refuse(std::string("cannot be examined (") + std::strerror(errno) + ")");
  }
  if (S_ISLNK(st.st_mode)) refuse("is a symbolic link");
  if (!S_ISDIR(st.st_mode)) refuse("is not a directory");
  if (st.st_uid != ::geteuid()) refuse("belongs to another user");
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%o", static_cast<unsigned>(st.st_mode & 07777));
    refuse(std::string("is writable by other users (mode ") + mode + ")");
  }
  return "";
}

// Whether `file` is in the folder `dir` (by real paths; never when dir is
// empty): rankmap's own outputs there change every run.
bool inside(const std::filesystem::path& dir, const std::filesystem::path& file) {
  if (dir.empty()) return false;
  std::error_code ec, fc;
  // Absolute first: weakly_canonical leaves a path that does not exist yet
  // relative, and "run/" with its empty last element.
  std::filesystem::path d = std::filesystem::weakly_canonical(std::filesystem::absolute(dir, ec), ec);
  const std::filesystem::path f = std::filesystem::weakly_canonical(std::filesystem::absolute(file, fc), fc);
  if (ec || fc) return false;
  if (d.filename().empty()) d = d.parent_path();
  const auto [end, at] = std::mismatch(d.begin(), d.end(), f.begin(), f.end());
  return end == d.end();
}

}  // namespace

std::filesystem::path default_cache_dir() {
  if (const char* d = std::getenv("RANKMAP_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::filesystem::path(d) / "rankmap";
  if (const char* h = std::getenv("HOME"); h && *h) return std::filesystem::path(h) / ".cache" / "rankmap";
  return std::filesystem::temp_directory_path() / ("rankmap-cache-" + std::to_string(::geteuid()));
}

CachedProfile find_cached_profile(const std::filesystem::path& dir, const std::vector<std::string>& application,
                                  std::size_t ranks, const std::string& mpi, const std::filesystem::path& own_files) {
  const std::string why = require_private_dir(dir);
  std::string key = "rankmap run profile key 2\n";
  std::error_code ec;
  const std::filesystem::path program = std::filesystem::canonical(resolve(application.at(0)), ec);
  struct stat st {};
  if (!ec && ::stat(program.c_str(), &st) == 0)
    key += "program " + program.string() + " size " + std::to_string(st.st_size) + " mtime " +
           std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + "\n";
  else
    key += "program " + application[0] + "\n";
  for (std::size_t i = 1; i < application.size(); ++i) {
    key += "argument " + std::to_string(application[i].size()) + " " + application[i] + "\n";
    // An input deck changed since (LAMMPS's -in in.melt) may change the
    // traffic: an argument naming a regular file keys its size and time.
    std::error_code regular;
    if (std::filesystem::is_regular_file(application[i], regular) && !inside(own_files, application[i]))
      key += "file " + file_identity(application[i]) + "\n";
  }
  key += "ranks " + std::to_string(ranks) + "\nmpi " + mpi + "\n";
  const std::string name = hash_hex(key);
  CachedProfile c{dir / (name + ".rmp"), dir / (name + ".key"), key, false, why.empty(), why};
  if (c.usable && std::filesystem::is_regular_file(c.profile, ec) && std::filesystem::is_regular_file(c.key_file, ec)) {
    try {
      c.hit = read_text_file(c.key_file) == key;
    } catch (const Error&) {
      c.hit = false;
    }
  }
  return c;
}

void remember_profile(const CachedProfile& cached) { write_files_atomically(cached.key_file, {{"", cached.key}}); }

std::string file_identity(const std::filesystem::path& file) {
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(file, ec);
  struct stat st {};
  if (ec || ::stat(real.c_str(), &st) != 0) return "missing " + file.string();
  return real.string() + " size " + std::to_string(st.st_size) + " mtime " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

CachedMapping find_cached_mapping(const std::filesystem::path& dir, const std::string& key) {
  const std::string why = require_private_dir(dir);
  const std::string name = "map-" + hash_hex(key);
  CachedMapping c{dir / (name + ".csv"),
                  dir / (name + ".json"),
                  dir / (name + ".txt"),
                  dir / (name + ".key"),
                  key,
                  false,
                  why.empty(),
                  why};
  std::error_code ec;
  if (c.usable && std::filesystem::is_regular_file(c.csv, ec) && std::filesystem::is_regular_file(c.json, ec) &&
      std::filesystem::is_regular_file(c.table, ec)) {
    try {
      c.hit = read_text_file(c.key_file) == key;
    } catch (const Error&) {
      c.hit = false;
    }
  }
  return c;
}

void remember_mapping(const CachedMapping& cached, const std::string& csv, const std::string& json,
                      const std::string& table) {
  write_files_atomically(cached.key_file,
                         {{"", cached.key}, {"", csv, cached.csv}, {"", json, cached.json}, {"", table, cached.table}});
}

}  // namespace rankmap::cli
