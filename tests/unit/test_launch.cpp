#include <gtest/gtest.h>

#include "helpers.hpp"
#include "rankmap/baseline.hpp"
#include "rankmap/io.hpp"
#include "rankmap/launch.hpp"

using namespace rankmap;
using test::expect_error;

namespace {

// Two nodes, each 2 packages x 2 cores x 2 PUs; core c holds PUs 2c and 2c+1.
Machine two_socket_pair() { return test::make_machine("[2]", "", "n[0-1]", "package:2 core:2 pu:2"); }

std::string render(LaunchFormat f, const Machine& m, const Allocation& a, const Mapping& map, std::size_t i = 0) {
  return render_launch_files(f, m, a, map).at(i).text;
}

// Ranks 0,1 on n1 cores 2,3; rank 2 on n0 core 0; rank 3 on n1 core 0; rank 4 on n0 core 3.
const Mapping kScattered{{{1, 2}, {1, 3}, {0, 0}, {1, 0}, {0, 3}}};
// Local rank 0 on core 1 and local rank 1 on core 2 of both nodes.
const Mapping kRegular{{{0, 1}, {1, 1}, {0, 2}, {1, 2}}};

}  // namespace

TEST(Render, OpenMpiRankfile) {
  const Machine m = two_socket_pair();
  const Allocation a = make_allocation(m, {});
  EXPECT_EQ(render(LaunchFormat::openmpi, m, a, kScattered),
            "rank 0=n1 slot=1:0\nrank 1=n1 slot=1:1\nrank 2=n0 slot=0:0\nrank 3=n1 slot=0:0\nrank 4=n0 slot=1:1\n");
}

TEST(Render, HydraMachinefileGroupsConsecutiveRanks) {
  const Machine m = two_socket_pair();
  const Allocation a = make_allocation(m, {});
  EXPECT_EQ(render(LaunchFormat::mpich, m, a, kScattered),
            "n1:2 binding=user:4+5,6+7\nn0:1 binding=user:0+1\nn1:1 binding=user:0+1\nn0:1 binding=user:6+7\n");
}

TEST(Render, Csv) {
  const Machine m = two_socket_pair();
  const Allocation a = make_allocation(m, {});
  EXPECT_EQ(render(LaunchFormat::csv, m, a, kScattered),
            "rank,host,socket,core,pu\n0,n1,1,2,\n1,n1,1,3,\n2,n0,0,0,\n3,n1,0,0,\n4,n0,1,3,\n");
}

TEST(Render, SlurmAndMvapichBindByLocalRank) {
  const Machine m = two_socket_pair();
  const Allocation a = make_allocation(m, {});
  EXPECT_EQ(render(LaunchFormat::slurm, m, a, kRegular, 0), "n0\nn1\nn0\nn1\n");
  // Core 1 = PUs 2,3 = mask 0b1100; core 2 = PUs 4,5 = 0b110000.
  EXPECT_EQ(render(LaunchFormat::slurm, m, a, kRegular, 1),
            "SLURM_DISTRIBUTION=arbitrary\nSLURM_CPU_BIND=mask_cpu:0xc,0x30\n");
  EXPECT_EQ(render(LaunchFormat::slurm, m, a, kRegular, 2), "0 n0 2-3\n1 n1 2-3\n2 n0 4-5\n3 n1 4-5\n");
  EXPECT_EQ(render(LaunchFormat::mvapich, m, a, kRegular, 1), "MV2_CPU_MAPPING=2,3:4,5\n");
  expect_error([&] { render(LaunchFormat::mvapich, m, a, kScattered); }, 0,
               "local rank 0 to the same CPUs on every node");
}

// Local rank 0 is on core 2 of n1 but core 0 of n0: srun's one list cannot
// say it, so srun binds nothing and FILE.bind gives each rank's CPUs
// (core c = PUs 2c, 2c+1), which reads back as the same mapping.
TEST(Render, SlurmBindsEachTaskWhereLocalRanksDiffer) {
  test::TempDir dir;
  const Machine m = two_socket_pair();
  const Allocation a = make_allocation(m, {});
  EXPECT_EQ(render(LaunchFormat::slurm, m, a, kScattered, 1), "SLURM_DISTRIBUTION=arbitrary\nSLURM_CPU_BIND=none\n");
  EXPECT_EQ(render(LaunchFormat::slurm, m, a, kScattered, 2), "0 n1 4-5\n1 n1 6-7\n2 n0 0-1\n3 n1 0-1\n4 n0 6-7\n");
  const auto path = dir.path() / "job.hosts";
  write_launch_files(path, LaunchFormat::slurm, m, a, kScattered);
  EXPECT_EQ(detect_launch_format(path), LaunchFormat::slurm);
  EXPECT_EQ(read_launch_file(path, LaunchFormat::slurm, m, a), kScattered);
  // A .bind that puts a rank on another host than FILE is refused, naming both.
  dir.write("job.hosts.bind", "0 n0 4-5\n1 n1 6-7\n2 n0 0-1\n3 n1 0-1\n4 n0 6-7\n");
  expect_error([&] { read_launch_file(path, LaunchFormat::slurm, m, a); }, 1,
               "rank 0 is on host 'n1' here but on 'n0'");
  dir.write("job.hosts.bind", "0 n1 4-5\n");
  expect_error([&] { read_launch_file(path, LaunchFormat::slurm, m, a); }, 2, "rank 1 has no line in");
}

// Intel MPI: a Hydra machinefile without bindings, and the local ranks'
// CPUs in FILE.env. kRegular's cores 1 and 2 are PUs 2,3 and 4,5: a domain
// mask each (0xc, 0x30). With hardware-thread slots 1 and 5, single CPUs.
TEST(Render, IntelMpiPinsByLocalRank) {
  const Machine m = two_socket_pair();
  const Allocation a = make_allocation(m, {});
  EXPECT_EQ(render(LaunchFormat::intelmpi, m, a, kRegular, 0), "n0:1\nn1:1\nn0:1\nn1:1\n");
  EXPECT_EQ(render(LaunchFormat::intelmpi, m, a, kRegular, 1), "I_MPI_PIN_DOMAIN=[0xc,0x30]\n");
  const Allocation threads = make_allocation(m, {{}, 0, true});
  const Mapping pus{{{0, 1}, {0, 5}, {1, 1}, {1, 5}}};
  EXPECT_EQ(render(LaunchFormat::intelmpi, m, threads, pus, 0), "n0:2\nn1:2\n");
  EXPECT_EQ(render(LaunchFormat::intelmpi, m, threads, pus, 1), "I_MPI_PIN_PROCESSOR_LIST=1,5\n");
  expect_error([&] { render(LaunchFormat::intelmpi, m, a, kScattered); }, 0,
               "local rank 0 to the same CPUs on every node");
}

// Read back by hand-written files: a processor list with a range, and a
// domain list that overrides it.
TEST(LaunchFiles, ReadsIntelMpiFiles) {
  test::TempDir dir;
  const Machine m = two_socket_pair();
  const Allocation threads = make_allocation(m, {{}, 0, true});
  const auto path = dir.write("job.hosts", "n1:2\n# a comment\nn0:2\n");
  dir.write("job.hosts.env", "I_MPI_PIN_PROCESSOR_LIST=6-7\n");
  EXPECT_EQ(detect_launch_format(path), LaunchFormat::intelmpi);
  EXPECT_EQ(read_launch_file(path, LaunchFormat::intelmpi, m, threads), (Mapping{{{1, 6}, {1, 7}, {0, 6}, {0, 7}}}));
  const Allocation cores = make_allocation(m, {});
  dir.write("job.hosts.env", "I_MPI_PIN_PROCESSOR_LIST=0,1\nI_MPI_PIN_DOMAIN=[0x3,0xc0]\n");
  EXPECT_EQ(read_launch_file(path, LaunchFormat::intelmpi, m, cores), (Mapping{{{1, 0}, {1, 3}, {0, 0}, {0, 3}}}));
  dir.write("job.hosts", "n1:3\n");
  expect_error([&] { read_launch_file(path, LaunchFormat::intelmpi, m, cores); }, 1, "local rank 2 on 'n1' has no CPU");
}

TEST(Render, HardwareThreadSlots) {
  const Machine m = two_socket_pair();
  const Allocation a = make_allocation(m, {{}, 0, true});
  // Slot 5 is PU 5: package 1 (PUs 4-7), its second PU, core 2.
  const Mapping map{{{0, 1}, {1, 1}, {0, 5}, {1, 5}}};
  EXPECT_EQ(render(LaunchFormat::openmpi, m, a, map),
            "rank 0=n0 slot=0:1\nrank 1=n1 slot=0:1\nrank 2=n0 slot=1:1\nrank 3=n1 slot=1:1\n");
  EXPECT_EQ(render(LaunchFormat::slurm, m, a, map, 1), "SLURM_DISTRIBUTION=arbitrary\nSLURM_CPU_BIND=map_cpu:1,5\n");
  EXPECT_EQ(render(LaunchFormat::csv, m, a, map),
            "rank,host,socket,core,pu\n0,n0,0,0,1\n1,n1,0,0,1\n2,n0,1,2,5\n3,n1,1,2,5\n");
}

TEST(Render, OneRankPerNodeSpansBothSockets) {
  const Machine m = two_socket_pair();
  const Allocation a = make_allocation(m, {{}, 1, false});
  const Mapping map{{{1, 0}, {0, 0}}};
  EXPECT_EQ(render(LaunchFormat::openmpi, m, a, map), "rank 0=n1 slot=0:0-1,1:0-1\nrank 1=n0 slot=0:0-1,1:0-1\n");
  EXPECT_EQ(render(LaunchFormat::mpich, m, a, map),
            "n1:1 binding=user:0+1+2+3+4+5+6+7\nn0:1 binding=user:0+1+2+3+4+5+6+7\n");
  EXPECT_EQ(render(LaunchFormat::csv, m, a, map), "rank,host,socket,core,pu\n0,n1,0,0-3,\n1,n0,0,0-3,\n");
}

// Every format, written and read back, on the heterogeneous Angara-K1 with
// several kinds of slot: the same mapping comes back.
TEST(LaunchFiles, RoundTripEveryFormat) {
  test::TempDir dir;
  const Machine m = load_machine(test::source_dir() / "data/machines/angara-k1.toml");
  const std::vector<AllocationOptions> allocations = {{},
                                                      {{"a01", "b03", "a07", "b12"}, 0, false},
                                                      {{"a02", "a03"}, 0, true},
                                                      {{"a04", "b01"}, 2, false},
                                                      {{"a10", "a11", "a12"}, 4, false}};
  int local_rank_files = 0;
  for (const auto& options : allocations) {
    const Allocation a = make_allocation(m, options);
    const std::size_t ranks = a.total_slots() - 1;
    for (auto f : {LaunchFormat::openmpi, LaunchFormat::mpich, LaunchFormat::slurm, LaunchFormat::mvapich,
                   LaunchFormat::intelmpi, LaunchFormat::csv}) {
      const bool by_local_rank = f == LaunchFormat::mvapich || f == LaunchFormat::intelmpi;
      for (auto kind : {Baseline::block, Baseline::rr, Baseline::random}) {
        if (by_local_rank && kind == Baseline::random) continue;  // not expressible
        const Mapping map = baseline_mapping(kind, a, ranks, 5);
        const auto path = dir.path() / ("map." + std::string(launch_format_name(f)));
        SCOPED_TRACE(std::string(launch_format_name(f)) + " " + std::string(baseline_name(kind)));
        try {
          write_launch_files(path, f, m, a, map);
        } catch (const Error& e) {
          // Heterogeneous nodes can make local rank i differ between nodes;
          // that, and only that, may stop mvapich and intelmpi.
          ASSERT_TRUE(by_local_rank) << e.what();
          EXPECT_NE(std::string(e.what()).find("to the same CPUs on every node"), std::string::npos) << e.what();
          continue;
        }
        if (by_local_rank) ++local_rank_files;
        EXPECT_EQ(read_launch_file(path, f, m, a), map);
        EXPECT_EQ(detect_launch_format(path), f);
      }
    }
  }
  EXPECT_GE(local_rank_files, 8);
}

TEST(LaunchFiles, FailedWriteLeavesNoFile) {
  test::TempDir dir;
  const Machine m = two_socket_pair();
  const Allocation a = make_allocation(m, {});
  const auto path = dir.path() / "hosts";
  EXPECT_THROW(write_launch_files(path, LaunchFormat::mvapich, m, a, kScattered), Error);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(LaunchFiles, ReadersAcceptWhatUsersWrite) {
  test::TempDir dir;
  const Machine m = two_socket_pair();
  const Allocation a = make_allocation(m, {});
  // Open MPI: +nK hosts, a bare core number, comments.
  const auto rf = dir.write("rf", "# mine\nrank 1=+n1 slot=1:1\nrank 0 = n0 slot=2\n");
  EXPECT_EQ(read_launch_file(rf, LaunchFormat::openmpi, m, a), (Mapping{{{0, 2}, {1, 3}}}));
  // Hydra without binding: ranks fill hosts in file order, slots in order.
  const auto mf = dir.write("mf", "n1:2\nn0\nn1\n");
  EXPECT_EQ(read_launch_file(mf, LaunchFormat::mpich, m, a), (Mapping{{{1, 0}, {1, 1}, {0, 0}, {1, 2}}}));
  EXPECT_EQ(detect_launch_format(mf), LaunchFormat::mpich);
  // A plain host-per-line file without .env.
  const auto hf = dir.write("hf", "n0\nn0\nn1\n");
  EXPECT_EQ(read_launch_file(hf, LaunchFormat::slurm, m, a), (Mapping{{{0, 0}, {0, 1}, {1, 0}}}));
}

TEST(LaunchFiles, ReaderErrorsNameTheLine) {
  test::TempDir dir;
  const Machine m = two_socket_pair();
  const Allocation part = make_allocation(m, {{"n0"}, 0, false});
  auto read = [&](LaunchFormat f, const std::string& text) {
    return [&, f, text] { read_launch_file(dir.write("f", text), f, m, part); };
  };
  expect_error(read(LaunchFormat::openmpi, "rank 0=n0 slot=0:0\nrank 1=zz slot=0:0\n"), 2, "unknown host 'zz'");
  expect_error(read(LaunchFormat::openmpi, "rank 0=n1 slot=0:0\n"), 1, "host 'n1' is not among the allocated nodes");
  expect_error(read(LaunchFormat::openmpi, "rank 0=n0 slot=3:0\n"), 1,
               "socket 3 does not exist on host 'n0' (2 sockets)");
  expect_error(read(LaunchFormat::openmpi, "rank 0=n0 slot=0:2\n"), 1, "core 2 of socket 0 does not exist");
  expect_error(read(LaunchFormat::openmpi, "rank 0=n0 slot=0:0\nrank 0=n0 slot=0:1\n"), 2, "rank 0 is placed twice");
  expect_error(read(LaunchFormat::openmpi, "rank 0=n0 slot=0:0-1\n"), 1, "is not a slot of host 'n0'");
  expect_error(read(LaunchFormat::openmpi, "rank 0 n0\n"), 1, "expected 'rank R=HOST slot=S:C'");
  expect_error(read(LaunchFormat::mpich, "n0:2 binding=user:0+1\n"), 1, "1 CPU sets for 2 ranks");
  expect_error(read(LaunchFormat::mpich, "n0:1 binding=user:9\n"), 1, "CPU 9 does not exist");
  expect_error(read(LaunchFormat::mpich, "n0:5\n"), 1, "more ranks than its 4 slots");
  expect_error(read(LaunchFormat::csv, "rank,host\n"), 1, "expected the header");
  expect_error(read(LaunchFormat::csv, "rank,host,socket,core,pu\n0,n0,1,0,\n"), 2,
               "socket 1 does not hold those CPUs");
}
