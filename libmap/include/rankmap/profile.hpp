// A communication profile written by the PMPI shim (.rmp; the format and the
// collective models are in docs/profile-format.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "rankmap/graph.hpp"

namespace rankmap {

struct ProfiledRank {
  std::string host;         // MPI_Get_processor_name
  double wall_seconds = 0;  // MPI_Init to MPI_Finalize
  double mpi_seconds = 0;   // inside MPI calls
};

// One collective algorithm as one rank ran it on one of its communicators
// (profile version 2). Slots number a rank's communicators in the order of
// their first collective, so that in an SPMD code a slot names the same
// communicator on every rank (each rank's row communicator). Rounds run one
// after another, the sends of a round at once.
struct CollectiveCalls {
  std::uint32_t rank = 0;
  std::string algorithm;  // the shim's model, e.g. "allreduce_rdb", "alltoall_linear"
  std::uint32_t slot = 0;
  std::uint64_t calls = 0;  // how many times the rank called it
  std::uint64_t first = 0;  // the rank's collective call number at its first call
  struct Send {
    std::uint32_t round = 0, peer = 0;  // peer: a world rank
    std::uint64_t bytes = 0, msgs = 0;  // over all calls
  };
  std::vector<Send> sends;  // by round, then peer
};

struct Profile {
  std::string mpi_library;   // first line of MPI_Get_library_version
  std::string mpi_version;   // "3.1"
  double wall_seconds = 0;   // the longest rank's
  double p_mpi = 0;          // share of time in MPI, over all ranks
  int incomplete_ranks = 0;  // ranks whose counts the shim could not keep whole
  std::vector<ProfiledRank> ranks;
  Graph p2p;         // point-to-point sends
  Graph collective;  // collectives, as rank-to-rank sends under the models
  Graph rma;         // one-sided, per target
  // Version 2: collective calls by algorithm, communicator and round, in
  // rank order. complete is false for version 1, and when the shim had to
  // leave calls out (the collective graph still counts them).
  std::vector<CollectiveCalls> calls;
  bool calls_complete = false;

  // All three kinds added up: what map() places.
  Graph total() const;
  // Point-to-point and one-sided added up: the traffic the flow model
  // (gain.hpp) takes as exchange phases, the collectives being chains.
  Graph exchanges() const;
};

// Throws Error(file, line, what was expected) on a malformed profile.
Profile read_profile(const std::filesystem::path& path);
Profile parse_profile(std::string_view text, const std::string& source);

}  // namespace rankmap
