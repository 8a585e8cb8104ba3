#include "standard_output.hpp"

#include <stdlib.h>

#include <iostream>

#include "rankmap/error.hpp"
#include "rankmap/io.hpp"

namespace rankmap::cli {

StandardOutput::~StandardOutput() = default;  // the folder removes itself

std::string StandardOutput::path_for(const std::string& given, const std::string& name, const std::string& flag) {
  if (given == "/dev/null") {
    if (!discarded_) discarded_ = std::make_unique<PrivateFolder>("rankmap-null-");
    return (discarded_->path() / (std::to_string(discards_++) + "-" + name)).string();
  }
  if (given != "-" && given != "/dev/stdout") return given;
  if (!file_.empty())
    throw Error(ErrorKind::argument, Parameter{flag.substr(flag.find_first_not_of('-'))},
                "standard output already takes another of this command's outputs; name a file");
  dir_ = std::make_unique<PrivateFolder>("rankmap-stdout-");
  file_ = dir_->path() / name;
  return file_.string();
}

std::string StandardOutput::path_for_launch_file(const std::string& given, LaunchFormat format,
                                                 const std::string& name) {
  std::string path = path_for(given, name, "output");
  if (path != given && given != "/dev/null" && launch_file_suffixes(format).size() > 1)
    throw Error(ErrorKind::argument, Parameter{"output"},
                "the " + std::string(launch_format_name(format)) + " format writes " +
                    std::to_string(launch_file_suffixes(format).size()) +
                    " files; standard output takes one: name a file");
  return path;
}

std::string StandardOutput::shown(const std::string& path) const {
  if (discarded_ && std::filesystem::path(path).parent_path() == discarded_->path()) return "/dev/null";
  return !file_.empty() && path == file_.string() ? std::string("standard output") : path;
}

std::ostream& StandardOutput::lines() const { return file_.empty() ? std::cout : std::cerr; }

void StandardOutput::flush() {
  discarded_.reset();
  if (file_.empty()) return;
  // The folder goes before the first byte is written: a reader that stops
  // early (| head) ends the command by SIGPIPE, which runs no destructor.
  const std::string text = read_text_file(file_);
  dir_.reset();
  std::cout << text;
  std::cout.flush();
  if (!std::cout) throw Error("standard output", 0, "cannot be written", ErrorKind::io);
}

}  // namespace rankmap::cli
