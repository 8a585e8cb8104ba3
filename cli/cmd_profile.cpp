// rankmap profile -o app.rmp -- mpirun -np 8 ./app: runs the job with the
// PMPI shim of its MPI preloaded and checks the profile it leaves.
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

#include "commands.hpp"
#include "common.hpp"
#include "rankmap/error.hpp"
#include "rankmap/io.hpp"
#include "rankmap/profile.hpp"

namespace rankmap::cli {
namespace {

struct ProfileOptions {
  std::string mpi, output;
  std::vector<std::string> command;
};

std::filesystem::path self_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path(".") : exe.parent_path();
}

// The shim of this MPI: $RANKMAP_SHIM_DIR, then next to the build tree's or
// the installed rankmap.
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

// Which MPI the launcher belongs to, from the name it resolves to
// (Debian: mpirun -> mpirun.openmpi or mpirun.mpich through alternatives);
// empty when the name does not say.
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

// The MPI a program links, with the library that says so: from the shared
// libraries its ELF dynamic section needs (DT_NEEDED). Open MPI's are
// libmpi*.so.40, MPICH's libmpich*.so.12 (or libmpi.so.12). Empty when the
// file is no 64-bit ELF or needs neither (a script, a static or indirect
// link): then nothing can be told.
struct LinkedMpi {
  std::string mpi, library;
};
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

// The first argument of the job (after the launcher) that is a program
// linking an MPI: the application, whatever the launcher's options.
std::pair<std::string, LinkedMpi> application_mpi(const std::vector<std::string>& command) {
  for (std::size_t i = 1; i < command.size(); ++i) {
    const std::string path = resolve(command[i]);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) continue;
    if (LinkedMpi linked = linked_mpi(path); !linked.mpi.empty()) return {command[i], linked};
  }
  return {};
}

const char* mpi_name(const std::string& mpi) { return mpi == "openmpi" ? "Open MPI" : "MPICH"; }

void prepend_env(const char* name, const std::string& value, char separator) {
  const char* old = std::getenv(name);
  const std::string v = old && *old ? value + separator + old : value;
  ::setenv(name, v.c_str(), 1);
}

std::atomic<pid_t> job{0};
std::atomic<int> forwarded_signal{0};

extern "C" void pass_on(int sig) {
  forwarded_signal.store(sig);
  if (const pid_t p = job.load(); p > 0) ::kill(p, sig);
}

// While `child` runs, SIGINT and SIGTERM are passed on to it; 0 restores
// the handlers from before (main()'s, which removes temporary files).
void forward_signals_to(pid_t child) {
  static struct sigaction before[2];
  const int signals[2] = {SIGINT, SIGTERM};
  job.store(child);
  struct sigaction sa {};
  sa.sa_handler = pass_on;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 2; ++i)
    if (child)
      ::sigaction(signals[i], &sa, &before[i]);
    else
      ::sigaction(signals[i], &before[i], nullptr);
}

int run_profile(const ProfileOptions& o) {
  if (o.command.empty()) throw Error("profile", 0, "expected the job's command after '--', e.g. -- mpirun -np 8 ./app");
  // The shim must be the program's MPI's: the other's kills it (MPI_ERR_ARG
  // from mismatched handles) before it can say why.
  const auto [program, linked] = application_mpi(o.command);
  std::string mpi = o.mpi, chosen_by = "--mpi " + o.mpi;
  if (mpi.empty()) {
    mpi = launcher_mpi(o.command[0]);
    chosen_by = "from the launcher's name";
    if (mpi.empty()) mpi = linked.mpi;
    if (mpi.empty())
      throw Error("--mpi", 0,
                  "cannot tell which MPI '" + o.command[0] +
                      "' launches or the program links; pass --mpi openmpi or --mpi mpich");
  }
  if (!linked.mpi.empty() && linked.mpi != mpi)
    throw Error("profile", 0,
                program + " links " + mpi_name(linked.mpi) + " (" + linked.library + "), not " + mpi_name(mpi) + " (" +
                    chosen_by + "); launch it with " + mpi_name(linked.mpi) + "'s mpirun and --mpi " + linked.mpi +
                    ", or rebuild it with mpicc." + mpi);
  const std::filesystem::path shim = find_shim(mpi);
  const std::filesystem::path out = std::filesystem::absolute(o.output);
  std::error_code ec;
  if (std::filesystem::is_directory(out, ec))
    throw Error(o.output, 0, "is a directory; expected the profile's file name, e.g. " + (out / "app.rmp").string());
  require_replaceable(o.output);
  // The program and any file the job's command names are inputs.
  for (const std::string& word : o.command) {
    std::error_code regular;
    if (const std::string path = resolve(word); std::filesystem::is_regular_file(path, regular)) note_input(path);
  }
  check_outputs({out});
  // The shim writes beside the output under a name of this run, so that an
  // old profile is never mistaken for this job's.
  const std::filesystem::path fresh = out.string() + ".run-" + std::to_string(::getpid()) + ".rmp";
  std::filesystem::remove(fresh);
  ::setenv("RANKMAP_PROFILE", fresh.c_str(), 1);
  prepend_env("LD_PRELOAD", shim.string(), ':');
  // Open MPI forwards only the variables it is told to to remote nodes.
  if (mpi == "openmpi") prepend_env("OMPI_MCA_mca_base_env_list", "LD_PRELOAD;RANKMAP_PROFILE", ';');

  std::vector<char*> argv;
  for (const std::string& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) throw Error("profile", 0, "cannot start the job: fork failed");
  if (child == 0) {
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "rankmap: cannot run '%s'\n", argv[0]);
    ::_exit(127);
  }
  // A supervisor: SIGINT and SIGTERM go on to the job, which is waited
  // for, so that neither it nor its temporary profile is left behind.
  forward_signals_to(child);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) throw Error("profile", 0, "lost track of the job: waitpid failed");
  forward_signals_to(0);
  if (const int sig = forwarded_signal.load()) {
    std::filesystem::remove(fresh);
    std::cerr << "rankmap: stopped by signal " << sig << " (passed on to the job); no profile written to "
              << printable(o.output) << "\n";
    return 128 + sig;
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (code != 0) {
    std::filesystem::remove(fresh);
    std::cerr << "rankmap: the job exited with status " << code << "; no profile written to " << printable(o.output)
              << "\n";
    return code;
  }
  if (!std::filesystem::exists(fresh))
    throw Error(o.output, 0,
                "the job finished but left no profile: did it call MPI_Finalize, and is it linked to " + mpi + "?");
  const Profile p = read_profile(fresh);  // refuses a broken file
  std::filesystem::rename(fresh, out);
  std::cout << "wrote " << printable(o.output) << ": " << p.ranks.size() << " ranks, " << p.p2p.total_bytes()
            << " bytes p2p, " << p.collective.total_bytes() << " bytes collective, " << p.rma.total_bytes()
            << " bytes one-sided, p_mpi " << p.p_mpi << " (" << p.mpi_library << ")\n";
  return 0;
}

}  // namespace

void add_profile(CLI::App& app, Action& action) {
  auto o = std::make_shared<ProfileOptions>();
  CLI::App* cmd = app.add_subcommand("profile", "Run an MPI job under the profiling shim and write its profile (.rmp)");
  cmd->add_option("--mpi", o->mpi, "openmpi or mpich (default: from the launcher's name)")
      ->check(CLI::IsMember({"openmpi", "mpich"}));
  cmd->add_option("--output,-o", o->output, "Profile to write (.rmp)")->required();
  cmd->add_option("command", o->command, "The job, after '--': mpirun -np 8 ./app ...")->required();
  cmd->footer("Example: rankmap profile -o app.rmp -- mpirun -np 8 ./app");
  cmd->callback([o, &action] { action = [o] { return run_profile(*o); }; });
}

}  // namespace rankmap::cli
