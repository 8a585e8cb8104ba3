// The small helpers every layer shares (libmap/src/core, partition), each
// against values worked by hand or a second, plainer implementation.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/huge_pages.hpp"
#include "core/names.hpp"
#include "core/sparse_accumulator.hpp"
#include "core/toml_reader.hpp"
#include "partition/integer_weights.hpp"
#include "rankmap/error.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/io.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/random.hpp"

using namespace rankmap;
using namespace rankmap::detail;

TEST(Error, KindParameterAndWhat) {
  const Error file("m.toml", 3, "bad\nvalue");
  EXPECT_EQ(file.kind(), ErrorKind::input);
  EXPECT_STREQ(file.what(), "m.toml:3: bad?value");
  EXPECT_EQ(file.message(), "bad?value");
  EXPECT_EQ(file.parameter(), "");
  EXPECT_EQ(file.what_with_parameter_called("--nodes"), "m.toml:3: bad?value");  // no parameter to rename

  const Error p(ErrorKind::fit, Parameter{"ranks_per_node"}, "7 do not fit");
  EXPECT_EQ(p.kind(), ErrorKind::fit);
  EXPECT_STREQ(p.what(), "ranks_per_node: 7 do not fit");
  EXPECT_EQ(p.what_with_parameter_called("--ppn"), "--ppn: 7 do not fit");
  EXPECT_EQ(Error("x", ErrorKind::io).kind(), ErrorKind::io);
  EXPECT_EQ(error_kind_name(ErrorKind::argument), "argument");
}

TEST(Names, OneOf) {
  EXPECT_EQ(one_of({"a"}), "a");
  EXPECT_EQ(one_of({"a", "b"}), "a or b");
  EXPECT_EQ(one_of({"fast", "default", "quality"}), "fast, default or quality");
}

// Against a std::map over random keys: the same sums, the keys in order of
// first touch, nothing left after clear().
TEST(SparseAccumulator, MatchesAMapAndClearsOnlyWhatItTouched) {
  SparseAccumulator<std::uint64_t> acc(1000);
  Rng rng(5);
  for (int round = 0; round < 20; ++round) {
    std::map<std::uint32_t, std::uint64_t> want;
    std::vector<std::uint32_t> first_touch;
    for (int i = 0; i < 200; ++i) {
      const auto key = static_cast<std::uint32_t>(rng.below(1000));
      const std::uint64_t v = rng.below(50);
      if (!want.count(key)) first_touch.push_back(key);
      want[key] += v;
      acc.add(key, v);
    }
    EXPECT_EQ(acc.keys(), first_touch);
    for (const auto& [key, sum] : want) EXPECT_EQ(acc[key], sum);
    acc.clear();
    EXPECT_TRUE(acc.keys().empty());
    for (std::uint32_t k = 0; k < 1000; ++k) ASSERT_EQ(acc[k], 0u);
  }
  // A key added with 0 is still touched (a node pair with messages but no bytes).
  acc.add(7, 0);
  EXPECT_EQ(acc.keys(), std::vector<std::uint32_t>{7});
}

// Sums within 2^30 stay as they are; larger ones are scaled down, floored,
// and never below 1.
TEST(IntegerWeights, ScaledToThePartitionersWidth) {
  EXPECT_EQ(integer_weights<int>({1, 2, 3}), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(integer_weights<int>({0, 5}), (std::vector<int>{1, 5}));
  // 2^31 + 2^31 = 2^32: a quarter each, 2^29.
  EXPECT_EQ(integer_weights<int>({1ull << 31, 1ull << 31}), (std::vector<int>{1 << 29, 1 << 29}));
  // 1 + 2^40: the small one floors to 0 and is lifted to 1; the large one
  // is 2^30 * 2^40 / (2^40 + 1), just under 2^30.
  EXPECT_EQ(integer_weights<int>({1, 1ull << 40}), (std::vector<int>{1, (1 << 30) - 1}));
}

namespace {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(TomlReader, ChecksEachValueAtItsLine) {
  const TomlReader r("f.toml");
  EXPECT_EQ(error_of([&] { r.parse("a = \n"); }).rfind("f.toml:1: TOML syntax: ", 0), 0u);
  const toml::table t = r.parse("n = 3\nx = 2.5\nb = 1\ns = 'text'\nbig = 9\n[sub]\nq = true\n");
  EXPECT_EQ(error_of([&] {
              r.reject_unknown(t, {"n", "x", "b", "s", "sub"}, "top level");
            }),
            "f.toml:5: unknown key 'big' in top level");
  EXPECT_EQ(r.integer(*t.get("n"), "n", 1, 5), 3);
  EXPECT_EQ(error_of([&] { r.integer(*t.get("big"), "big", 1, 5); }),
            "f.toml:5: 'big' must be a whole number from 1 to 5");
  EXPECT_EQ(error_of([&] { r.integer(*t.get("x"), "x", 0, 5); }), "f.toml:2: 'x' must be a whole number from 0 to 5");
  EXPECT_DOUBLE_EQ(r.nonnegative(*t.get("x"), "x"), 2.5);
  EXPECT_DOUBLE_EQ(r.nonnegative(*t.get("n"), "n"), 3.0);  // an integer is a number too
  EXPECT_EQ(error_of([&] { r.nonnegative(*t.get("s"), "s"); }), "f.toml:4: 's' must be a non-negative number");
  EXPECT_EQ(r.string(*t.get("s"), "s"), "text");
  EXPECT_EQ(error_of([&] { r.string(*t.get("n"), "n"); }), "f.toml:1: 'n' must be a string");
  bool flag = false;
  r.boolean(*r.table(t, "sub"), "q", flag);
  EXPECT_TRUE(flag);
  r.boolean(t, "absent", flag);  // left as it was
  EXPECT_TRUE(flag);
  EXPECT_EQ(error_of([&] { r.boolean(t, "b", flag); }), "f.toml:3: 'b' must be true or false");
  EXPECT_EQ(r.table(t, "absent"), nullptr);
  EXPECT_EQ(error_of([&] { r.table(t, "n"); }), "f.toml:1: 'n' must be a table");
}

// Buffers past 64 MiB are faulted in from the back on a second thread
// while this one fills them: the contents must be what std::vector gives.
TEST(HugePages, LargeBuffersHoldWhatTheyWereGiven) {
  const std::size_t n = std::size_t{24} << 20;  // 96 MiB of uint32
  const std::vector<std::uint32_t> v = huge_vector<std::uint32_t>(n, 7);
  ASSERT_EQ(v.size(), n);
  EXPECT_EQ(std::count(v.begin(), v.end(), 7u), static_cast<std::ptrdiff_t>(n));
  std::vector<std::uint32_t> ramp(n);
  for (std::size_t i = 0; i < n; ++i) ramp[i] = static_cast<std::uint32_t>(i * 2654435761u);
  std::vector<std::uint32_t> copy;
  assign_huge(copy, ramp.begin(), ramp.end());
  EXPECT_EQ(copy, ramp);
  advise_huge_pages(nullptr, 0);  // advice on nothing is a no-op
}

// Issue 29, points 3, 6 and 7: outputs against inputs by device and inode,
// the temporaries a signal handler removes, and replaced files' modes.
namespace {
std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("rankmap-core-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}
}  // namespace

TEST(Io, OutputsAreComparedWithInputsByFileNotName) {
  const auto dir = fresh_dir("distinct");
  const auto in = dir / "in.mtx", link = dir / "hard.mtx", out = dir / "out.rf";
  std::ofstream(in) << "x\n";
  std::filesystem::create_hard_link(in, link);
  const std::string dotted = (dir / "." / "in.mtx").string();
  EXPECT_EQ(error_of([&] { require_distinct_files({in}, {dotted}); }),
            dotted + ": is an input of this command (" + in.string() + "); refusing to write over it");
  EXPECT_NE(error_of([&] { require_distinct_files({in}, {link}); }).find("is an input"), std::string::npos);
  // Two outputs not there yet, one name spelt two ways.
  EXPECT_EQ(
      error_of([&] {
        require_distinct_files({in}, {out, dir / "." / "out.rf"});
      }),
      (dir / "." / "out.rf").string() + ": is also the output " + out.string() + "; two outputs cannot be one file");
  EXPECT_EQ(error_of([&] { require_distinct_files({in}, {out, dir / "out.json", ""}); }), "no error");
  // write_files_atomically refuses two parts that are one file.
  EXPECT_NE(error_of([&] {
              write_files_atomically(out, {{"", "a"}, {"", "b", dir / "out.rf"}});
            }).find("two outputs cannot be one file"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(out));
  std::filesystem::remove_all(dir);
}

TEST(Io, RemoveTemporaryFilesTakesTheWriteUnderWay) {
  const auto dir = fresh_dir("signal");
  const auto out = dir / "job.rf";
  std::vector<std::filesystem::path> seen;
  // Between writing and renaming, as a signal handler would: the
  // temporaries go, so the rename fails and nothing is left at all.
  const std::string e = error_of([&] {
    write_files_atomically(out, {{"", "rank 0=a slot=0:0\n"}, {".env", "X=1\n"}},
                           [&](const std::filesystem::path& temp) {
                             for (const auto& f : std::filesystem::directory_iterator(dir)) seen.push_back(f.path());
                             EXPECT_TRUE(std::filesystem::exists(temp));
                             remove_temporary_files();
                           });
  });
  EXPECT_EQ(seen.size(), 2u);  // the file and its companion, under .job.rf.tmp.XXXXXX(.env)
  for (const auto& f : seen) EXPECT_EQ(f.filename().string().rfind(".job.rf.tmp.", 0), 0u) << f;
  EXPECT_NE(e.find("cannot rename into place"), std::string::npos) << e;
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  // After a write has landed, nothing of it is registered any more.
  write_files_atomically(out, {{"", "kept\n"}});
  remove_temporary_files();
  EXPECT_EQ(read_text_file(out), "kept\n");
  std::filesystem::remove_all(dir);
}

TEST(Io, AReplacedFileKeepsItsMode) {
  const auto dir = fresh_dir("mode");
  const auto out = dir / "job.rf";
  write_files_atomically(out, {{"", "one\n"}, {".env", "A=1\n"}});
  ::chmod(out.c_str(), 0600);
  ::chmod((out.string() + ".env").c_str(), 0640);
  write_files_atomically(out, {{"", "two\n"}, {".env", "A=2\n"}});
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  ASSERT_EQ(::stat((out.string() + ".env").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(read_text_file(out), "two\n");
  // A new file: 0666 under the umask.
  const mode_t mask = ::umask(022);
  write_files_atomically(dir / "new.rf", {{"", "x\n"}});
  ::umask(mask);
  ASSERT_EQ(::stat((dir / "new.rf").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  std::filesystem::remove_all(dir);
}

TEST(Io, ReadersRefuseAFifoWithoutBlocking) {
  const auto dir = fresh_dir("fifo");
  const auto fifo = dir / "graph.mtx";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of([&] { read_text_file(fifo); }), fifo.string() + ": not a regular file");
  EXPECT_EQ(error_of([&] { read_graph(fifo); }), fifo.string() + ": not a regular file");
  EXPECT_NE(error_of([&] {
              load_node_type("xml:" + fifo.string(), "m.toml", 7);
            }).find("m.toml:7: cannot read hwloc XML '" + fifo.string() + "': not a regular file"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}
