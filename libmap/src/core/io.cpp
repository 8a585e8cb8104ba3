#include "rankmap/io.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>

#include "core/regular_file.hpp"
#include "core/temporary_files.hpp"
#include "rankmap/error.hpp"

namespace rankmap {

namespace detail {

int open_regular_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw Error(path.string(), 0, std::string("cannot open: ") + std::strerror(errno), ErrorKind::io);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(path.string(), 0, "not a regular file", ErrorKind::io);
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace detail

std::string read_text_file(const std::filesystem::path& path) {
  const int fd = detail::open_regular_file(path);
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw Error(path.string(), 0, std::string("read error: ") + std::strerror(err), ErrorKind::io);
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

// `-o /dev/null` as root would otherwise replace the device node.
void require_replaceable(const std::filesystem::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;  // not there yet
  if (S_ISLNK(st.st_mode))
    throw Error(path.string(), 0, "is a symbolic link; refusing to replace it (write to its target)", ErrorKind::io);
  if (!S_ISREG(st.st_mode))
    throw Error(path.string(), 0, "is not a regular file; refusing to replace it", ErrorKind::io);
}

namespace {

// What a path names: an existing file by device and inode (following
// symlinks), a file not there yet by its directory's and its name.
struct FileIdentity {
  dev_t dev = 0;
  ino_t ino = 0;
  std::string name;  // empty for an existing file
  bool operator==(const FileIdentity&) const = default;
};

std::optional<FileIdentity> identity_of(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return FileIdentity{st.st_dev, st.st_ino, ""};
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  if (::stat(dir.c_str(), &st) == 0) return FileIdentity{st.st_dev, st.st_ino, path.filename().string()};
  return std::nullopt;  // the writer will say why it cannot write there
}

}  // namespace

void require_distinct_files(const std::vector<std::filesystem::path>& inputs,
                            const std::vector<std::filesystem::path>& outputs) {
  std::vector<std::pair<FileIdentity, const std::filesystem::path*>> read;
  for (const auto& in : inputs) {
    struct stat st {};
    if (!in.empty() && ::stat(in.c_str(), &st) == 0) read.push_back({{st.st_dev, st.st_ino, ""}, &in});
  }
  std::vector<std::pair<FileIdentity, const std::filesystem::path*>> written;
  for (const auto& out : outputs) {
    if (out.empty()) continue;
    const std::optional<FileIdentity> id = identity_of(out);
    if (!id) continue;
    for (const auto& [other, name] : read)
      if (other == *id)
        throw Error(out.string(), 0, "is an input of this command (" + name->string() + "); refusing to write over it",
                    ErrorKind::argument);
    for (const auto& [other, name] : written)
      if (other == *id)
        throw Error(out.string(), 0, "is also the output " + name->string() + "; two outputs cannot be one file",
                    ErrorKind::argument);
    written.push_back({*id, &out});
  }
}

namespace {

// The mode a new file gets: 0666 under the process's umask (read from
// /proc: umask() would change it, even for a moment, for every thread).
mode_t new_file_mode() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key)
    if (key == "Umask:") {
      unsigned mask = 022;
      status >> std::oct >> mask;
      return static_cast<mode_t>(0666 & ~mask);
    }
  return 0644;
}

void write_all(int fd, const std::string& text, const std::string& name) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(name, 0, std::string("write failed: ") + std::strerror(errno), ErrorKind::io);
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 && errno != EINVAL)
    throw Error(name, 0, std::string("write failed: ") + std::strerror(errno), ErrorKind::io);
}

// Runs `create` (mkstemp, open) with every signal blocked and registers
// the file it made with `temps` before they are let through, so that a
// handler never misses one. Throws naming `name` when it fails.
template <class Create>
int create_registered(detail::Temporaries& temps, const std::string& path, const std::string& name, Create&& create) {
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &before);
  const int fd = create();
  const int saved = errno;
  if (fd >= 0) temps.add(path);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (fd < 0) throw Error(name, 0, std::string("cannot write: ") + std::strerror(saved), ErrorKind::io);
  return fd;
}

// A temporary file beside `target`, created by mkstemp (O_EXCL, a name
// nobody can guess or plant), registered before anything is written to it.
std::pair<std::string, int> temporary_beside(const std::filesystem::path& target, detail::Temporaries& temps) {
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  std::string pattern = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  const int fd = create_registered(temps, pattern, target.string(), [&] { return ::mkstemp(pattern.data()); });
  return {pattern, fd};
}

// A replaced file's mode, owner and group for its successor; a new file
// the mode the process's umask gives. Owner and group are kept where the
// process may set them (root, or a group the user is in), else left.
void give_attributes(int fd, const std::string& replaced, mode_t new_mode) {
  struct stat st {};
  if (::stat(replaced.c_str(), &st) != 0) {
    ::fchmod(fd, new_mode);
    return;
  }
  if (::fchown(fd, st.st_uid, st.st_gid) != 0) (void)!::fchown(fd, static_cast<uid_t>(-1), st.st_gid);
  ::fchmod(fd, st.st_mode & 07777);
}

}  // namespace

void write_files_atomically(const std::filesystem::path& base, const std::vector<FilePart>& parts,
                            const std::function<void(const std::filesystem::path& temp_base)>& check) {
  auto final_name = [&](const FilePart& part) {
    return part.path.empty() ? base.string() + part.suffix : part.path.string();
  };
  std::vector<std::filesystem::path> names;
  for (const FilePart& part : parts) {
    require_replaceable(final_name(part));
    names.emplace_back(final_name(part));
  }
  require_distinct_files({}, names);
  // Beside each target, so that rename() stays on one file system: the
  // base's parts under one mkstemp name + their suffixes (companions keep
  // their names relative to each other, created O_EXCL | O_NOFOLLOW), a
  // part with a path of its own under a mkstemp name beside it.
  detail::Temporaries temps;
  auto [temp_base, base_fd] = temporary_beside(base, temps);
  const mode_t mode = new_file_mode();
  std::vector<std::string> landed, temp_of(parts.size());
  bool base_open = true, base_used = false;
  try {
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const FilePart& part = parts[i];
      const std::string name = final_name(part);
      int fd = -1;
      if (!part.path.empty()) {
        auto [temp, own_fd] = temporary_beside(part.path, temps);
        temp_of[i] = temp;
        fd = own_fd;
      } else if (part.suffix.empty()) {
        base_used = true;
        temp_of[i] = temp_base;
        fd = base_fd;
      } else {
        temp_of[i] = temp_base + part.suffix;
        fd = create_registered(temps, temp_of[i], name, [&] {
          return ::open(temp_of[i].c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        });
      }
      try {
        give_attributes(fd, name, mode);
        write_all(fd, part.text, name);
      } catch (...) {
        if (fd != base_fd) ::close(fd);
        throw;
      }
      if (fd != base_fd) ::close(fd);
    }
    ::close(base_fd);
    base_open = false;
    if (!base_used) {  // only a name holder
      ::unlink(temp_base.c_str());
      temps.forget(temp_base);
    }
    if (check) check(temp_base);
    // All land or none: a failed rename takes back the ones before it.
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::string name = final_name(parts[i]);
      if (::rename(temp_of[i].c_str(), name.c_str()) != 0)
        throw Error(name, 0, std::string("cannot rename into place: ") + std::strerror(errno), ErrorKind::io);
      temps.forget(temp_of[i]);
      landed.push_back(name);
    }
  } catch (...) {
    if (base_open) ::close(base_fd);
    temps.remove_all();
    if (landed.size() < parts.size())
      for (const auto& l : landed) ::unlink(l.c_str());
    throw;
  }
}

}  // namespace rankmap
