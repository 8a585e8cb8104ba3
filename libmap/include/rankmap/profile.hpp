// A communication profile written by the PMPI shim (.rmp; the format and the
// collective models are in docs/profile-format.md).
#pragma once

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

struct Profile {
  std::string mpi_library;  // first line of MPI_Get_library_version
  std::string mpi_version;  // "3.1"
  double wall_seconds = 0;  // the longest rank's
  double p_mpi = 0;         // share of time in MPI, over all ranks
  int incomplete_ranks = 0; // ranks whose counts the shim could not keep whole
  std::vector<ProfiledRank> ranks;
  Graph p2p;                // point-to-point sends
  Graph collective;         // collectives, as rank-to-rank sends under the models
  Graph rma;                // one-sided, per target

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
