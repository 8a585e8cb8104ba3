// What a launcher's command line says, read by rankmap run; every value
// by hand from the command.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "helpers.hpp"
#include "run/launcher_options.hpp"
#include "run/slurm_job.hpp"

using rankmap::test::expect_error;
using V = std::vector<std::string>;
using I = std::vector<int>;
namespace cli = rankmap::cli;

TEST(LauncherOptions, HostsGivenToTheLauncher) {
  rankmap::test::TempDir dir;
  const auto ompi = dir.write("hosts", "# cluster\nb slots=2 max_slots=4\na   # one slot\n\nb slots=1\n");
  auto a = cli::read_launcher_hosts({"mpirun", "-np", "4", "--hostfile", ompi.string(), "./app", "-f", "x"});
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (V{"b", "a"}));
  EXPECT_EQ(a->slots, (I{3, 1}));
  EXPECT_EQ(a->ranks_per_node, 3);
  const auto hydra = dir.write("machines", "n1:2\nn2:3\n");
  a = cli::read_launcher_hosts({"mpiexec.mpich", "-f", hydra.string(), "-n", "5", "./app"});
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (V{"n1", "n2"}));
  EXPECT_EQ(a->slots, (I{2, 3}));
  a = cli::read_launcher_hosts({"mpirun", "--host", "c[1-2]:2,d", "./app"});
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (V{"c1", "c2", "d"}));
  EXPECT_EQ(a->slots, (I{2, 2, 1}));
  // The program's own -f is not the launcher's.
  EXPECT_FALSE(cli::read_launcher_hosts({"mpirun", "-np", "2", "./app", "-f", "input"}));
  const auto bad = dir.write("bad", "n1:0\n");
  expect_error([&] { cli::read_launcher_hosts({"mpiexec.mpich", "-f", bad.string()}); }, 1, "HOST:SLOTS");
  // Hydra's other names for -f, with one dash or two.
  a = cli::read_launcher_hosts({"mpiexec.mpich", "--hostfile", hydra.string(), "./app"});
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (V{"n1", "n2"}));
  EXPECT_EQ(a->source, "--hostfile " + hydra.string());
  expect_error([] { cli::read_launcher_hosts({"mpirun", "-H", "a,,b"}); }, 0, "separated by commas");
}

TEST(LauncherOptions, Ranks) {
  EXPECT_EQ(cli::launcher_ranks({"mpirun.openmpi", "--bind-to", "core", "-np", "8", "./app", "-n", "3"}), 8u);
  EXPECT_EQ(cli::launcher_ranks({"srun", "--ntasks=6", "./app"}), 6u);
  EXPECT_EQ(cli::launcher_ranks({"srun", "-n6", "./app"}), 6u);
  EXPECT_EQ(cli::launcher_ranks({"mpirun.openmpi", "./app", "-np", "3"}), 0u);
  // srun's -c is CPUs a task, mpirun's a rank count.
  EXPECT_EQ(cli::launcher_ranks({"srun", "-c", "4", "./app"}), 0u);
  EXPECT_EQ(cli::launcher_ranks({"mpirun.openmpi", "-c", "4", "./app"}), 4u);
  EXPECT_EQ(cli::launcher_ranks({"mpiexec.mpich", "--np", "5", "./app"}), 5u);
  expect_error([] { cli::launcher_ranks({"mpiexec.mpich", "-n", "zero", "./app"}); }, 0, "positive count");
}

TEST(LauncherOptions, WhereTheProgramStarts) {
  EXPECT_EQ(
      cli::launcher_program_index({"mpirun.openmpi", "--mca", "btl", "self,tcp", "-np", "4", "./app", "-np", "2"}), 6u);
  EXPECT_EQ(cli::launcher_program_index({"srun", "--ntasks=4", "-N", "2", "./app"}), 4u);
  EXPECT_EQ(cli::launcher_program_index({"mpiexec.mpich", "-genv", "A", "1", "-n", "2"}), 6u);  // no program
  EXPECT_EQ(cli::launcher_option_values(cli::Launcher::openmpi, "--mca"), 2u);
  EXPECT_EQ(cli::launcher_option_values(cli::Launcher::slurm, "--ntasks=4"), 0u);
  EXPECT_EQ(cli::launcher_option_values(cli::Launcher::openmpi, "--oversubscribe"), 0u);
  // The issue's cases: options rankmap did not know took the program's place.
  EXPECT_EQ(cli::launcher_program_index({"srun", "-p", "debug", "--mpi", "pmi2", "-J", "x", "-t", "5", "./app"}), 9u);
  EXPECT_EQ(
      cli::launcher_program_index({"mpirun.openmpi", "--timeout", "60", "-wd", "/tmp", "-rank-by", "core", "./app"}),
      7u);
  EXPECT_EQ(cli::launcher_program_index({"mpiexec.mpich", "-genvlist", "A,B", "-outfile-pattern", "o.%r", "./app"}),
            5u);
  // Open MPI's long options with one dash or two; a one-letter one is itself.
  EXPECT_EQ(cli::launcher_option_values(cli::Launcher::openmpi, "-map-by"), 1u);
  EXPECT_EQ(cli::launcher_option_values(cli::Launcher::openmpi, "--N"), 0u);
}

namespace {

std::vector<std::string> lines_of(const std::string& name) {
  std::ifstream in(rankmap::test::source_dir() / "tests/data/launchers" / name);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The program must start after the option and its `values` values.
void expect_program_after(const std::string& launcher, const std::string& option, std::size_t values) {
  V command{launcher, option};
  for (std::size_t k = 0; k < values; ++k) command.push_back("value" + std::to_string(k));
  command.insert(command.end(), {"./app", "-n", "3"});
  EXPECT_EQ(cli::launcher_program_index(command), 2 + values) << launcher << " " << option;
}

}  // namespace

// Every option of each launcher's own help that takes a value, read here
// from the help texts (tests/data/launchers/) independently of rankmap's
// tables: the program starts after its values, never at them.
TEST(LauncherOptions, EveryOptionOfEachLaunchersHelp) {
  // Open MPI: "-c|-np|--np <arg0>", "-mca|--mca <arg0> <arg1>".
  std::size_t checked = 0;
  const std::regex ompi(R"(^\s*(-\S+?)(\s+((<arg\d>\s*)*))?(\s{2,}.*)?$)");
  for (const std::string& line : lines_of("openmpi-4.1.4-mpirun-help-all.txt")) {
    std::smatch m;
    if (!std::regex_match(line, m, ompi)) continue;
    const std::string args = m[3];
    const std::size_t values = static_cast<std::size_t>(std::count(args.begin(), args.end(), '<'));
    std::string names = m[1];
    for (std::size_t at = 0; at <= names.size();) {
      const std::size_t end = std::min(names.find('|', at), names.size());
      expect_program_after("mpirun.openmpi", names.substr(at, end - at), values);
      checked += values > 0;
      at = end + 1;
    }
  }
  EXPECT_GE(checked, 70u);
  // srun: "-A, --account=name" (as the next word or joined), "--nice[=value]"
  // (joined only), "-l, --label".
  checked = 0;
  const std::regex srun(R"(^\s+(-(\w),?\s+)?--([\w-]+)(\[?=)?.*$)");
  for (const std::string& line : lines_of("slurm-22.05.8-srun-help.txt")) {
    std::smatch m;
    if (!std::regex_match(line, m, srun) || (m[3] == "mem" && !m[4].matched)) continue;
    const std::size_t values = m[4] == "=" || m[3] == "container" ? 1 : 0;
    expect_program_after("srun", "--" + std::string(m[3]), values);
    if (m[2].matched) expect_program_after("srun", "-" + std::string(m[2]), values);
    expect_program_after("srun", "--" + std::string(m[3]) + "=x", 0);
    checked += values;
  }
  EXPECT_GE(checked, 80u);
  // Hydra: its help gives the values of the first sections ("-genv {name}
  // {value}"); the rest, and -hostfile, by hand from Hydra's handlers.
  checked = 0;
  const std::regex hydra(R"(^\s+(-[\w/-]+)\s+((\{[^}]*\}\s?)*)\s+\S.*$)");
  for (const std::string& line : lines_of("mpich-4.0.2-mpiexec-h.txt")) {
    std::smatch m;
    if (!std::regex_match(line, m, hydra)) continue;
    const std::string args = m[2];
    const std::size_t values = static_cast<std::size_t>(std::count(args.begin(), args.end(), '{'));
    const std::string names = m[1];
    for (std::size_t at = 0; at <= names.size();) {
      const std::size_t end = std::min(names.find('/', at), names.size());
      std::string name = names.substr(at, end - at);
      if (!name.starts_with('-')) name = "-" + name;
      if (values > 0) expect_program_after("mpiexec.mpich", name, values), ++checked;
      at = end + 1;
    }
  }
  EXPECT_EQ(checked, 10u);  // -genv -genvlist -f -hosts -wdir -configfile -env -envlist -n -np
  for (const char* option :
       {"-hostfile",        "-machinefile",     "-launcher",        "-launcher-exec", "-rmk",         "-topolib",
        "-bind-to",         "-map-by",          "-membind",         "-demux",         "-iface",       "-ppn",
        "-prepend-pattern", "-outfile-pattern", "-errfile-pattern", "-nameserver",    "-order-nodes", "-localhost",
        "-usize",           "-gpus-per-proc",   "--genvlist",       "--hostfile"})
    expect_program_after("mpiexec.mpich", option, 1);
  for (const char* flag : {"-verbose", "-info", "-print-all-exitcodes", "-profile", "-prepend-rank", "-l",
                           "-disable-auto-cleanup", "-skip-launch-node", "-genvall", "-envnone"})
    expect_program_after("mpiexec.mpich", flag, 0);
}

// scontrol show job -d's lines, by hand: a hostlist's nodes share a list;
// a line that does not read is left out.
TEST(SlurmJob, CpusTheJobHoldsFromScontrol) {
  const auto held = cli::parse_scontrol_cpu_ids(
      "JobId=5 JobName=x\n   Nodes=fake[0-1] CPU_IDs=0-1,4 Mem=0 GRES=\n   Nodes=fake2 CPU_IDs=3 Mem=0 GRES=\n"
      "   Nodes=bad CPU_IDs=x Mem=0\n   Nodes=worse CPU_IDs=4-2\n");
  ASSERT_EQ(held.size(), 3u);
  EXPECT_EQ(held.at("fake0"), (std::vector<unsigned>{0, 1, 4}));
  EXPECT_EQ(held.at("fake1"), (std::vector<unsigned>{0, 1, 4}));
  EXPECT_EQ(held.at("fake2"), (std::vector<unsigned>{3}));
  EXPECT_TRUE(cli::slurm_job_cpus("5; rm -rf /").empty());  // digits only, never a shell's words
}
