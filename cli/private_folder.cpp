#include "private_folder.hpp"

#include <pthread.h>
#include <signal.h>
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
  // SIGINT, SIGTERM and SIGHUP wait while the folder is made and
  // registered: one that came between the two would end the command and
  // leave the folder, which the handler removes only once registered. On a
  // loaded machine, cli_allocation's SIGHUP test once hit that window.
  sigset_t stops, before;
  sigemptyset(&stops);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stops, sig);
  ::pthread_sigmask(SIG_BLOCK, &stops, &before);
  const bool made = ::mkdtemp(pattern.data()) != nullptr;
  if (made) handle_ = register_temporary_folder(pattern);
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (!made) throw Error(pattern, 0, "cannot make a private folder", ErrorKind::io);
  path_ = pattern;
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
