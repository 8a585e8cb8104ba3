// Running an MPI job from rankmap (job.hpp).
#include "job.hpp"

#include <elf.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

#include "common.hpp"
#include "rankmap/error.hpp"
#include "rankmap/io.hpp"

namespace rankmap::cli {
namespace {

std::filesystem::path self_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path(".") : exe.parent_path();
}

}  // namespace

std::filesystem::path find_shim(const std::string& mpi) {
  const std::string name = "librankmap-pmpi-" + mpi + ".so";
  std::vector<std::filesystem::path> dirs;
  if (const char* d = std::getenv("RANKMAP_SHIM_DIR")) dirs.emplace_back(d);
  dirs.push_back(self_dir() / ".." / "lib");
  dirs.push_back(self_dir() / ".." / RANKMAP_INSTALL_LIBDIR);
  for (const auto& d : dirs)
    if (std::filesystem::exists(d / name)) return std::filesystem::canonical(d / name);
  throw Error(name, 0,
              "not found (looked in $RANKMAP_SHIM_DIR, ../lib and ../" RANKMAP_INSTALL_LIBDIR
              " next to rankmap); was rankmap built with " +
                  mpi + " installed?");
}

std::string resolve(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t at = 0; at <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', at), dirs.size());
    const std::filesystem::path p = std::filesystem::path(dirs.substr(at, end - at)) / program;
    if (::access(p.c_str(), X_OK) == 0) return p.string();
    at = end + 1;
  }
  return program;
}

std::string launcher_mpi(const std::string& launcher) {
  std::error_code ec;
  const std::string real = std::filesystem::canonical(resolve(launcher), ec).filename().string();
  const std::string name = ec ? launcher : real;
  if (name.find("openmpi") != std::string::npos || name.find("orterun") != std::string::npos ||
      name.find("prterun") != std::string::npos)
    return "openmpi";
  if (name.find("mpich") != std::string::npos || name.find("hydra") != std::string::npos) return "mpich";
  return "";
}

// A script, a static or an indirect link says nothing.
LinkedMpi linked_mpi(const std::filesystem::path& file) {
  std::error_code regular;
  if (!std::filesystem::is_regular_file(file, regular)) return {};  // a FIFO would block the read
  std::ifstream in(file, std::ios::binary);
  Elf64_Ehdr eh{};
  if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr))
    return {};
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(file, ec);
  auto fits = [&](std::uint64_t offset, std::uint64_t bytes) {
    return !ec && offset <= size && bytes <= size - offset;
  };
  if (!fits(eh.e_shoff, std::uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr))) return {};
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  in.seekg(static_cast<std::streamoff>(eh.e_shoff));
  if (!in.read(reinterpret_cast<char*>(sections.data()),
               static_cast<std::streamsize>(sections.size() * sizeof(Elf64_Shdr))))
    return {};
  for (const Elf64_Shdr& dyn : sections) {
    if (dyn.sh_type != SHT_DYNAMIC || dyn.sh_link >= sections.size()) continue;
    const Elf64_Shdr& str = sections[dyn.sh_link];
    if (!fits(dyn.sh_offset, dyn.sh_size) || !fits(str.sh_offset, str.sh_size)) return {};
    std::vector<Elf64_Dyn> entries(dyn.sh_size / sizeof(Elf64_Dyn));
    std::string strings(str.sh_size, '\0');
    in.seekg(static_cast<std::streamoff>(dyn.sh_offset));
    in.read(reinterpret_cast<char*>(entries.data()), static_cast<std::streamsize>(entries.size() * sizeof(Elf64_Dyn)));
    in.seekg(static_cast<std::streamoff>(str.sh_offset));
    in.read(strings.data(), static_cast<std::streamsize>(strings.size()));
    if (!in) return {};
    for (const Elf64_Dyn& d : entries) {
      if (d.d_tag != DT_NEEDED || d.d_un.d_val >= strings.size()) continue;
      const std::string name = strings.c_str() + d.d_un.d_val;
      if (name.rfind("libmpich", 0) == 0 || name == "libmpi.so.12") return {"mpich", name};
      if (name.rfind("libmpi", 0) == 0 && name.find(".so.40") != std::string::npos) return {"openmpi", name};
    }
  }
  return {};
}

std::pair<std::string, LinkedMpi> application_mpi(const std::vector<std::string>& command, std::size_t first) {
  for (std::size_t i = first; i < command.size(); ++i) {
    const std::string path = resolve(command[i]);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) continue;
    if (LinkedMpi linked = linked_mpi(path); !linked.mpi.empty()) return {command[i], linked};
  }
  return {};
}

const char* mpi_name(const std::string& mpi) { return mpi == "openmpi" ? "Open MPI" : "MPICH"; }

namespace {

// `value` before the variable's current value, for the job's environment.
std::pair<std::string, std::string> prepended(const char* name, const std::string& value, char separator) {
  const char* old = std::getenv(name);
  return {name, old && *old ? value + separator + old : value};
}

std::atomic<pid_t> job{0};
std::atomic<int> forwarded_signal{0};

extern "C" void pass_on(int sig) {
  forwarded_signal.store(sig);
  if (const pid_t p = job.load(); p > 0) ::kill(p, sig);
}

// While `child` runs, SIGINT, SIGTERM and SIGHUP are passed on to it; 0
// restores the handlers from before (main()'s, which remove temporary
// files).
void forward_signals_to(pid_t child) {
  static struct sigaction before[3];
  const int signals[3] = {SIGINT, SIGTERM, SIGHUP};
  job.store(child);
  struct sigaction sa {};
  sa.sa_handler = pass_on;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; ++i)
    if (child)
      ::sigaction(signals[i], &sa, &before[i]);
    else
      ::sigaction(signals[i], &before[i], nullptr);
}

int run_with(const std::vector<std::string>& command, const std::vector<std::pair<std::string, std::string>>& env,
             int& forwarded) {
  if (command.empty()) throw Error("run", 0, "no command to run");
  std::vector<char*> argv;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);
  forwarded_signal.store(0);
  const pid_t child = ::fork();
  if (child < 0) throw Error("run", 0, "cannot start the job: fork failed");
  if (child == 0) {
    for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "rankmap: cannot run '%s': %s\n", printable(argv[0]).c_str(), std::strerror(errno));
    ::_exit(127);
  }
  // A supervisor: the signals go on to the job, which is waited for, so
  // that neither it nor rankmap's temporary files are left behind.
  forward_signals_to(child);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) {
      forward_signals_to(0);
      throw Error("run", 0, "lost track of the job: waitpid failed");
    }
  forward_signals_to(0);
  forwarded = forwarded_signal.load();
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int run_supervised(const std::vector<std::string>& command, const std::vector<std::pair<std::string, std::string>>& env,
                   int& forwarded) {
  return run_with(command, env, forwarded);
}

void require_program_of(const std::string& mpi, const std::string& chosen_by, const std::vector<std::string>& command,
                        std::size_t first) {
  // The shim must be the program's MPI's: the other's kills it (MPI_ERR_ARG
  // from mismatched handles) before it can say why, and the other's
  // launcher starts it as singletons that never meet.
  const auto [program, linked] = application_mpi(command, first);
  if (!linked.mpi.empty() && linked.mpi != mpi)
    throw Error(ErrorKind::argument, Parameter{"mpi"},
                program + " links " + mpi_name(linked.mpi) + " (" + linked.library + "), not " + mpi_name(mpi) + " (" +
                    chosen_by + "); launch it with " + mpi_name(linked.mpi) + "'s launcher (" +
                    (linked.mpi == "openmpi" ? "mpirun.openmpi" : "mpiexec.mpich") + ", --mpi " + linked.mpi +
                    "), or rebuild it with mpicc." + mpi);
}

std::string choose_mpi(const std::string& given, const std::vector<std::string>& command) {
  const auto [program, linked] = application_mpi(command);
  std::string mpi = given, chosen_by = "--mpi " + given;
  if (mpi.empty()) {
    mpi = launcher_mpi(command[0]);
    chosen_by = "from the launcher's name";
    if (mpi.empty()) mpi = linked.mpi;
    if (mpi.empty())
      throw Error("--mpi", 0,
                  "cannot tell which MPI '" + command[0] +
                      "' launches or the program links; pass --mpi openmpi or --mpi mpich");
  }
  require_program_of(mpi, chosen_by, command);
  return mpi;
}

std::vector<std::pair<std::string, std::string>> shim_environment(const std::string& mpi,
                                                                  const std::filesystem::path& profile,
                                                                  const std::filesystem::path& machine) {
  std::vector<std::pair<std::string, std::string>> env{{"RANKMAP_PROFILE", profile.string()},
                                                       prepended("LD_PRELOAD", find_shim(mpi).string(), ':')};
  std::string forwarded = "LD_PRELOAD;RANKMAP_PROFILE";
  if (!machine.empty()) {
    env.emplace_back("RANKMAP_MACHINE", std::filesystem::absolute(machine).string());
    forwarded += ";RANKMAP_MACHINE";
  }
  // Open MPI forwards only the variables it is told to to remote nodes.
  if (mpi == "openmpi") env.push_back(prepended("OMPI_MCA_mca_base_env_list", forwarded, ';'));
  return env;
}

namespace {

// Whether the shim left a profile at `path` that reads whole (into `profile`).
bool whole_profile(const std::filesystem::path& path, Profile& profile) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  try {
    profile = read_profile(path);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

int profile_job(const std::vector<std::string>& command, const std::string& mpi, const std::filesystem::path& output,
                Profile& profile) {
  const std::filesystem::path out = std::filesystem::absolute(output);
  // The shim writes beside the output under a name of this run, so that an
  // old profile is never mistaken for this job's.
  const std::filesystem::path fresh = out.string() + ".run-" + std::to_string(::getpid()) + ".rmp";
  std::filesystem::remove(fresh);
  int forwarded = 0;
  const int code = run_with(command, shim_environment(mpi, fresh), forwarded);
  if (forwarded) {
    std::filesystem::remove(fresh);
    std::cerr << "rankmap: stopped by signal " << forwarded << " (passed on to the job); no profile written to "
              << printable(output.string()) << "\n";
    return 128 + forwarded;
  }
  if (code != 0) {
    // The shim writes the profile whole inside MPI_Finalize, rank 0 taking
    // each rank's lines in turn: one there means every rank got that far,
    // and the status came after. Open MPI 4.1's runtime now and then calls
    // a rank that finalized "exiting improperly" (open-mpi/ompi#7833,
    // #9389; 256 ranks on 2 cores, bench/RESULTS.md, issue 55). The
    // profile is kept and the status passed on.
    if (whole_profile(fresh, profile)) {
      std::filesystem::rename(fresh, out);
      std::cerr << "rankmap: the job exited with status " << code << " after every rank reached MPI_Finalize; "
                << "its profile is whole, written to " << printable(output.string()) << "\n";
      return code;
    }
    std::filesystem::remove(fresh);
    std::cerr << "rankmap: the job exited with status " << code << "; no profile written to "
              << printable(output.string()) << "\n";
    return code;
  }
  if (!std::filesystem::exists(fresh))
    throw Error(output.string(), 0,
                "the job finished but left no profile: did it call MPI_Finalize, and is it linked to " + mpi + "?");
  try {
    profile = read_profile(fresh);  // refuses a broken file
  } catch (...) {
    std::filesystem::remove(fresh);
    throw;
  }
  std::filesystem::rename(fresh, out);
  return 0;
}

}  // namespace rankmap::cli
