// What a batch job or a launcher hands rankmap: the input's first line
// picks the reader, the rest is its text. "pbs": a PBS_NODEFILE; "hosts":
// an Open MPI or MPICH host file; "slots": a --host list ("a,b:2");
// "slurm": SLURM_JOB_NODELIST, SLURM_NTASKS and SLURM_TASKS_PER_NODE, a
// line each.
#include <string>

#include "fuzz_input.hpp"
#include "rankmap/batch.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = fuzz::text(data, size);
  const std::size_t newline = input.find('\n');
  const std::string_view kind = input.substr(0, newline);
  const std::string body(newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1));
  fuzz::expect_only_errors([&] {
    if (kind == "pbs") {
      const std::string path = fuzz::write_file(body, "nodes").string();
      (void)rankmap::read_batch_allocation([&](const char* name) -> const char* {
        return std::string_view(name) == "PBS_NODEFILE" ? path.c_str() : nullptr;
      });
    } else if (kind == "hosts") {
      (void)rankmap::read_host_file(fuzz::write_file(body, "hosts").string());
    } else if (kind == "slots") {
      (void)rankmap::parse_host_slots(body, "--host");
    } else if (kind == "slurm") {
      std::string lines[3];
      std::size_t at = 0;
      for (std::string& line : lines) {
        const std::size_t end = std::min(body.find('\n', at), body.size());
        line = body.substr(std::min(at, body.size()), end - std::min(at, body.size()));
        at = end + 1;
      }
      (void)rankmap::read_batch_allocation([&](const char* name) -> const char* {
        const std::string_view n = name;
        if (n == "SLURM_JOB_NODELIST") return lines[0].c_str();
        if (n == "SLURM_NTASKS") return lines[1].c_str();
        if (n == "SLURM_TASKS_PER_NODE") return lines[2].c_str();
        return nullptr;
      });
    }
  });
  return 0;
}
