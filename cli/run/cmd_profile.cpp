// rankmap profile -o app.rmp -- mpirun -np 8 ./app: runs the job with the
// PMPI shim of its MPI preloaded and checks the profile it leaves.
#include <iostream>

#include "commands.hpp"
#include "common.hpp"
#include "job.hpp"
#include "rankmap/error.hpp"
#include "rankmap/io.hpp"
#include "rankmap/profile.hpp"

namespace rankmap::cli {
namespace {

struct ProfileOptions {
  std::string mpi, output;
  std::vector<std::string> command;
};

int run_profile(const ProfileOptions& o) {
  if (o.command.empty()) throw Error("profile", 0, "expected the job's command after '--', e.g. -- mpirun -np 8 ./app");
  const std::string mpi = choose_mpi(o.mpi, o.command);
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
  check_outputs({o.output});  // its folder too: before the job runs, not after
  find_shim(mpi);             // before the job runs: a missing shim is said at once
  Profile p;
  if (const int code = profile_job(o.command, mpi, o.output, p); code != 0) return code;
  std::cout << "wrote " << printable(o.output) << ": " << p.ranks.size() << " ranks, " << p.p2p.total_bytes()
            << " bytes p2p, " << p.collective.total_bytes() << " bytes collective, " << p.rma.total_bytes()
            << " bytes one-sided, p_mpi " << p.p_mpi << " (" << p.mpi_library << ")\n";
  return 0;
}

}  // namespace

void add_profile(Command& app, Action& action) {
  auto o = std::make_shared<ProfileOptions>();
  Command cmd = app.subcommand("profile", "Run an MPI job under the profiling shim and write its profile (.rmp)");
  cmd.option("--mpi", o->mpi, "openmpi or mpich (default: from the launcher's name)")
      .check(one_of({"openmpi", "mpich"}));
  cmd.option("--output,-o", o->output, "Profile to write (.rmp)").required();
  cmd.option("command", o->command, "The job, after '--': mpirun -np 8 ./app ...").required();
  cmd.footer(
      "Exits with the job's status. A job that fails before every rank reaches MPI_Finalize leaves no profile; one "
      "that fails after keeps its whole profile.\nExample: rankmap profile -o app.rmp -- mpirun -np 8 ./app");
  cmd.on_chosen([o, &action] { action = [o] { return run_profile(*o); }; });
}

}  // namespace rankmap::cli
