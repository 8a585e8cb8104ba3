// What Slurm says of the job rankmap runs in, beyond its environment: the
// CPUs the job holds on each node (`scontrol show job -d`), so that a job
// that shares nodes, or has uneven task counts, is mapped onto exactly
// those and nothing binds outside them.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rankmap::cli {

// A CPU list as Slurm and Linux write it ("0-3,8,10-11") appended to
// `cpus`; false for anything else (and for numbers past 2^20).
bool parse_cpu_list(std::string_view text, std::vector<unsigned>& cpus);

// Host -> the CPUs the job holds there, from `scontrol show job -d`'s
// lines "Nodes=HOSTLIST CPU_IDs=LIST ..." (Slurm's CPU numbers, which its
// task/affinity binds by). A line that does not read is left out.
std::map<std::string, std::vector<unsigned>> parse_scontrol_cpu_ids(const std::string& text);

// The same for the job `job_id` (digits only), asking scontrol with a
// deadline of 10 s; empty when it cannot be asked.
std::map<std::string, std::vector<unsigned>> slurm_job_cpus(const std::string& job_id);

}  // namespace rankmap::cli
