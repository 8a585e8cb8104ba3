// What a launcher's command line says (mpirun, mpiexec, srun): where its
// program starts, how many ranks it asks for, the hosts it is given.
// Read up to the program: the program's own arguments are not the
// launcher's.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "rankmap/batch.hpp"

namespace rankmap::cli {

// How many of the next words an option takes as its values: 1 for "-np"
// and "--host", 2 for "--mca KEY VALUE" and "-genv NAME VALUE", 0 for
// flags and joined forms ("--ntasks=4").
std::size_t launcher_option_values(const std::string& option);

// Where the program starts in `command` (command[0] is the launcher):
// command.size() when there is none.
std::size_t launcher_program_index(const std::vector<std::string>& command);

// The ranks asked for (-np, -n, --ntasks=N), or 0. Throws an input Error
// naming the option for a count that is not one.
std::size_t launcher_ranks(const std::vector<std::string>& command);

// The hosts given: Open MPI --hostfile/--machinefile FILE or --host/-H
// LIST, MPICH -f/-machinefile FILE or -hosts LIST (rankmap/batch.hpp reads
// them); nothing when none. `source` says "--host LIST" or "-f FILE".
std::optional<BatchAllocation> read_launcher_hosts(const std::vector<std::string>& command);

}  // namespace rankmap::cli
