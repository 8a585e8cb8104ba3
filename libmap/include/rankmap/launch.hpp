// Launch files: what mpirun, mpiexec, srun, MVAPICH and Intel MPI read to
// place ranks.
//
//   openmpi  "rank R=HOST slot=S:C"  logical socket and core (core inside the
//            socket; a block "S:a-b", across sockets "0:4-5,1:0-1"). With
//            hardware-thread slots C counts PUs: run with --use-hwthread-cpus.
//   mpich    Hydra machinefile, consecutive ranks of a host on one line:
//            "HOST:N binding=user:C0,C1+C2" (OS CPU numbers, '+' joins a set).
//            Run: mpiexec -f FILE -n N. Plain "HOST:N" lines are read too.
//   slurm    FILE: a host per line in rank order (SLURM_HOSTFILE with
//            --distribution=arbitrary); FILE.env: SLURM_CPU_BIND=map_cpu:...
//            (or mask_cpu: for multi-CPU slots), or =none where local rank
//            i has different CPUs on different nodes; FILE.bind: "RANK HOST
//            CPUS" a rank (OS numbers, "0-3,8"), which `rankmap bind-task`
//            binds each task by.
//   mvapich  FILE: a host per line; FILE.env: MV2_CPU_MAPPING=0:1:4:5.
//   intelmpi FILE: a Hydra machinefile ("HOST:N", consecutive ranks of a
//            host); FILE.env: I_MPI_PIN_PROCESSOR_LIST=0,1,4,5 (the i-th
//            rank of a node on the i-th CPU, OS numbers), or, for slots of
//            several CPUs, I_MPI_PIN_DOMAIN=[0x3,0xc] (a mask per local
//            rank). Run: mpiexec.hydra -machinefile FILE -n N, with FILE.env
//            in the environment. Not run here: no Intel MPI on this machine.
//   csv      "rank,host,socket,core,pu": logical indices within the node; pu
//            is empty when the rank has a whole core (or block of cores).
//
// mvapich and intelmpi bind by local rank with one list for every node, so
// they can only express mappings where local rank i has the same CPUs on
// every node; slurm binds the others through FILE.bind.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "rankmap/io.hpp"
#include "rankmap/mapping.hpp"

namespace rankmap {

enum class LaunchFormat { openmpi, mpich, slurm, mvapich, intelmpi, csv };

// Every format's name, in the order above: the list a caller offers.
std::vector<std::string> launch_format_names();
// Throws an argument Error about Parameter "format" for an unknown name.
LaunchFormat parse_launch_format(std::string_view name);
std::string_view launch_format_name(LaunchFormat f);

// The files a format writes beside FILE: "" (FILE itself), ".env" for
// formats that bind by local rank, and slurm's ".bind".
std::vector<std::string> launch_file_suffixes(LaunchFormat format);

// Whether local rank i has the same CPUs on every node, so that one list
// binds them (mpirun's and srun's by local rank); slurm's FILE.env says
// SLURM_CPU_BIND=none where not, and FILE.bind binds each task.
bool one_cpu_list_binds(const Machine& machine, const Allocation& allocation, const Mapping& mapping);

// Renders a mapping as FILE itself (suffix "") and its companions (".env",
// slurm's ".bind"); throws Error when the format cannot express it.
std::vector<FilePart> render_launch_files(LaunchFormat format, const Machine& machine, const Allocation& allocation,
                                          const Mapping& mapping);

// Renders, writes each file to a temporary name, re-reads them with
// read_launch_file(), checks the result with verify_mapping() and that it
// equals `mapping`, and only then renames them into place, with `also`
// (a report at its own path) in the same transaction. On any error no
// file is left behind.
void write_launch_files(const std::filesystem::path& path, LaunchFormat format, const Machine& machine,
                        const Allocation& allocation, const Mapping& mapping, const std::vector<FilePart>& also = {});

// Reads a launch file back. Hosts must be in the allocation. Throws Error
// naming the file and line.
Mapping read_launch_file(const std::filesystem::path& path, LaunchFormat format, const Machine& machine,
                         const Allocation& allocation);

// Guesses the format from the content (and FILE.env for host-per-line files).
LaunchFormat detect_launch_format(const std::filesystem::path& path);

}  // namespace rankmap
