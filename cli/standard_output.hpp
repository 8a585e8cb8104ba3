// "-" names standard output for a command's text outputs (-o, --json), as
// in most Unix tools, and so does /dev/stdout (which the writers would
// otherwise refuse as a symbolic link). The output is written like any
// other, to a file of a private folder in the same transaction as the
// command's other outputs, and copied to standard output only once all of
// them have landed, so that a failed command writes nothing there either.
// The command's own lines (tables, "wrote ...") then go to stderr, so that
// the pipe carries the output alone. /dev/null, which the writers would
// refuse as no regular file, is written the same way and thrown away.
#pragma once

#include <filesystem>
#include <memory>
#include <ostream>
#include <string>

#include "private_folder.hpp"
#include "rankmap/launch.hpp"

namespace rankmap::cli {

class StandardOutput {
 public:
  StandardOutput() = default;
  StandardOutput(const StandardOutput&) = delete;
  StandardOutput& operator=(const StandardOutput&) = delete;
  ~StandardOutput();  // removes the private folder

  // `given`, or for "-" and "/dev/stdout" a file named `name` (its
  // extension chooses the format where the command goes by it) in the
  // private folder. At most one output of a command may be standard
  // output: a second is refused, naming `flag`.
  std::string path_for(const std::string& given, const std::string& name, const std::string& flag);

  // path_for of a launch file of `format` (flag --output): a format of more
  // than one file (slurm's hostfile and .env) cannot go to standard output.
  std::string path_for_launch_file(const std::string& given, LaunchFormat format, const std::string& name);

  // How the command names an output in its messages.
  std::string shown(const std::string& path) const;

  // Where the command's own lines go: stderr once standard output is taken.
  std::ostream& lines() const;

  // Copies the output to standard output (after every output has landed)
  // and removes the private folder.
  void flush();

 private:
  std::unique_ptr<PrivateFolder> dir_;  // made for the first output to standard output
  std::filesystem::path file_;
  std::unique_ptr<PrivateFolder> discarded_;  // the outputs to /dev/null
  int discards_ = 0;
};

}  // namespace rankmap::cli
