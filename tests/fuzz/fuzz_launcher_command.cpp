// `rankmap run`'s reading of a job's command line: the input is the words
// after `--`, one a line (the first the launcher: mpirun, mpiexec.mpich,
// srun, or a bare program). Whatever they are, reading where the program
// starts, the ranks and the hosts, and rebuilding the profiling and mapped
// runs either works or refuses with one line; and the rebuilt runs end
// with the application's own words, unchanged.
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "run/launch_command.hpp"
#include "run/launcher_options.hpp"

namespace {

bool ends_with(const std::vector<std::string>& words, const std::vector<std::string>& tail) {
  return words.size() >= tail.size() && std::equal(tail.rbegin(), tail.rend(), words.rbegin());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> command;
  std::istringstream in{std::string(fuzz::text(data, size))};
  for (std::string line; std::getline(in, line) && command.size() < 64;) command.push_back(line);
  if (command.empty()) return 0;
  namespace cli = rankmap::cli;
  fuzz::expect_only_errors([&] {
    const std::size_t program = cli::launcher_program_index(command);
    if (program > command.size()) std::abort();
    (void)cli::launcher_ranks(command);
    for (const char* mpi : {"openmpi", "mpich"})
      for (bool in_slurm : {false, true}) {
        const cli::JobCommand job = cli::split_job_command(command, mpi, in_slurm);
        const cli::CommandLine first = cli::default_run(job, 4, {{"n1", 2}, {"n2", 2}});
        const cli::CommandLine mapped = cli::mapped_run(job, 4, "/tmp/launch", "SLURM_CPU_BIND=map_cpu:0\n");
        if (!ends_with(first.argv, job.application) || !ends_with(mapped.argv, job.application)) std::abort();
      }
  });
  return 0;
}
