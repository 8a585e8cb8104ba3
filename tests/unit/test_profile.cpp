#include <gtest/gtest.h>

#include "rankmap/error.hpp"
#include "rankmap/profile.hpp"

using namespace rankmap;

namespace {

const char* kProfile =
    "rankmap-profile 1\n"
    "mpi_library MPICH Version: 4.0.2\n"
    "mpi_version 4.0\n"
    "ranks 3\n"
    "wall_s 2.0\n"
    "p_mpi 0.25\n"
    "incomplete_ranks 0\n"
    "rank 0 host a wall_s 2.0 mpi_s 0.5\n"
    "p2p 1 100 2\n"
    "coll 1 30 1\n"
    "coll 2 8 1\n"
    "rank 1 host a wall_s 1.0 mpi_s 0.25\n"
    "rma 0 16 1\n"
    "rank 2 host b wall_s 1.0 mpi_s 0.25\n"
    "end\n";

std::string error_of(const std::string& text) {
  try {
    parse_profile(text, "app.rmp");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(Profile, ReadsHeaderRanksAndKinds) {
  const Profile p = parse_profile(kProfile, "app.rmp");
  EXPECT_EQ(p.mpi_library, "MPICH Version: 4.0.2");
  EXPECT_EQ(p.mpi_version, "4.0");
  EXPECT_DOUBLE_EQ(p.p_mpi, 0.25);
  ASSERT_EQ(p.ranks.size(), 3u);
  EXPECT_EQ(p.ranks[2].host, "b");
  EXPECT_EQ(p.p2p.total_bytes(), 100u);
  EXPECT_EQ(p.collective.total_bytes(), 38u);
  EXPECT_EQ(p.rma.total_bytes(), 16u);
  // All kinds added: 0->1 carries 100 + 30 bytes in 3 messages.
  const Graph g = p.total();
  EXPECT_EQ(g.total_bytes(), 154u);
  ASSERT_EQ(g.offsets[1] - g.offsets[0], 2u);
  EXPECT_EQ(g.targets[0], 1u);
  EXPECT_EQ(g.bytes[0], 130u);
  EXPECT_EQ(g.msgs[0], 3u);
  // Exchanges leave the collectives out: 0->1 100 bytes in 2 messages,
  // 1->0 the 16 bytes of rma.
  const Graph x = p.exchanges();
  EXPECT_EQ(x.total_bytes(), 116u);
  ASSERT_EQ(x.num_edges(), 2u);
  EXPECT_EQ(x.targets[0], 1u);
  EXPECT_EQ(x.msgs[0], 2u);
  EXPECT_EQ(x.targets[1], 0u);
  EXPECT_EQ(x.bytes[1], 16u);
}

TEST(Profile, ErrorsNameTheFileAndLine) {
  std::string text = kProfile;
  EXPECT_NE(error_of(text.substr(0, text.size() - 4)).find("app.rmp:14"), std::string::npos);  // no "end"
  EXPECT_NE(error_of("rankmap-profile 2\n").find("version 2 is not supported"), std::string::npos);
  std::string bad_peer = kProfile;
  bad_peer.replace(bad_peer.find("p2p 1 100 2"), 11, "p2p 7 100 2");
  EXPECT_NE(error_of(bad_peer).find("app.rmp:9"), std::string::npos);
  EXPECT_NE(error_of(bad_peer).find("peer rank 7 is outside 0..2"), std::string::npos);
  std::string out_of_order = kProfile;
  out_of_order.replace(out_of_order.find("rank 1 host"), 6, "rank 2");
  EXPECT_NE(error_of(out_of_order).find("expected 'rank 1'"), std::string::npos);
}
