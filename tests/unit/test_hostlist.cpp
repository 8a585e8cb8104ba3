#include <gtest/gtest.h>

#include "helpers.hpp"
#include "rankmap/hostlist.hpp"

using rankmap::compress_hostlist;
using rankmap::expand_hostlist;
using V = std::vector<std::string>;

TEST(Hostlist, PlainAndCommaLists) {
  EXPECT_EQ(expand_hostlist("node07"), V{"node07"});
  EXPECT_EQ(expand_hostlist("a,b , c"), (V{"a", "b", "c"}));
}

TEST(Hostlist, RangesKeepTheLowerBoundsPadding) {
  EXPECT_EQ(expand_hostlist("node[00-03]"), (V{"node00", "node01", "node02", "node03"}));
  EXPECT_EQ(expand_hostlist("n[8-11]"), (V{"n8", "n9", "n10", "n11"}));
  EXPECT_EQ(expand_hostlist("n[098-101]"), (V{"n098", "n099", "n100", "n101"}));
}

TEST(Hostlist, CommaInsideBrackets) {
  EXPECT_EQ(expand_hostlist("a[1-3,7]"), (V{"a1", "a2", "a3", "a7"}));
  EXPECT_EQ(expand_hostlist("node[00-01,12],login"), (V{"node00", "node01", "node12", "login"}));
}

TEST(Hostlist, SeveralBracketsLastVariesFastest) {
  EXPECT_EQ(expand_hostlist("r[1-2]n[01-03]"), (V{"r1n01", "r1n02", "r1n03", "r2n01", "r2n02", "r2n03"}));
  EXPECT_EQ(expand_hostlist("r[1-2]n[01-02]-ib"), (V{"r1n01-ib", "r1n02-ib", "r2n01-ib", "r2n02-ib"}));
}

TEST(Hostlist, ErrorsNameTheProblem) {
  using rankmap::test::expect_error;
  expect_error([] { expand_hostlist("node[00-03", "f.toml", 4); }, 4, "missing ']'");
  expect_error([] { expand_hostlist("node[3-1]", "f.toml", 4); }, 4, "runs backwards");
  expect_error([] { expand_hostlist("node[a-b]", "f.toml", 2); }, 2, "expected a number");
  expect_error([] { expand_hostlist("node]1", "f.toml", 2); }, 2, "unmatched ']'");
  expect_error([] { expand_hostlist("a,,b", "f.toml", 2); }, 2, "empty host name");
  expect_error([] { expand_hostlist("", "--nodes"); }, 0, "empty host name");
  expect_error([] { expand_hostlist("n[]"); }, 0, "empty brackets");
  expect_error([] { expand_hostlist("n[1-2][3-4"); }, 0, "missing ']'");
}

TEST(Hostlist, CompressIsTheInverse) {
  EXPECT_EQ(compress_hostlist({"node00", "node01", "node02", "node05"}), "node[00-02,05]");
  EXPECT_EQ(compress_hostlist({"a", "b7"}), "a,b7");
  // Unpadded numbers run across a digit (issue 32: h[1-16] came back as
  // h[1-9],h[10-16]); padded ones keep their width.
  std::vector<std::string> h;
  for (int i = 1; i <= 16; ++i) h.push_back("h" + std::to_string(i));
  EXPECT_EQ(compress_hostlist(h), "h[1-16]");
  EXPECT_EQ(compress_hostlist({"n9", "n10", "n12"}), "n[9-10,12]");
  EXPECT_EQ(compress_hostlist({"n8", "n9", "n09", "n10"}), "n[8-9],n[09-10]");
  for (const char* list :
       {"node[00-31]", "a[01-24],b[01-12]", "r1n[01-04],r2n[01-04]", "x[1-3,7],y", "x[8-12],y[08-12]", "z[98-101,0]"}) {
    const auto hosts = expand_hostlist(list);
    EXPECT_EQ(expand_hostlist(compress_hostlist(hosts)), hosts) << list;
  }
}
