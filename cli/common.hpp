// Options shared by the sub-commands, so a flag means the same everywhere.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>

#include "rankmap/allocation.hpp"
#include "rankmap/machine.hpp"

namespace rankmap::cli {

struct MachineOptions {
  std::string machine;
  std::string nodes;
  int ppn = 0;
  bool hwthreads = false;

  void add_to(CLI::App& cmd);
};

struct LoadedMachine {
  Machine machine;
  Allocation allocation;
};
LoadedMachine load(const MachineOptions& options);

// Reports a finished stage on stderr when it took a second or more, so long
// runs show where the time goes and short ones stay quiet.
class Progress {
 public:
  explicit Progress(bool quiet) : quiet_(quiet) {}
  void done(const std::string& what);
  double seconds_since_start() const;

 private:
  using Clock = std::chrono::steady_clock;
  bool quiet_;
  Clock::time_point start_ = Clock::now(), stage_ = start_;
};

}  // namespace rankmap::cli
