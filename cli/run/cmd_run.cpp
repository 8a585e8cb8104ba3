// rankmap run -m MACHINE [--profile APP.rmp] -- [LAUNCHER OPTIONS] ./app ARGS:
// from allocation to mapped run in one command. Reads the allocation (the
// launcher's hosts, the batch job's, or --nodes), profiles the job once
// under the shim when no profile is given or cached, maps it, writes the
// launch files to a private folder and runs the launcher with them,
// passing the job's exit status and signals through.
#include <stdlib.h>
#include <sys/stat.h>

#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common.hpp"
#include "job.hpp"
#include "launch_command.hpp"
#include "launcher_options.hpp"
#include "private_folder.hpp"
#include "profile_cache.hpp"
#include "rankmap/batch.hpp"
#include "rankmap/context.hpp"
#include "rankmap/error.hpp"
#include "rankmap/hostlist.hpp"
#include "rankmap/io.hpp"
#include "rankmap/launch.hpp"
#include "rankmap/map.hpp"
#include "rankmap/mapping.hpp"
#include "rankmap/rankmap.h"
#include "report.hpp"
#include "run_summary.hpp"

namespace rankmap::cli {
namespace {

struct RunOptions {
  MachineOptions machine;
  std::string profile, mpi, keep, cache, preset = "default";
  std::size_t np = 0;
  std::uint64_t seed = 1;
  int threads = 0;
  bool profile_first = false, dry_run = false, quiet = false, reorder = false;
  std::vector<std::string> command;
};

void say(const RunOptions& o, const std::string& line) {
  if (!o.quiet) std::fprintf(stderr, "rankmap: %s\n", printable(line, 2000).c_str());
}

// The ranks: -np, else the launcher's own count, else the batch job's,
// else the profile's; `from` says which. Only a launcher's options count:
// a bare program's "-n 3" is the program's own argument.
std::size_t rank_count(const RunOptions& o, const JobCommand& job, const std::optional<BatchAllocation>& batch,
                       std::size_t profile_ranks, std::string* from = nullptr) {
  std::string ignored;
  std::string& said = from ? *from : ignored;
  std::vector<std::string> launcher{job.program};
  launcher.insert(launcher.end(), job.options.begin(), job.options.end());
  const std::size_t asked = launcher_ranks(launcher);
  if (o.np && asked && o.np != asked)
    throw Error(ErrorKind::argument, Parameter{"np"},
                std::to_string(o.np) + " ranks, but the launcher's own options ask for " + std::to_string(asked) +
                    "; give the count once");
  if (o.np) return said = "-np", o.np;
  if (asked) return said = "the launcher's count", asked;
  if (batch && batch->ranks)
    return said = batch->source.starts_with("SLURM") ? "SLURM_NTASKS" : batch->source, batch->ranks;
  if (profile_ranks) return said = "the profile's", profile_ranks;
  throw Error(ErrorKind::argument, Parameter{"np"},
              "how many ranks? give -np N (or the launcher's -np, or run inside a batch job with a task count)");
}

// Whether every node has the same slots (one layout), as srun's one
// --cpu-bind list for every node needs.
bool one_layout(const Allocation& allocation) {
  for (std::size_t k = 1; k < allocation.size(); ++k)
    if (allocation.layout_of[k] != allocation.layout_of[0]) return false;
  return true;
}

// The folder for the launch files: --keep DIR (made if missing, kept), or
// a private one under $TMPDIR that goes away with the run, with an error
// before it, or with a signal. A dry run's stays once its command is
// printed (shown()), for the user to read; one that fails before leaves
// nothing behind.
struct FilesDir {
  std::unique_ptr<PrivateFolder> own;
  std::filesystem::path path;
  void shown() const {
    if (own) own->keep();
  }
};
FilesDir files_dir(const RunOptions& o) {
  FilesDir d;
  if (!o.keep.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.keep, ec);
    if (!std::filesystem::is_directory(o.keep, ec))
      throw Error(o.keep, 0, "cannot be made a directory for the launch files (--keep DIR)", ErrorKind::io);
    d.path = std::filesystem::absolute(o.keep);
    return d;
  }
  d.own = std::make_unique<PrivateFolder>("rankmap-run-");
  d.path = d.own->path();
  return d;
}

// Runs the launcher, passing SIGINT, SIGTERM and SIGHUP on: the job's exit
// status. A launcher may exit 0 once its ranks are stopped (MPICH's
// mpiexec does): the run did not finish, and the caller learns it as from
// a shell, 128 + the signal.
int launch(const RunOptions& o, const CommandLine& line) {
  int forwarded = 0;
  const int code = run_supervised(line.argv, line.env, forwarded);
  if (!forwarded) return code;
  say(o, "stopped by signal " + std::to_string(forwarded) + " (passed on to the job, which exited with status " +
             std::to_string(code) + ")");
  // 128 + the signal whatever the launcher returned (Open MPI 1, MPICH
  // 255), as a shell reports a job a signal ended: a loop over runs stops.
  return 128 + forwarded;
}

// When a file was last written, as "2026-11-28 06:50" (local time).
std::string modified_at(const std::string& path) {
  struct stat st {};
  char text[40] = "at an unknown time";
  struct tm local {};
  if (::stat(path.c_str(), &st) == 0 && ::localtime_r(&st.st_mtim.tv_sec, &local))
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", &local);
  return text;
}

// The program must be there (a path, or a name on PATH) before any
// launcher is started: a launcher's own word for a missing program comes
// from every rank, or not at all. A dry run only says so.
void require_existing_program(const RunOptions& o, const std::string& program) {
  std::error_code ec;
  if (std::filesystem::exists(resolve(program), ec)) return;
  const std::string why = program.find('/') != std::string::npos ? "no such file" : "no such program on PATH";
  if (!o.dry_run) throw Error(program, 0, why, ErrorKind::argument);
  say(o, "warning: " + program + ": " + why);
}

// A hybrid job's threads inside each rank's block, as `map` prints them:
// OMP_NUM_THREADS, OMP_PLACES and OMP_PROC_BIND unless the user set them,
// passed to every node (Open MPI forwards only what -x names).
void add_thread_placement(CommandLine& line, const Allocation& allocation, Launcher launcher) {
  const std::pair<std::string, std::string> wanted[] = {{"OMP_NUM_THREADS", std::to_string(allocation.cpus_per_rank)},
                                                        {"OMP_PLACES", allocation.hwthreads ? "threads" : "cores"},
                                                        {"OMP_PROC_BIND", "close"}};
  std::vector<std::string> forward;
  for (const auto& [name, value] : wanted) {
    if (!std::getenv(name.c_str())) line.env.emplace_back(name, value);
    forward.insert(forward.end(), {"-x", name});
  }
  if (launcher == Launcher::openmpi && !line.argv.empty())
    line.argv.insert(line.argv.begin() + 1, forward.begin(), forward.end());
}

// The allocation's hosts with their slots (host:slots), for a launch on
// the nodes rankmap chose; none (HostSlots{}) when the launcher or the
// batch job already names them.
using HostSlots = std::vector<std::pair<std::string, int>>;
HostSlots slots_by_host(const Machine& machine, const Allocation& allocation) {
  HostSlots hosts;
  for (std::size_t k = 0; k < allocation.size(); ++k)
    hosts.emplace_back(machine.nodes[allocation.nodes[k]].host, static_cast<int>(allocation.slots(k).size()));
  return hosts;
}

// The MPI whose shim goes into the job: `mpi` when known, else the one
// the application links; `what` says what needs it.
std::string shim_mpi(const std::string& mpi, const JobCommand& job, const std::string& what) {
  if (!mpi.empty()) return mpi;
  std::string linked = application_mpi(job.application, 0).second.mpi;
  if (linked.empty())
    throw Error(ErrorKind::argument, Parameter{"mpi"},
                "cannot tell which MPI '" + job.application[0] + "' links, for " + what +
                    "; pass --mpi openmpi or --mpi mpich");
  return linked;
}

// --reorder: the job as launched (the launcher's placement, on the
// allocation), under the shim with RANKMAP_MACHINE, so that its own
// topology calls with reorder = 1 renumber its ranks by the machine; its
// profile is written too (kept with --keep).
int run_reordering(const RunOptions& o, const JobCommand& job, const std::string& mpi, std::size_t ranks,
                   const HostSlots& hosts) {
  const CommandLine launched = default_run(job, ranks, hosts);
  const FilesDir files = files_dir(o);
  const std::filesystem::path& dir = files.path;
  const std::filesystem::path profile = dir / "profile.rmp";
  check_outputs({profile});
  auto env = launched.env;
  for (auto& variable : shim_environment(mpi, profile, o.machine.machine)) env.push_back(variable);
  if (o.dry_run) {
    std::cout << shell_line({env, launched.argv}) << "\n";
    files.shown();
    return 0;
  }
  say(o, "running as launched; the job's topology calls with reorder = 1 renumber its ranks by " + o.machine.machine +
             (o.keep.empty() ? "" : "; its profile goes to " + profile.string()));
  return launch(o, {env, launched.argv});
}

int run_run(const RunOptions& o) {
  if (o.command.empty())
    throw Error(ErrorKind::argument, Parameter{"command"},
                "expected the job after '--', e.g. -- ./app or -- mpirun ./app");
  const bool in_slurm = std::getenv("SLURM_JOB_ID") != nullptr;
  // Which MPI: --mpi, the launcher's name, or what the program links.
  std::string mpi = o.mpi, chosen_by = "--mpi " + o.mpi;
  if (mpi.empty()) mpi = launcher_mpi(o.command[0]), chosen_by = "from the launcher's name";
  if (mpi.empty()) mpi = application_mpi(o.command, 0).second.mpi;
  require_existing_program(o, o.command[0]);
  const JobCommand job = split_job_command(o.command, mpi, in_slurm);
  if (job.launcher != Launcher::slurm && mpi.empty()) mpi = job.launcher == Launcher::openmpi ? "openmpi" : "mpich";
  if (!job.application.empty() && job.application[0] != o.command[0]) require_existing_program(o, job.application[0]);
  if (!mpi.empty()) require_program_of(mpi, chosen_by, job.application, 0);

  // The allocation: --nodes, else the launcher's hosts, else the batch
  // job's (load() reads it), else every node.
  MachineOptions machine_options = o.machine;
  machine_options.quiet = o.quiet;
  std::vector<std::string> launcher_words{job.program};  // the launcher's words, never the program's
  launcher_words.insert(launcher_words.end(), job.options.begin(), job.options.end());
  const std::optional<BatchAllocation> launcher_hosts = read_launcher_hosts(launcher_words);
  const std::optional<BatchAllocation> batch = read_batch_allocation(process_environment());  // read once
  if (machine_options.nodes.empty() && launcher_hosts) {
    // Their names as the machine file has them (short names for full ones).
    const Machine names = load_machine(o.machine.machine);
    machine_options.nodes = compress_hostlist(machine_host_names(names, launcher_hosts->hosts));
    machine_options.nodes_source = launcher_hosts->source;
    if (machine_options.ppn == 0) machine_options.ppn = launcher_hosts->ranks_per_node;
  }
  const bool hosts_from_rankmap = !o.machine.nodes.empty() || (!launcher_hosts && !batch);
  auto [machine, allocation] = load(machine_options);
  if (!machine_options.nodes_source.empty())
    say(o, std::to_string(allocation.size()) + " nodes from " + machine_options.nodes_source);

  if (o.reorder) {
    const std::size_t ranks = rank_count(o, job, batch, 0);
    return run_reordering(o, job, shim_mpi(mpi, job, "its shim"), ranks,
                          hosts_from_rankmap ? slots_by_host(machine, allocation) : HostSlots{});
  }

  const std::filesystem::path cache_dir = o.cache.empty() ? default_cache_dir() : std::filesystem::path(o.cache);
  // The profile: given, cached, or made now by a first run.
  std::string profile_path = o.profile;
  std::optional<CachedProfile> cached;
  std::optional<LoadedGraph> loaded;
  std::size_t ranks = 0;
  std::string ranks_from;
  bool profile_now = false;
  if (profile_path.empty()) {
    ranks = rank_count(o, job, batch, 0, &ranks_from);
    mpi = shim_mpi(mpi, job, "its profile");
    cached = find_cached_profile(cache_dir, job.application, ranks, mpi, o.keep);
    if (!cached->usable) say(o, "cache: " + cached->why + "; the job runs without it");
    profile_path = cached->profile.string();
    if (cached->hit && !o.profile_first) {
      // A damaged entry (truncated, foreign) is said once and made again.
      try {
        loaded = load_graph(profile_path);
        say(o, "profile: cache hit " + profile_path + " (made " + modified_at(profile_path) +
                   "; --profile-first profiles the job again)");
      } catch (const Error& e) {
        say(o, "profile: the cached " + profile_path + " cannot be read (" + e.what() + "); profiling the job again");
      }
    }
    profile_now = !loaded;
  }
  const CommandLine first =
      default_run(job, ranks, hosts_from_rankmap ? slots_by_host(machine, allocation) : HostSlots{});
  if (profile_now && o.dry_run) {
    std::cout << "# no profile of this job yet: rankmap run profiles it first with\n"
              << shell_line(first) << "\n# then maps it and launches it with a launch file\n";
    return 0;
  }
  const FilesDir files = files_dir(o);
  const std::filesystem::path& dir = files.path;
  if (profile_now) {
    say(o, "profiling first (no profile of this job in " + cached->profile.parent_path().string() +
               "): " + shell_line(first));
    find_shim(mpi);
    // Into the run's own folder first: a cache that cannot be written (a
    // full file system) still gives this run its profile.
    const std::filesystem::path fresh = dir / "profile.rmp";
    Profile made;
    if (const int code = profile_job(first.argv, mpi, fresh, made); code != 0) return code;
    profile_path = fresh.string();
    try {
      if (!cached->usable) throw Error(cache_dir.string(), 0, cached->why, ErrorKind::io);
      write_files_atomically(cached->profile, {{"", read_text_file(fresh)}});
      remember_profile(*cached);
      profile_path = cached->profile.string();
      say(o, "profiled: " + std::to_string(made.ranks.size()) + " ranks; kept as " + profile_path);
    } catch (const Error& e) {
      say(o, "profiled: " + std::to_string(made.ranks.size()) + " ranks, but the profile could not be kept in the " +
                 "cache (" + e.what() + "); the job runs mapped all the same");
    }
  }

  if (!loaded) loaded = load_graph(profile_path);
  const auto& [graph, p_mpi, p2p, collective, calls] = *loaded;
  if (!ranks) ranks = rank_count(o, job, batch, graph.ranks, &ranks_from);
  if (graph.ranks != ranks)
    throw Error(profile_path, 0,
                "has " + std::to_string(graph.ranks) + (graph.ranks == 1 ? " rank" : " ranks") + ", the job " +
                    std::to_string(ranks) + " (" + ranks_from + "); profile the job at its size (--profile-first)");
  warn_if_job_tasks_differ(ranks, profile_path, o.quiet);

  Context context = create_context(o.preset);
  // The launcher's own --oversubscribe is the user's choice: rankmap maps
  // as the launcher will run, ranks sharing slots.
  for (const std::string& word : job.options)
    if (launcher_option_is(job.launcher, word,
                           job.launcher == Launcher::slurm     ? "-s|--oversubscribe"
                           : job.launcher == Launcher::openmpi ? "--oversubscribe"
                                                               : ""))
      context.oversubscribe = true;
  context.seed = o.seed;
  context.threads = o.threads;
  const Launcher launcher = job.launcher;
  const std::filesystem::path launch_file = dir / launch_file_name(launcher);
  check_outputs({launch_file, dir / "report.json", dir / "report.txt", dir / "mapping.csv"});

  // The mapping: cached under everything that decides it, else made now
  // (seconds for a profile on a large machine, as the flow model times
  // each candidate) and kept. The key holds the slots each node actually
  // gives (from --ppn or the batch job's tasks per node alike).
  std::string key = "rankmap run mapping key 3\nversion " + std::string(rankmap_version()) + "\nprofile " +
                    file_identity(profile_path) + "\n";
  for (const auto& file : machine.files) key += "machine " + file_identity(file) + "\n";
  std::vector<std::string> hosts;
  std::string slots;
  for (std::size_t k = 0; k < allocation.size(); ++k) {
    hosts.push_back(machine.nodes[static_cast<std::size_t>(allocation.nodes[k])].host);
    slots += (k ? "," : "") + std::to_string(allocation.layout_of[k]);
  }
  // The slots themselves (a job that holds other CPUs of its nodes, or
  // another task count there, has other slots): each layout's PUs, and
  // each node's layout.
  for (std::size_t l = 0; l < allocation.layouts.size(); ++l) {
    key += "layout " + std::to_string(l);
    for (const Slot& slot : allocation.layouts[l]) {
      key += " ";
      for (std::size_t i = 0; i < slot.pus.size(); ++i) key += (i ? "+" : "") + std::to_string(slot.pus[i]);
    }
    key += "\n";
  }
  key += "nodes " + compress_hostlist(hosts) + "\nlayout_of " + slots + "\nhwthreads " +
         std::to_string(allocation.hwthreads) + "\ncpus_per_rank " + std::to_string(allocation.cpus_per_rank) +
         "\nranks " + std::to_string(ranks) + "\n" + dump_context(context);
  CachedMapping kept_mapping = find_cached_mapping(cache_dir, key);
  Mapping mapping;
  std::string json_text, table, csv_text;
  std::optional<RunSummary> summary;
  if (kept_mapping.hit) {
    // A damaged entry (truncated, empty or foreign JSON) is said and made again.
    try {
      mapping = read_launch_file(kept_mapping.csv, LaunchFormat::csv, machine, allocation);
      verify_mapping(mapping, allocation, ranks, kept_mapping.csv.string());
      json_text = read_text_file(kept_mapping.json);
      table = read_text_file(kept_mapping.table);
      csv_text = read_text_file(kept_mapping.csv);
      summary = summary_of(json_text, kept_mapping.json.string());
      say(o, "mapping: cache hit " + kept_mapping.csv.string());
    } catch (const Error& e) {
      say(o, std::string("mapping: the cached entry cannot be read (") + e.what() + "); mapping again");
    }
  }
  if (!summary) {
    const MapResult result =
        map_explained(graph, machine, allocation, context, {}, TrafficKinds{&p2p, &collective, &calls, p_mpi});
    mapping = result.mapping;
    ReportRequest request{"rankmap " + context.preset,
                          (dir / "report.json").string(),
                          0.0,
                          p_mpi,
                          profile_path,
                          result.kept,
                          result.why,
                          result.nodes_why};
    request.p2p = &p2p;
    request.collective = &collective;
    request.calls = &calls;
    request.known_flows = known_flows_of(result, allocation, graph.ranks, context.oversubscribe);
    request.known_program = known_program_of(result, allocation, graph.ranks, context.oversubscribe, p_mpi);
    request.threads = context.threads;
    request.json_text = &json_text;
    // The table map prints, kept as report.txt beside the JSON.
    table = report(graph, machine, allocation, mapping, request);
    csv_text = render_launch_files(LaunchFormat::csv, machine, allocation, mapping).at(0).text;
    summary = summary_of(json_text, "the report");
    try {
      if (kept_mapping.usable) remember_mapping(kept_mapping, csv_text, json_text, table);
    } catch (const Error& e) {
      say(o, std::string("mapping: could not be kept in the cache (") + e.what() + ")");
    }
  }
  const std::vector<FilePart> reports = {
      {"", json_text, dir / "report.json"}, {"", table, dir / "report.txt"}, {"", csv_text, dir / "mapping.csv"}};
  write_launch_files(launch_file, launch_format_of(launcher), machine, allocation, mapping, reports);
  // srun binds by local rank with one list for every node (map_cpu),
  // which each node checks against the CPUs the job holds there: a job
  // whose nodes differ (the CPUs it holds, its task counts), or a mapping
  // whose local ranks sit on different CPUs on different nodes (the .env
  // then says none), has each task bound by `rankmap bind-task` from the
  // launch file's .bind instead, which srun runs before the program.
  std::string env_text = launcher == Launcher::slurm ? read_text_file(launch_file.string() + ".env") : "";
  const bool bind_each_task = launcher == Launcher::slurm &&
                              (!one_layout(allocation) || env_text.find("SLURM_CPU_BIND=none\n") != std::string::npos);
  const std::filesystem::path bind_file = launch_file.string() + ".bind";
  if (bind_each_task)
    say(o,
        "srun's one --cpu-bind list cannot bind this job (its nodes differ, or the mapping's local ranks do): srun "
        "binds no task itself; rankmap bind-task binds each where the mapping says");

  // One line: nodes, hop-bytes against block, the predicted gain, the files.
  const double base = summary->baseline_hop_bytes;
  const double gain = summary->gain.value_or(0.0);
  char figures[200];
  std::snprintf(figures, sizeof figures, "%zu %s on %d %s (block: %d), hop-bytes %.3fx block", ranks,
                ranks == 1 ? "rank" : "ranks", summary->nodes, summary->nodes == 1 ? "node" : "nodes",
                summary->baseline_nodes, base > 0 ? summary->hop_bytes / base : 1.0);
  char predicted[120] = ", no predicted gain (no p_mpi)";
  if (summary->gain)
    std::snprintf(predicted, sizeof predicted, ", predicted gain %+.2f %%%s", 100 * gain,
                  gain < 0 ? " (the model predicts it slower than block)" : "");
  const std::string line = std::string(figures) + predicted + "; files in " + dir.string() +
                           (o.keep.empty() && !o.dry_run ? " (removed after the run; --keep DIR keeps them)" : "");
  say(o, line);

  JobCommand bound_job = job;
  if (bind_each_task) {
    env_text = "SLURM_CPU_BIND=none\n" + env_text;  // the first of a name counts
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    bound_job.application.insert(bound_job.application.begin(),
                                 {ec ? std::string("rankmap") : self.string(), "bind-task", bind_file.string(), "--"});
  }
  CommandLine mapped = mapped_run(bound_job, ranks, launch_file.string(), env_text);
  if (!mapped.dropped.empty()) {
    std::string words;
    for (const std::string& word : mapped.dropped) words += " " + word;
    say(o, "the launch file places the ranks; left out of the launcher's options:" + words);
  }
  if (allocation.cpus_per_rank > 0) add_thread_placement(mapped, allocation, launcher);
  if (o.dry_run) {
    std::cout << shell_line(mapped) << "\n";
    files.shown();
    return 0;
  }
  return launch(o, mapped);
}

}  // namespace

void add_run(Command& app, Action& action) {
  auto o = std::make_shared<RunOptions>();
  Command cmd = app.subcommand(
      "run", "Profile (once), map and launch an MPI job in one command, on the batch job's nodes when inside one");
  o->machine.add_to(cmd);
  cmd.option("--profile", o->profile, "The job's profile (.rmp) or graph; default: cached, else made by a first run");
  cmd.flag("--profile-first", o->profile_first, "Profile the job again even when a profile is cached");
  cmd.option("-n,--np", o->np, "Ranks (also -np; default: the launcher's -np, the batch job's tasks, the profile's)")
      .check(whole_number_from(1, 1'000'000'000, "ranks"));
  cmd.option("--mpi", o->mpi, "openmpi or mpich (default: from the launcher's name or the program's link)")
      .check(one_of({"openmpi", "mpich"}));
  cmd.option("--preset", o->preset, "How much the engine tries").show_default().check(one_of(preset_names()));
  cmd.option("--seed", o->seed, "Seed of every random choice").show_default();
  cmd.option("--threads", o->threads,
             "Threads for the engine (default: the CPUs this process may use; the mapping is the same for any "
             "number)")
      .check(whole_number_from(1, kMaxThreads, "threads"));
  cmd.option("--keep", o->keep, "Write the launch files, report.json, report.txt and mapping.csv here and keep them");
  cmd.option("--cache", o->cache,
             "Profile cache (default: $RANKMAP_CACHE_DIR, $XDG_CACHE_HOME/rankmap or ~/.cache/rankmap)");
  cmd.flag("--reorder", o->reorder,
           "Run the job as launched and let its own MPI topology calls with reorder = 1 (MPI_Cart_create, "
           "MPI_Graph_create, MPI_Dist_graph_create*) renumber its ranks by the machine: no profile needed, "
           "no launch file")
      .excludes(cmd.find("--profile"))
      .excludes(cmd.find("--profile-first"));
  cmd.flag("--dry-run", o->dry_run, "Print the launcher's command instead of running it (files kept)");
  cmd.flag("--quiet,-q", o->quiet, "No lines of rankmap's own on stderr");
  cmd.option("command", o->command, "The job, after '--': ./app ARGS, or a launcher with its options").required();
  cmd.footer(
      "Examples:\n"
      "  rankmap run -m cluster.toml -np 64 -- ./app input        (mpirun or mpiexec of the MPI ./app links)\n"
      "  rankmap run -m cluster.toml -- mpirun -np 64 --hostfile hosts ./app\n"
      "  rankmap run -m cluster.toml --reorder -- mpirun -np 64 ./app   (the app's MPI_Cart_create reorders)\n"
      "  sbatch -N 4 --ntasks-per-node 16 --wrap 'rankmap run -m cluster.toml -- ./app'   (srun inside Slurm)");
  cmd.on_chosen([o, &action] { action = [o] { return run_run(*o); }; });
}

}  // namespace rankmap::cli
