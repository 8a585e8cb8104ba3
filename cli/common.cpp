#include "common.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>

#include "rankmap/batch.hpp"
#include "rankmap/error.hpp"
#include "rankmap/hostlist.hpp"
#include "rankmap/io.hpp"
#include "rankmap/launch.hpp"
#include "rankmap/profile.hpp"
#include "run/slurm_job.hpp"

namespace rankmap::cli {

namespace {
std::vector<std::filesystem::path>& inputs() {
  static std::vector<std::filesystem::path> files;
  return files;
}
}  // namespace

std::string printable(std::string_view text, std::size_t most) {
  std::string out(text.substr(0, most));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  if (text.size() > most) out += "...";
  return out;
}

void note_input(const std::filesystem::path& path) {
  if (!path.empty()) inputs().push_back(path);
}

void clear_inputs() { inputs().clear(); }

void check_outputs(const std::vector<std::filesystem::path>& outputs) {
  for (const auto& output : outputs) {
    const std::filesystem::path folder = output.has_parent_path() ? output.parent_path() : ".";
    std::error_code ec;
    if (!std::filesystem::is_directory(folder, ec))
      throw Error(output.string(), 0, "cannot be written: there is no folder '" + folder.string() + "'", ErrorKind::io);
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
      throw Error(output.string(), 0, "cannot be written: the folder '" + folder.string() + "' is not writable",
                  ErrorKind::io);
  }
  require_distinct_files(inputs(), outputs);
}

void write_graph_file(const Graph& g, const std::string& path, const std::string& comment) {
  const std::string ext = std::filesystem::path(path).extension().string();
  std::string text;
  if (ext == ".mtx")
    text = format_mtx(g, comment);
  else if (ext == ".csv")
    text = format_csv(g);
  else if (ext == ".grf")
    text = format_scotch(g);
  else if (ext == ".graph")
    text = format_metis(g);
  else
    throw Error(path, 0, "expected an output ending in .mtx, .csv, .grf or .graph");
  check_outputs({path});
  // Read back before it lands: a file rankmap's own reader refuses is
  // never written (a graph whose every rank is silent, say).
  write_files_atomically(path, {{"", std::move(text)}}, [&](const std::filesystem::path& temp) {
    Graph back;
    try {
      back = read_graph_as(temp, ext);
    } catch (const Error& e) {
      throw Error(path, 0,
                  std::string("this graph cannot be written as ") + ext + ": it would not read back (" + e.what() +
                      "); try .csv");
    }
    if (back.ranks != g.ranks || back.total_bytes() != g.total_bytes())
      throw Error(path, 0,
                  ext + " cannot hold this graph: it would read back with " + std::to_string(back.ranks) +
                      " ranks and " + std::to_string(back.total_bytes()) + " bytes, not " + std::to_string(g.ranks) +
                      " and " + std::to_string(g.total_bytes()) +
                      " (it holds no self-traffic, and only equal bytes both ways); write .csv");
  });
}

void MachineOptions::add_to(Command& cmd, bool required) {
  cmd.option("--machine,-m", machine, "Machine description (TOML)").required(required);
  cmd.option("--nodes", nodes,
             "Allocated nodes: a Slurm hostlist (node[00-07,12]) or @file, one host per line "
             "(default: the batch job's, from Slurm or PBS, else every node)");
  cmd.option("--ppn", ppn,
             "Ranks per node (default: the batch job's tasks per node, else one per core, or per PU with "
             "--hwthreads)")
      .check(whole_number_from(1, 1'000'000, "ranks per node"));
  cmd.flag("--hwthreads", hwthreads, "Slots are hardware threads (PUs) rather than cores");
  cmd.option("--cpus-per-rank", cpus_per_rank,
             "Cores for each rank's threads (hardware threads with --hwthreads), inside one socket where they "
             "fit: Slurm's --cpus-per-task, Open MPI's PE=N (default: --ppn's share of the node)")
      .check(whole_number_from(1, 1'000'000, "cores a rank"));
}

std::vector<std::string> machine_host_names(const Machine& machine, const std::vector<std::string>& hosts) {
  std::vector<std::string> names = hosts;
  for (std::string& name : names)
    if (machine.find_host(name) < 0)
      if (const std::size_t dot = name.find('.');
          dot != std::string::npos && machine.find_host(name.substr(0, dot)) >= 0)
        name.resize(dot);
  return names;
}

namespace {

// `note`: where the batch job's nodes and ranks per node came from, for
// a line once the allocation is made (an error would follow it otherwise).
AllocationOptions allocation_options(const Machine& machine, const MachineOptions& o, std::string& note) {
  AllocationOptions a;
  if (o.nodes.starts_with('@')) note_input(o.nodes.substr(1));
  if (!o.nodes.empty()) a.hosts = read_nodes_argument(o.nodes, &a.origins);
  if (!o.nodes_source.empty()) a.origins.assign(a.hosts.size(), HostOrigin{o.nodes_source, 0});
  a.ppn = o.ppn;
  a.hwthreads = o.hwthreads;
  a.cpus_per_rank = o.cpus_per_rank;
  if (!o.nodes.empty() && o.ppn != 0) return a;
  const std::optional<BatchAllocation> batch = read_batch_allocation(process_environment());
  if (!batch) return a;
  std::string took;
  if (o.nodes.empty()) {
    a.hosts = machine_host_names(machine, batch->hosts);
    a.origins.assign(a.hosts.size(), HostOrigin{batch->source, 0});
    took = std::to_string(a.hosts.size()) + " nodes (" + compress_hostlist(a.hosts) + ")";
  }
  std::string counts_took;  // what the task counts gave, with where from
  if (o.ppn == 0 && batch->ranks_per_node > 0) {
    a.ppn = batch->ranks_per_node;
    a.counts_source = batch->ranks_source;
    // Uneven task counts (SLURM_TASKS_PER_NODE=2,1): each node its own.
    const bool uneven =
        batch->slots.size() == batch->hosts.size() &&
        std::adjacent_find(batch->slots.begin(), batch->slots.end(), std::not_equal_to<>()) != batch->slots.end() &&
        std::all_of(batch->slots.begin(), batch->slots.end(), [](int n) { return n > 0; });
    if (o.nodes.empty() && uneven) {
      a.ranks_per_host = batch->slots;
      std::string counts;
      for (int n : batch->slots) counts += (counts.empty() ? "" : ",") + std::to_string(n);
      counts_took = printable(counts, 60) + " ranks on them";
    } else {
      counts_took = std::to_string(a.ppn) + (a.ppn == 1 ? " rank per node" : " ranks per node");
    }
  }
  // srun -c N: N CPUs a task, which Slurm counts in hardware threads where
  // a core has several; a rank's slot is whole cores unless --hwthreads.
  std::string cpus_took;
  if (o.cpus_per_rank == 0 && batch->cpus_per_task > 0 && !a.hosts.empty()) {
    int per_core = 1;
    if (const int node = machine.find_host(a.hosts.front()); node >= 0 && !o.hwthreads) {
      const NodeType& type =
          machine.node_types[static_cast<std::size_t>(machine.nodes[static_cast<std::size_t>(node)].type)];
      per_core = std::max(1, static_cast<int>(type.pus.size()) / std::max(1, type.cores));
    }
    a.cpus_per_rank = (batch->cpus_per_task + per_core - 1) / per_core;
    cpus_took = std::to_string(a.cpus_per_rank) + (o.hwthreads ? " hardware thread" : " core") +
                (a.cpus_per_rank == 1 ? "" : "s") +
                " a rank from SLURM_CPUS_PER_TASK=" + std::to_string(batch->cpus_per_task);
  }
  // A Slurm job that shares its nodes holds some of their CPUs: slots are
  // made of those only (scontrol says which), so no rank binds outside.
  if (const char* job = std::getenv("SLURM_JOB_ID"); job && o.nodes.empty() && batch->source.starts_with("SLURM")) {
    const std::map<std::string, std::vector<unsigned>> held = slurm_job_cpus(job);
    for (std::size_t k = 0; k < batch->hosts.size() && !held.empty(); ++k) {
      const auto it = held.find(batch->hosts[k]);
      a.held_cpus.push_back(it == held.end() ? std::vector<unsigned>{} : it->second);
    }
  }
  // Each figure with the variable it came from.
  std::vector<std::string> parts;
  if (!took.empty()) parts.push_back(took + " from " + printable(batch->source));
  if (!counts_took.empty()) parts.push_back(counts_took + " from " + printable(batch->ranks_source));
  if (!cpus_took.empty()) parts.push_back(cpus_took);
  for (std::size_t i = 0; i < parts.size(); ++i) note += (i ? ", " : "rankmap: ") + parts[i];
  if (!note.empty()) note += " (--nodes, --ppn and --cpus-per-rank override)";
  return a;
}

}  // namespace

LoadedMachine load(const MachineOptions& o) {
  LoadedMachine l{load_machine(o.machine), {}};
  for (const auto& file : l.machine.files) note_input(file);
  std::string note;
  l.allocation = make_allocation(l.machine, allocation_options(l.machine, o, note));
  if (!note.empty() && !o.quiet) std::fprintf(stderr, "%s\n", note.c_str());
  return l;
}

void warn_if_job_tasks_differ(std::size_t ranks, const std::string& graph_path, bool quiet) {
  if (quiet) return;
  // SLURM_NTASKS as the batch reader reads it (a malformed value was said,
  // or overridden by --nodes and --ppn, already).
  std::optional<BatchAllocation> batch;
  try {
    batch = read_batch_allocation(process_environment());
  } catch (const Error&) {
    return;
  }
  if (!batch || !batch->source.starts_with("SLURM") || batch->ranks == 0 || batch->ranks == ranks) return;
  std::fprintf(stderr,
               "rankmap: warning: the batch job has SLURM_NTASKS=%zu tasks, but %s has %zu ranks: the mapping is "
               "for %zu (launch that many, or profile the job at its size)\n",
               batch->ranks, printable(graph_path).c_str(), ranks, ranks);
}

LoadedMachine load_for_launch_file(const MachineOptions& o, const std::string& path, const std::string& format,
                                   std::uint32_t ranks, Mapping& mapping) {
  LoadedMachine l = load(o);
  std::string note;
  const AllocationOptions given = allocation_options(l.machine, o, note);
  if (given.ppn != 0) {
    mapping = read_checked(path, format, l.machine, l.allocation, ranks);
    return l;
  }
  try {
    mapping = read_checked(path, format, l.machine, l.allocation, ranks);
    return l;
  } catch (const Error&) {
    // Slots of several cores (map --ppn below the cores): the widest that
    // read the file back, fewest ranks per node first tried last.
    std::size_t most = 0;
    for (std::size_t k = 0; k < l.allocation.size(); ++k) most = std::max(most, l.allocation.slots(k).size());
    for (int ppn = static_cast<int>(most) - 1; ppn >= 1; --ppn) {
      AllocationOptions a = given;
      a.ppn = ppn;
      try {
        Allocation allocation = make_allocation(l.machine, a);
        mapping = read_checked(path, format, l.machine, allocation, ranks);
        if (!o.quiet) std::fprintf(stderr, "rankmap: --ppn %d: the slot widths of %s\n", ppn, printable(path).c_str());
        l.allocation = std::move(allocation);
        return l;
      } catch (const Error&) {
      }
    }
    throw;
  }
}

void Progress::done(const std::string& what) {
  const auto now = Clock::now();
  const double stage = std::chrono::duration<double>(now - stage_).count();
  stage_ = now;
  if (!quiet_ && (stage >= 1.0 || verbose_))
    std::fprintf(stderr, "rankmap: %s (%.1f s)\n", printable(what, 1000).c_str(), stage);
}

double Progress::seconds_since_start() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

LoadedGraph load_graph(const std::string& path) {
  note_input(path);
  if (std::filesystem::path(path).extension() != ".rmp") return {read_graph(path), std::nullopt, {}, {}, {}};
  Profile profile = read_profile(path);
  std::vector<CollectiveCalls> calls;
  if (profile.calls_complete) calls = std::move(profile.calls);
  return {profile.total(), profile.p_mpi, profile.exchanges(), std::move(profile.collective), std::move(calls)};
}

// Sizes joined by 'x': "16x8x8".
std::vector<int> parse_dims(const std::string& text, const char* option) {
  std::vector<int> dims;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t x = text.find('x', pos);
    if (x == std::string::npos) x = text.size();
    int v = 0;
    auto [p, ec] = std::from_chars(text.data() + pos, text.data() + x, v);
    if (ec != std::errc() || p != text.data() + x || v < 1)
      throw Error(option, 0, "expected sizes joined by 'x', e.g. 16x8x8, got '" + text + "'");
    dims.push_back(v);
    pos = x + 1;
  }
  return dims;
}

Mapping read_checked(const std::string& path, const std::string& format, const Machine& machine,
                     const Allocation& allocation, std::uint32_t ranks) {
  note_input(path);
  note_input(path + ".env");  // a companion, read by the formats that bind by local rank
  const LaunchFormat f = format.empty() ? detect_launch_format(path) : parse_launch_format(format);
  Mapping mapping = read_launch_file(path, f, machine, allocation);
  verify_mapping(mapping, allocation, ranks, path);
  return mapping;
}

}  // namespace rankmap::cli
