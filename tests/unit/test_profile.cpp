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
  EXPECT_NE(error_of("rankmap-profile 3\n").find("version 3 is not supported"), std::string::npos);
  std::string bad_peer = kProfile;
  bad_peer.replace(bad_peer.find("p2p 1 100 2"), 11, "p2p 7 100 2");
  EXPECT_NE(error_of(bad_peer).find("app.rmp:9"), std::string::npos);
  EXPECT_NE(error_of(bad_peer).find("peer rank 7 is outside 0..2"), std::string::npos);
  std::string out_of_order = kProfile;
  out_of_order.replace(out_of_order.find("rank 1 host"), 6, "rank 2");
  EXPECT_NE(error_of(out_of_order).find("expected 'rank 1'"), std::string::npos);
}

// Version 2 adds call records after a rank's peer lines: rank 0's
// allreduce on slot 0 (2 calls, its first collective) sends 16 B to rank 1
// in round 1; rank 1's barrier on slot 1 has no sends of its own.
TEST(Profile, ReadsCallRecords) {
  std::string text = kProfile;
  text.replace(0, 17, "rankmap-profile 2");
  // Rank 0's steps add up to its coll lines (30 bytes in 1 message to
  // rank 1, 8 in 1 to rank 2), as the shim writes them.
  text.insert(text.find("rank 1 host"), "call allreduce_rdb 0 2 0\nstep 1 1 30 1\nstep 2 2 8 1\n");
  text.insert(text.find("rank 2 host"), "call barrier_dissemination 1 3 5\n");
  const Profile p = parse_profile(text, "app.rmp");
  EXPECT_TRUE(p.calls_complete);
  ASSERT_EQ(p.calls.size(), 2u);
  EXPECT_EQ(p.calls[0].rank, 0u);
  EXPECT_EQ(p.calls[0].algorithm, "allreduce_rdb");
  EXPECT_EQ(p.calls[0].calls, 2u);
  ASSERT_EQ(p.calls[0].sends.size(), 2u);
  EXPECT_EQ(p.calls[0].sends[1].round, 2u);
  EXPECT_EQ(p.calls[0].sends[1].peer, 2u);
  EXPECT_EQ(p.calls[0].sends[1].bytes, 8u);
  EXPECT_EQ(p.calls[1].rank, 1u);
  EXPECT_EQ(p.calls[1].slot, 1u);
  EXPECT_EQ(p.calls[1].first, 5u);
  EXPECT_TRUE(p.calls[1].sends.empty());
  // Version 1 has no records: the model then reads collectives as chains.
  EXPECT_FALSE(parse_profile(kProfile, "app.rmp").calls_complete);
  // The shim ran out of room for some calls.
  std::string dropped = text;
  dropped.insert(dropped.find("call allreduce"), "calls_complete 0\n");
  EXPECT_FALSE(parse_profile(dropped, "app.rmp").calls_complete);
  // Errors: a step with no call before it in its rank, a bad name, a peer
  // outside the job, and call lines in a version 1 file.
  std::string orphan = text;
  orphan.insert(orphan.find("rank 2 host"), "step 0 0 8 1\n");
  orphan.replace(orphan.find("call barrier_dissemination 1 3 5\n"), 33, "");
  EXPECT_NE(error_of(orphan).find("a 'step' line must follow its rank's 'call' line"), std::string::npos);
  std::string name = text;
  name.replace(name.find("allreduce_rdb"), 13, "Allreduce-RDB");
  EXPECT_NE(error_of(name).find("app.rmp:12: expected an algorithm name"), std::string::npos);
  std::string peer = text;
  peer.replace(peer.find("step 2 2 8 1"), 12, "step 2 9 8 1");
  EXPECT_NE(error_of(peer).find("peer rank 9 is outside 0..2"), std::string::npos);
  std::string old = text;
  old.replace(0, 17, "rankmap-profile 1");
  EXPECT_NE(error_of(old).find("app.rmp:12: expected 'p2p', 'coll', 'rma', 'rank' or 'end', got 'call'"),
            std::string::npos);
  // Steps that do not add up to the coll lines: the graph's collective
  // bytes and the rounds the model replays would disagree.
  std::string more = text;
  more.replace(more.find("step 2 2 8 1"), 12, "step 2 2 9 1");
  EXPECT_NE(error_of(more).find("app.rmp:8: rank 0's step lines send rank 2 9 bytes in 1 messages, its coll lines 8 "
                                "bytes in 1 messages"),
            std::string::npos)
      << error_of(more);
  std::string unlisted = text;
  unlisted.insert(unlisted.find("call barrier_dissemination 1 3 5\n") + 33, "step 0 0 4 1\n");
  EXPECT_NE(error_of(unlisted).find("rank 1's step lines send rank 0 4 bytes in 1 messages, its coll lines nothing"),
            std::string::npos)
      << error_of(unlisted);
  // Counts in range: calls_complete is 0 or 1, a call count at most 2^48.
  std::string two = text;
  two.insert(two.find("call allreduce"), "calls_complete 2\n");
  EXPECT_NE(error_of(two).find("expected 'calls_complete 0' or 'calls_complete 1', got 2"), std::string::npos);
  std::string many = text;
  many.replace(many.find("call allreduce_rdb 0 2 0"), 24, "call allreduce_rdb 0 18446744073709551615 0");
  EXPECT_NE(error_of(many).find("expected a call count from 1 to 2^48"), std::string::npos);
}
