#include "standard_output.hpp"

#include <stdlib.h>

#include <iostream>

#include "rankmap/error.hpp"
#include "rankmap/io.hpp"

namespace rankmap::cli {

StandardOutput::~StandardOutput() {
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

std::string StandardOutput::path_for(const std::string& given, const std::string& name, const std::string& flag) {
  if (given != "-" && given != "/dev/stdout") return given;
  if (!file_.empty())
    throw Error(ErrorKind::argument, Parameter{flag.substr(flag.find_first_not_of('-'))},
                "standard output already takes another of this command's outputs; name a file");
  std::string pattern = (std::filesystem::temp_directory_path() / "rankmap-stdout-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    throw Error(pattern, 0, "cannot make a private folder for the output to standard output", ErrorKind::io);
  dir_ = pattern;
  file_ = dir_ / name;
  return file_.string();
}

std::string StandardOutput::path_for_launch_file(const std::string& given, LaunchFormat format,
                                                 const std::string& name) {
  std::string path = path_for(given, name, "output");
  if (path != given && launch_file_suffixes(format).size() > 1)
    throw Error(ErrorKind::argument, Parameter{"output"},
                "the " + std::string(launch_format_name(format)) + " format writes " +
                    std::to_string(launch_file_suffixes(format).size()) +
                    " files; standard output takes one: name a file");
  return path;
}

std::string StandardOutput::shown(const std::string& path) const {
  return !file_.empty() && path == file_.string() ? std::string("standard output") : path;
}

std::ostream& StandardOutput::lines() const { return file_.empty() ? std::cout : std::cerr; }

void StandardOutput::flush() {
  if (file_.empty()) return;
  // The folder goes before the first byte is written: a reader that stops
  // early (| head) ends the command by SIGPIPE, which runs no destructor.
  const std::string text = read_text_file(file_);
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
  dir_.clear();
  std::cout << text;
  std::cout.flush();
  if (!std::cout) throw Error("standard output", 0, "cannot be written", ErrorKind::io);
}

}  // namespace rankmap::cli
