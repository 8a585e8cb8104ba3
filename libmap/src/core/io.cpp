#include "rankmap/io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "rankmap/error.hpp"

namespace rankmap {

std::string read_text_file(const std::filesystem::path& path) {
  // Only regular files: /dev/zero would be read until memory runs out, and
  // a FIFO would block forever.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error(path.string(), 0, std::string("cannot open: ") + std::strerror(errno), ErrorKind::io);
  if (!S_ISREG(st.st_mode)) throw Error(path.string(), 0, "not a regular file", ErrorKind::io);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw Error(path.string(), 0, std::string("cannot open: ") + std::strerror(errno), ErrorKind::io);
  std::string text;
  char buffer[1 << 16];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
  const bool failed = std::ferror(f);
  std::fclose(f);
  if (failed) throw Error(path.string(), 0, "read error", ErrorKind::io);
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

// A temporary file beside `target`, created by mkstemp (O_EXCL, a name
// nobody can guess or plant).
std::pair<std::string, int> temporary_beside(const std::filesystem::path& target) {
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  std::string pattern = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) throw Error(target.string(), 0, std::string("cannot write: ") + std::strerror(errno), ErrorKind::io);
  return {pattern, fd};
}

}  // namespace

void write_files_atomically(const std::filesystem::path& base, const std::vector<FilePart>& parts,
                            const std::function<void(const std::filesystem::path& temp_base)>& check) {
  auto final_name = [&](const FilePart& part) {
    return part.path.empty() ? base.string() + part.suffix : part.path.string();
  };
  for (const FilePart& part : parts) require_replaceable(final_name(part));
  // Beside each target, so that rename() stays on one file system: the
  // base's parts under one mkstemp name + their suffixes (companions keep
  // their names relative to each other, created O_EXCL | O_NOFOLLOW), a
  // part with a path of its own under a mkstemp name beside it.
  auto [temp_base, base_fd] = temporary_beside(base);
  const mode_t mode = new_file_mode();
  std::vector<std::string> temps{temp_base}, landed, temp_of(parts.size());
  bool base_open = true, base_used = false;
  try {
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const FilePart& part = parts[i];
      const std::string name = final_name(part);
      int fd = -1;
      if (!part.path.empty()) {
        auto [temp, own_fd] = temporary_beside(part.path);
        temps.push_back(temp);
        temp_of[i] = temp;
        fd = own_fd;
      } else if (part.suffix.empty()) {
        base_used = true;
        temp_of[i] = temp_base;
        fd = base_fd;
      } else {
        temp_of[i] = temp_base + part.suffix;
        fd = ::open(temp_of[i].c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) throw Error(name, 0, std::string("cannot write: ") + std::strerror(errno), ErrorKind::io);
        temps.push_back(temp_of[i]);
      }
      try {
        ::fchmod(fd, mode);
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
      temps.erase(temps.begin());
    }
    if (check) check(temp_base);
    // All land or none: a failed rename takes back the ones before it.
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::string name = final_name(parts[i]);
      if (::rename(temp_of[i].c_str(), name.c_str()) != 0)
        throw Error(name, 0, std::string("cannot rename into place: ") + std::strerror(errno), ErrorKind::io);
      landed.push_back(name);
    }
  } catch (...) {
    if (base_open) ::close(base_fd);
    for (const auto& t : temps) ::unlink(t.c_str());
    if (landed.size() < parts.size())
      for (const auto& l : landed) ::unlink(l.c_str());
    throw;
  }
}

}  // namespace rankmap
