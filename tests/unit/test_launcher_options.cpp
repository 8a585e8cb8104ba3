// What a launcher's command line says, read by rankmap run; every value
// by hand from the command.
#include <gtest/gtest.h>

#include "helpers.hpp"
#include "launcher_options.hpp"

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
  a = cli::read_launcher_hosts({"mpiexec", "-f", hydra.string(), "-n", "5", "./app"});
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
  expect_error([&] { cli::read_launcher_hosts({"mpiexec", "-f", bad.string()}); }, 1, "HOST:SLOTS");
  expect_error([] { cli::read_launcher_hosts({"mpirun", "-H", "a,,b"}); }, 0, "separated by commas");
}

TEST(LauncherOptions, Ranks) {
  EXPECT_EQ(cli::launcher_ranks({"mpirun", "--bind-to", "core", "-np", "8", "./app", "-n", "3"}), 8u);
  EXPECT_EQ(cli::launcher_ranks({"srun", "--ntasks=6", "./app"}), 6u);
  EXPECT_EQ(cli::launcher_ranks({"mpirun", "./app", "-np", "3"}), 0u);
  expect_error([] { cli::launcher_ranks({"mpiexec", "-n", "zero", "./app"}); }, 0, "positive count");
}

TEST(LauncherOptions, WhereTheProgramStarts) {
  EXPECT_EQ(cli::launcher_program_index({"mpirun", "--mca", "btl", "self,tcp", "-np", "4", "./app", "-np", "2"}), 6u);
  EXPECT_EQ(cli::launcher_program_index({"srun", "--ntasks=4", "-N", "2", "./app"}), 4u);
  EXPECT_EQ(cli::launcher_program_index({"mpiexec", "-genv", "A", "1", "-n", "2"}), 6u);  // no program
  EXPECT_EQ(cli::launcher_option_values("--mca"), 2u);
  EXPECT_EQ(cli::launcher_option_values("--ntasks=4"), 0u);
  EXPECT_EQ(cli::launcher_option_values("--oversubscribe"), 0u);
}
