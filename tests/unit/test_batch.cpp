// Allocations read from batch systems' environments and launchers' host
// files; every expected value written out by hand from the input.
#include <gtest/gtest.h>

#include <map>

#include "helpers.hpp"
#include "rankmap/batch.hpp"

using rankmap::BatchAllocation;
using rankmap::test::expect_error;
using V = std::vector<std::string>;
using I = std::vector<int>;

namespace {

// An environment of exactly these variables.
rankmap::Environment env_of(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    const auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

}  // namespace

TEST(Batch, OutsideAJobThereIsNone) { EXPECT_FALSE(rankmap::read_batch_allocation(env_of({}))); }

TEST(Batch, TasksPerNodeForms) {
  EXPECT_EQ(rankmap::expand_tasks_per_node("4(x2),3", "T"), (I{4, 4, 3}));
  EXPECT_EQ(rankmap::expand_tasks_per_node("2", "T"), (I{2}));
  EXPECT_EQ(rankmap::expand_tasks_per_node("1,2(x3)", "T"), (I{1, 2, 2, 2}));
  expect_error([] { rankmap::expand_tasks_per_node("4(x2", "T"); }, 0, "expected counts like 4(x2),3");
  expect_error([] { rankmap::expand_tasks_per_node("0", "T"); }, 0, "expected counts");
  expect_error([] { rankmap::expand_tasks_per_node("4,,3", "T"); }, 0, "expected counts");
  expect_error([] { rankmap::expand_tasks_per_node("1(x99999999)", "T"); }, 0, "expected counts");
}

TEST(Batch, SlurmJobWithTaskCounts) {
  const auto a = rankmap::read_batch_allocation(
      env_of({{"SLURM_JOB_NODELIST", "n[01-03]"}, {"SLURM_NTASKS", "11"}, {"SLURM_TASKS_PER_NODE", "4(x2),3"}}));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->source, "SLURM_JOB_NODELIST");
  EXPECT_EQ(a->hosts, (V{"n01", "n02", "n03"}));
  EXPECT_EQ(a->slots, (I{4, 4, 3}));
  EXPECT_EQ(a->ranks_per_node, 4);
  EXPECT_EQ(a->ranks, 11u);
  EXPECT_EQ(a->ranks_source, "SLURM_TASKS_PER_NODE");
  EXPECT_EQ(a->cpus_per_task, 0);
}

// salloc -N8 --ntasks-per-node=2 -c 4 where Slurm could start only 12
// tasks: the uneven counts are each host's, SLURM_NTASKS_PER_NODE the most.
TEST(Batch, SlurmUnevenCountsWithTasksPerNodeAndCpusPerTask) {
  const auto a = rankmap::read_batch_allocation(env_of({{"SLURM_JOB_NODELIST", "n[1-8]"},
                                                        {"SLURM_NTASKS_PER_NODE", "2"},
                                                        {"SLURM_TASKS_PER_NODE", "2(x4),1(x4)"},
                                                        {"SLURM_CPUS_PER_TASK", "4"}}));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->slots, (I{2, 2, 2, 2, 1, 1, 1, 1}));
  EXPECT_EQ(a->ranks_per_node, 2);
  EXPECT_EQ(a->ranks_source, "SLURM_NTASKS_PER_NODE");
  EXPECT_EQ(a->cpus_per_task, 4);
  expect_error(
      [] {
        rankmap::read_batch_allocation(env_of({{"SLURM_JOB_NODELIST", "a"}, {"SLURM_CPUS_PER_TASK", "0"}}));
      },
      0, "SLURM_CPUS_PER_TASK");
}

TEST(Batch, SlurmNtasksPerNodeWinsAndNoTaskCountSaysNothing) {
  auto a = rankmap::read_batch_allocation(env_of({{"SLURM_NODELIST", "a,b"}, {"SLURM_NTASKS_PER_NODE", "2"}}));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->source, "SLURM_NODELIST");
  EXPECT_EQ(a->ranks_per_node, 2);
  EXPECT_EQ(a->ranks, 0u);
  // sbatch -N2 without -n: SLURM_TASKS_PER_NODE counts CPUs, not ranks.
  a = rankmap::read_batch_allocation(env_of({{"SLURM_JOB_NODELIST", "a,b"}, {"SLURM_TASKS_PER_NODE", "8(x2)"}}));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->ranks_per_node, 0);
  expect_error(
      [] {
        rankmap::read_batch_allocation(env_of({{"SLURM_JOB_NODELIST", "a"}, {"SLURM_NTASKS", "x"}}));
      },
      0, "SLURM_NTASKS");
  expect_error([] { rankmap::read_batch_allocation(env_of({{"SLURM_JOB_NODELIST", "a[1-"}})); }, 0, "missing ']'");
}

TEST(Batch, PbsNodeFileRepeatsAHostPerSlot) {
  rankmap::test::TempDir dir;
  const auto file = dir.write("nodes", "n2\nn2\nn1\n\nn2\nn1\n");
  const auto a = rankmap::read_batch_allocation(env_of({{"PBS_NODEFILE", file.string()}}));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (V{"n2", "n1"}));
  EXPECT_EQ(a->slots, (I{3, 2}));
  EXPECT_EQ(a->ranks_per_node, 3);
  EXPECT_EQ(a->ranks, 5u);
  const auto bad = dir.write("bad", "n1\nn2 extra\n");
  expect_error(
      [&] {
        rankmap::read_batch_allocation(env_of({{"PBS_NODEFILE", bad.string()}}));
      },
      2, "one host name a line");
  // The variable is named when the file it gives cannot be read.
  expect_error(
      [&] {
        rankmap::read_batch_allocation(env_of({{"PBS_NODEFILE", "/nonexistent/nodes"}}));
      },
      0, "PBS_NODEFILE: /nonexistent/nodes: cannot open");
  const auto none = dir.write("none", "# nothing\n");
  expect_error([&] { rankmap::read_batch_allocation(env_of({{"PBS_NODEFILE", none.string()}})); }, 0, "names no host");
}

TEST(Batch, HostFilesAndListsWithSlots) {
  rankmap::test::TempDir dir;
  const auto ompi = dir.write("hosts", "# cluster\nb slots=2 max_slots=4\na   # one slot\n\nb slots=1\n");
  auto a = rankmap::read_host_file(ompi.string());
  EXPECT_EQ(a.hosts, (V{"b", "a"}));
  EXPECT_EQ(a.slots, (I{3, 1}));
  EXPECT_EQ(a.ranks_per_node, 3);
  EXPECT_EQ(a.ranks, 4u);
  const auto hydra = dir.write("machines", "n1:2\nn2:3\n");
  a = rankmap::read_host_file(hydra.string());
  EXPECT_EQ(a.hosts, (V{"n1", "n2"}));
  EXPECT_EQ(a.slots, (I{2, 3}));
  a = rankmap::parse_host_slots("c[1-2]:2,d", "--host");
  EXPECT_EQ(a.hosts, (V{"c1", "c2", "d"}));
  EXPECT_EQ(a.slots, (I{2, 2, 1}));
  EXPECT_EQ(a.source, "--host c[1-2]:2,d");
  const auto bad = dir.write("bad", "n1:0\n");
  expect_error([&] { rankmap::read_host_file(bad.string()); }, 1, "HOST:SLOTS");
  const auto slots = dir.write("slots", "n1 slots=x\n");
  expect_error([&] { rankmap::read_host_file(slots.string()); }, 1, "slots=N");
  expect_error([] { rankmap::parse_host_slots("a,,b", "-H"); }, 0, "separated by commas");
  expect_error([] { rankmap::parse_host_slots("a:two", "-H"); }, 0, "HOST or HOST:SLOTS");
}
