// Running an MPI job from rankmap (profile, run): which MPI it uses, the
// profiling shim preloaded into it, and a supervisor that passes signals
// on and returns the job's own exit status.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "rankmap/profile.hpp"

namespace rankmap::cli {

// A program name as execvp would find it on PATH (unchanged when not found
// or when it holds a '/').
std::string resolve(const std::string& program);

// Which MPI a launcher belongs to, from the name it resolves to (Debian:
// mpirun -> mpirun.openmpi or mpirun.mpich through alternatives): "openmpi",
// "mpich", or empty when the name does not say.
std::string launcher_mpi(const std::string& launcher);

// The MPI a program links, with the library that says so (DT_NEEDED of its
// ELF dynamic section: Open MPI's libmpi*.so.40, MPICH's libmpich*.so.12).
// Empty when the file is no 64-bit ELF or needs neither.
struct LinkedMpi {
  std::string mpi, library;
};
LinkedMpi linked_mpi(const std::filesystem::path& file);

// The first word of `command` from index `first` that is a program linking
// an MPI (the application, whatever the launcher's options), and its MPI.
std::pair<std::string, LinkedMpi> application_mpi(const std::vector<std::string>& command, std::size_t first = 1);

const char* mpi_name(const std::string& mpi);  // "Open MPI", "MPICH"

// Throws, in one line, when the first program of `command` from `first`
// that links an MPI links another than `mpi` (`chosen_by` says why `mpi`).
void require_program_of(const std::string& mpi, const std::string& chosen_by, const std::vector<std::string>& command,
                        std::size_t first = 1);

// The MPI of the job: `given` (--mpi), else the launcher's name, else the
// program's link. Throws when none says, or when the program links the
// other MPI (its shim would kill it before it could say why).
std::string choose_mpi(const std::string& given, const std::vector<std::string>& command);

// The shim of this MPI: $RANKMAP_SHIM_DIR, then next to the build tree's
// or the installed rankmap.
std::filesystem::path find_shim(const std::string& mpi);

// Runs `command` (execvp) with `env` added to its environment and waits
// for it, passing SIGINT, SIGTERM and SIGHUP on to it meanwhile. Returns
// its exit status, or 128 + the signal that ended it; `forwarded` gets the
// signal rankmap passed on (0: none).
int run_supervised(const std::vector<std::string>& command, const std::vector<std::pair<std::string, std::string>>& env,
                   int& forwarded);

// The variables that preload the shim of `mpi` into a job (Open MPI told
// to forward them to every node): it writes the job's profile to `profile`
// and, with `machine` given, answers the job's topology calls with reorder
// = 1 (RANKMAP_MACHINE, shim/reorder.c).
std::vector<std::pair<std::string, std::string>> shim_environment(const std::string& mpi,
                                                                  const std::filesystem::path& profile,
                                                                  const std::filesystem::path& machine = {});

// Runs the job under the shim of `mpi`, which writes the profile beside
// `output` under a name of this run; checks it and renames it into place.
// Returns the job's status: 0 with `profile` read, else (the job failed or
// was stopped: said on stderr) no profile is left.
int profile_job(const std::vector<std::string>& command, const std::string& mpi, const std::filesystem::path& output,
                Profile& profile);

}  // namespace rankmap::cli
