// What a launcher's command line says (mpirun, mpiexec, srun): where its
// program starts, how many ranks it asks for, the hosts it is given.
// Read up to the program, with each launcher's own table of options: the
// program's own arguments are not the launcher's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rankmap/batch.hpp"

namespace rankmap::cli {

enum class Launcher { openmpi, mpich, slurm };

// One option of a launcher's table: its aliases joined by '|' as the
// launcher's help prints them ("-c|-np|--np"), and how many of the next
// words it takes as its values.
struct LauncherOption {
  std::string_view names;
  std::uint8_t values;
};
// Open MPI 4.1's mpirun, MPICH's Hydra mpiexec, Slurm 22.05's srun
// (launcher_option_tables.cpp, checked against their help texts).
std::span<const LauncherOption> launcher_option_table(Launcher launcher);

// Whose options a command line holds, from its program's name: srun,
// Open MPI's or MPICH's launcher (Debian's alternatives followed);
// Open MPI's, Debian's default, when the name does not say.
Launcher launcher_of_command(const std::string& program);

// How many of the next words `option` takes as its values in `launcher`'s
// table: 1 for "-np" and "--host", 2 for "--mca KEY VALUE" and "-genv NAME
// VALUE", 0 for flags, joined forms ("--ntasks=4", srun's "-n4") and
// options the table does not hold.
std::size_t launcher_option_values(Launcher launcher, const std::string& option);

// The options that give a launcher's rank count, '|'-separated.
std::string_view launcher_count_options(Launcher launcher);

// The option a word of the command line names: "--ntasks" for
// "--ntasks=4", srun's "-n" for "-n4", else the word.
std::string launcher_option_name(Launcher launcher, const std::string& word);

// Whether `option` is one of `names` ('|'-separated aliases of `launcher`'s
// own spelling; Hydra's and Open MPI's long options match with one dash or
// two).
bool launcher_option_is(Launcher launcher, const std::string& option, std::string_view names);

// Where the program starts in `command` (command[0] is the launcher):
// command.size() when there is none.
std::size_t launcher_program_index(const std::vector<std::string>& command);

// The ranks asked for (-np, -n, --ntasks=N), or 0. Throws an input Error
// naming the option for a count that is not one.
std::size_t launcher_ranks(const std::vector<std::string>& command);

// The hosts given: Open MPI --hostfile/--machinefile FILE or --host/-H
// LIST, MPICH -f/-hostfile/-machinefile FILE or -hosts LIST
// (rankmap/batch.hpp reads them); nothing when none. `source` says
// "--host LIST" or "-f FILE".
std::optional<BatchAllocation> read_launcher_hosts(const std::vector<std::string>& command);

}  // namespace rankmap::cli
