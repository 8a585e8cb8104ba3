// Options shared by the sub-commands, so a flag means the same everywhere.
#pragma once

#include <optional>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

#include "command_line.hpp"
#include "rankmap/allocation.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/mapping.hpp"
#include "rankmap/profile.hpp"

namespace rankmap::cli {

// The files this command reads, as the loaders below note them, and the
// check of its outputs against them: no command writes over one of its own
// inputs, or writes two outputs to one file.
void note_input(const std::filesystem::path& path);
void clear_inputs();  // before a new command in the same process
// Throws (compared by device and inode) when an output is a noted input
// or two outputs are one file. Empty names are skipped.
// Before any work: each output's folder exists and may be written, and no
// output is one of the command's inputs or another output.
void check_outputs(const std::vector<std::filesystem::path>& outputs);

// A file name (or any text from the command line) as it may be printed:
// control bytes (a newline in a name) become '?', and past `most` bytes it
// is cut with "...", as the library's errors are.
std::string printable(std::string_view text, std::size_t most = 200);

struct MachineOptions {
  std::string machine;
  std::string nodes;
  int ppn = 0;
  int cpus_per_rank = 0;  // 0: not asked
  bool hwthreads = false;
  bool quiet = false;        // no line on stderr saying where the nodes came from
  std::string nodes_source;  // where `nodes` came from, for errors (empty: --nodes)

  // `required`: whether --machine must be given (map --dump-config needs none).
  void add_to(Command& cmd, bool required = true);
};

struct LoadedMachine {
  Machine machine;
  Allocation allocation;
};
// The machine file and the allocation: --nodes, else the batch job's
// (rankmap/batch.hpp: Slurm, PBS) when inside one, else every node; --ppn,
// else the batch job's tasks per node. A line on stderr says when the
// batch job gave them. A host unknown under its full name is looked up by
// its short name too ("n01.cluster" as "n01").
LoadedMachine load(const MachineOptions& options);
// A warning line when the batch job's task count (SLURM_NTASKS) is not
// `ranks`, the graph's: a launch of the job's own count would start
// another number of ranks than are mapped.
void warn_if_job_tasks_differ(std::size_t ranks, const std::string& graph_path, bool quiet);
// Hosts named by a batch system or a host file as the machine calls them:
// the short name when only it is known.
std::vector<std::string> machine_host_names(const Machine& machine, const std::vector<std::string>& hosts);

// eval and plot: load(), and without --ppn (given or from the batch job),
// the ranks per node whose slots read the launch file back, so that a file
// written with map --ppn N reads with no flag. The file, read and checked
// (read_checked), goes to `mapping`.
LoadedMachine load_for_launch_file(const MachineOptions& options, const std::string& path, const std::string& format,
                                   std::uint32_t ranks, Mapping& mapping);

// A graph file, and for a profile (.rmp) its p_mpi and traffic kinds too,
// read once.
struct LoadedGraph {
  Graph graph;
  std::optional<double> p_mpi;
  // A profile's point-to-point (with one-sided) and collective traffic
  // apart, for the flow model; both empty (0 ranks) for other graphs,
  // whose traffic all counts as point-to-point.
  Graph p2p, collective;
  std::vector<CollectiveCalls> calls;  // a version 2 profile's complete call records, else none
};
LoadedGraph load_graph(const std::string& path);

// Writes a graph by the output's extension (.mtx, .csv, .grf) through a
// temporary file; `comment` goes into the .mtx header.
void write_graph_file(const Graph& g, const std::string& path, const std::string& comment);

// Reports a finished stage on stderr when it took a second or more (every
// stage when verbose), so long runs show where the time goes and short ones
// stay quiet.
class Progress {
 public:
  explicit Progress(bool quiet, bool verbose = false) : quiet_(quiet), verbose_(verbose) {}
  void done(const std::string& what);
  double seconds_since_start() const;

 private:
  using Clock = std::chrono::steady_clock;
  bool quiet_, verbose_;
  Clock::time_point start_ = Clock::now(), stage_ = start_;
};

// Sizes joined by 'x' ("16x8x8"); Error(option, ...) otherwise.
std::vector<int> parse_dims(const std::string& text, const char* option);

// A launch file, read in its format (guessed when `format` is empty) and
// checked against the allocation and the graph's rank count.
Mapping read_checked(const std::string& path, const std::string& format, const Machine& machine,
                     const Allocation& allocation, std::uint32_t ranks);

}  // namespace rankmap::cli
