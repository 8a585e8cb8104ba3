// The least a reader does beyond the sorted file's when a graph's edge
// lines (.mtx, .csv) come in any order (issue 55, section 3). Both files
// are parsed first, untimed; then only the step that turns edges into the
// graph's rows (CSR: offsets, receivers, bytes, messages) is timed, on two
// threads, each its half of the edges, as the reader's two pieces:
//   in order: each edge written at its own place (the sorted file);
//   direct:   rows counted, each edge written at its row's next place (32
//             in flight), rows sorted (what libmap does);
//   buckets:  edges counted by runs of consecutive rows (about 2,048
//             runs: 512 rows on 1M ranks), written at their run's next
//             place, each run put in row order in cache and its rows
//             sorted (tried in the twentieth session, not kept).
// The outputs are checked against each other; the times are the best of
// five. No text is read while timing: what is left is memory work that the
// order of the lines alone asks for.
//
//   g++ -O3 -std=c++20 -pthread bench/read_order_bound.cpp -o /tmp/read_order_bound
//   /tmp/read_order_bound SORTED.mtx SHUFFLED.mtx
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Edges {
  std::uint32_t ranks = 0;
  std::vector<std::uint32_t> src, dst;
  std::vector<std::uint64_t> bytes;
};

struct Csr {
  std::vector<std::uint64_t> offsets;
  std::vector<std::uint32_t> targets;
  std::vector<std::uint64_t> bytes, msgs;
  bool operator==(const Csr&) const = default;
};

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "read_order_bound: %s\n", what.c_str());
  std::exit(1);
}

// A general integer .mtx as rankmap writes it: banner, comments, size line, "i j v".
Edges load_mtx(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(std::string(path) + ": cannot open");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const char* p = text.c_str();
  auto next_line = [&] {
    const char* eol = std::strchr(p, '\n');
    p = eol ? eol + 1 : p + std::strlen(p);
  };
  while (*p == '%') next_line();
  char* end = nullptr;
  Edges e;
  e.ranks = static_cast<std::uint32_t>(std::strtoull(p, &end, 10));
  std::strtoull(end, &end, 10);
  const std::uint64_t nnz = std::strtoull(end, &end, 10);
  p = end;
  next_line();
  e.src.reserve(nnz), e.dst.reserve(nnz), e.bytes.reserve(nnz);
  for (std::uint64_t k = 0; k < nnz; ++k) {
    const std::uint64_t i = std::strtoull(p, &end, 10), j = std::strtoull(end, &end, 10);
    const std::uint64_t v = std::strtoull(end, &end, 10);
    if (i < 1 || i > e.ranks || j < 1 || j > e.ranks) fail(std::string(path) + ": entry " + std::to_string(k + 1));
    e.src.push_back(static_cast<std::uint32_t>(i - 1));
    e.dst.push_back(static_cast<std::uint32_t>(j - 1));
    e.bytes.push_back(v);
    p = end;
  }
  return e;
}

// Room for the graph, its pages touched (untimed: both orders pay it).
Csr room(const Edges& e) {
  Csr g;
  g.offsets.assign(e.ranks + std::size_t{1}, 0);
  g.targets.assign(e.src.size(), 0);
  g.bytes.assign(e.src.size(), 0);
  g.msgs.assign(e.src.size(), 0);
  return g;
}

template <class Half>
void on_two_threads(Half&& half) {
  std::thread other(half, 1);
  half(0);
  other.join();
}

std::size_t half_begin(std::size_t n, int h) { return h == 0 ? 0 : n / 2; }
std::size_t half_end(std::size_t n, int h) { return h == 0 ? n / 2 : n; }

void in_order(const Edges& e, Csr& g) {
  const std::size_t n = e.src.size();
  on_two_threads([&](int h) {
    const std::size_t lo = half_begin(n, h), hi = half_end(n, h);
    std::uint32_t last = lo > 0 ? e.src[lo - 1] : 0;
    for (std::size_t i = lo; i < hi; ++i) {
      const std::uint32_t s = e.src[i];
      if (i == 0)
        for (std::uint32_t r = 0; r <= s; ++r) g.offsets[r] = 0;
      else
        for (std::uint32_t r = last + 1; r <= s; ++r) g.offsets[r] = i;
      last = s;
      g.targets[i] = e.dst[i];
      g.bytes[i] = e.bytes[i];
      g.msgs[i] = 1;
    }
  });
  for (std::size_t r = (n ? e.src[n - 1] : 0) + std::size_t{1}; r <= e.ranks; ++r) g.offsets[r] = n;
}

// The edges [first, last) sorted by receiver as libmap's sort_row does: up
// to 32 as keys by insertion, longer ones by std::sort of the keys.
void sort_row(Csr& g, std::uint64_t first, std::uint64_t last) {
  const std::size_t n = last - first;
  static thread_local std::vector<std::uint64_t> keys, b, m;
  keys.resize(n);
  b.assign(g.bytes.begin() + static_cast<std::ptrdiff_t>(first), g.bytes.begin() + static_cast<std::ptrdiff_t>(last));
  m.assign(g.msgs.begin() + static_cast<std::ptrdiff_t>(first), g.msgs.begin() + static_cast<std::ptrdiff_t>(last));
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t key = std::uint64_t{g.targets[first + i]} << 32 | i;
    if (n > 32) {
      keys[i] = key;
      continue;
    }
    std::size_t j = i;
    for (; j > 0 && keys[j - 1] > key; --j) keys[j] = keys[j - 1];
    keys[j] = key;
  }
  if (n > 32) std::sort(keys.begin(), keys.end());
  for (std::size_t i = 0; i < n; ++i) {
    g.targets[first + i] = static_cast<std::uint32_t>(keys[i] >> 32);
    g.bytes[first + i] = b[keys[i] & 0xffffffffU];
    g.msgs[first + i] = m[keys[i] & 0xffffffffU];
  }
}

constexpr std::size_t kLag = 32;

// The direct build's last three stages: counted, placed, sorted (seconds).
double stage[3];
std::chrono::steady_clock::time_point stage_start;
void stage_done(int k) {
  const auto now = std::chrono::steady_clock::now();
  stage[k] = std::chrono::duration<double>(now - stage_start).count();
  stage_start = now;
}

// Two halves' counts (next[k] and next[n + k], k < n) become each half's
// first place in k, and starts[k] k's first place (starts[n] the end).
void places_of_halves(std::vector<std::uint64_t>& next, std::size_t n, std::uint64_t* starts) {
  std::uint64_t place = 0;
  for (std::size_t k = 0; k < n; ++k) {
    starts[k] = place;
    const std::uint64_t first = next[k], second = next[n + k];
    next[k] = place;
    next[n + k] = place + first;
    place += first + second;
  }
  starts[n] = place;
}

void direct(const Edges& e, Csr& g) {
  const std::size_t n = e.src.size(), ranks = e.ranks;
  stage_start = std::chrono::steady_clock::now();
  std::vector<std::uint64_t> next(2 * ranks, 0);
  on_two_threads([&](int h) {  // rows counted, each half its own counts
    std::uint64_t* count = next.data() + h * ranks;
    const std::size_t lo = half_begin(n, h), hi = half_end(n, h);
    for (std::size_t i = lo; i < hi; ++i) {
      if (i + kLag < hi) __builtin_prefetch(count + e.src[i + kLag], 1);
      ++count[e.src[i]];
    }
  });
  places_of_halves(next, ranks, g.offsets.data());
  stage_done(0);
  on_two_threads([&](int h) {  // each edge at its row's next place, its row fetched 32 edges ahead
    std::uint64_t* at = next.data() + h * ranks;
    const std::size_t lo = half_begin(n, h), hi = half_end(n, h);
    for (std::size_t i = lo; i < hi; ++i) {
      if (i + kLag < hi) __builtin_prefetch(at + e.src[i + kLag], 1);
      if (i + kLag / 2 < hi) {
        const std::uint64_t ahead = at[e.src[i + kLag / 2]];
        __builtin_prefetch(g.targets.data() + ahead, 1);
        __builtin_prefetch(g.bytes.data() + ahead, 1);
        __builtin_prefetch(g.msgs.data() + ahead, 1);
      }
      const std::uint64_t k = at[e.src[i]]++;
      g.targets[k] = e.dst[i];
      g.bytes[k] = e.bytes[i];
      g.msgs[k] = 1;
    }
  });
  stage_done(1);
  on_two_threads([&](int h) {
    for (std::size_t r = half_begin(ranks, h); r < half_end(ranks, h); ++r) sort_row(g, g.offsets[r], g.offsets[r + 1]);
  });
  stage_done(2);
}

void buckets(const Edges& e, Csr& g) {
  const std::size_t n = e.src.size(), ranks = e.ranks;
  unsigned shift = 0;
  while (shift < 16 && (ranks >> shift) > 2048) ++shift;
  const std::size_t count = (ranks + (std::size_t{1} << shift) - 1) >> shift, span = std::size_t{1} << shift;
  std::vector<std::uint64_t> next(2 * count, 0), starts(count + 1);
  std::vector<std::uint16_t> row_in(n);
  on_two_threads([&](int h) {
    for (std::size_t i = half_begin(n, h); i < half_end(n, h); ++i) ++next[h * count + (e.src[i] >> shift)];
  });
  places_of_halves(next, count, starts.data());
  on_two_threads([&](int h) {
    std::uint64_t* at = next.data() + h * count;
    for (std::size_t i = half_begin(n, h); i < half_end(n, h); ++i) {
      const std::uint64_t k = at[e.src[i] >> shift]++;
      g.targets[k] = e.dst[i];
      g.bytes[k] = e.bytes[i];
      g.msgs[k] = 1;
      row_in[k] = static_cast<std::uint16_t>(e.src[i] & (span - 1));
    }
  });
  on_two_threads([&](int h) {
    std::vector<std::uint64_t> head(span), end(span);
    for (std::size_t b = half_begin(count, h); b < half_end(count, h); ++b) {
      const std::size_t row0 = b * span, rows = std::min(span, ranks - row0);
      std::fill(end.begin(), end.begin() + static_cast<std::ptrdiff_t>(rows), 0);
      for (std::uint64_t k = starts[b]; k < starts[b + 1]; ++k) ++end[row_in[k]];
      std::uint64_t p = starts[b];
      for (std::size_t r = 0; r < rows; ++r) {
        g.offsets[row0 + r] = head[r] = p;
        p += end[r];
        end[r] = p;
      }
      for (std::size_t r = 0; r < rows; ++r)
        while (head[r] < end[r]) {
          const std::uint64_t k = head[r];
          const std::uint16_t to_row = row_in[k];
          if (to_row == r) {
            ++head[r];
            continue;
          }
          const std::uint64_t to = head[to_row]++;
          std::swap(g.targets[k], g.targets[to]);
          std::swap(g.bytes[k], g.bytes[to]);
          std::swap(g.msgs[k], g.msgs[to]);
          std::swap(row_in[k], row_in[to]);
        }
      for (std::size_t r = 0; r < rows; ++r) sort_row(g, g.offsets[row0 + r], end[r]);
    }
  });
  g.offsets[ranks] = n;
}

template <class Build>
double best_of_five(const Edges& e, Build&& build, Csr& out, double* best_stages = nullptr) {
  double best = 1e30;
  for (int k = 0; k < 5; ++k) {
    Csr g = room(e);
    const auto t0 = std::chrono::steady_clock::now();
    build(e, g);
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (t < best && best_stages) std::copy(stage, stage + 3, best_stages);
    best = std::min(best, t);
    if (k == 0) out = std::move(g);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) fail("usage: read_order_bound SORTED.mtx SHUFFLED.mtx (the same graph, its lines in two orders)");
  const Edges sorted = load_mtx(argv[1]), shuffled = load_mtx(argv[2]);
  if (sorted.ranks != shuffled.ranks || sorted.src.size() != shuffled.src.size())
    fail("the two files are not the same graph");
  if (!std::is_sorted(sorted.src.begin(), sorted.src.end())) fail(std::string(argv[1]) + ": senders not in order");
  Csr a, b, c;
  const double t_order = best_of_five(sorted, in_order, a);
  double direct_stages[3] = {};
  const double t_direct = best_of_five(shuffled, direct, b, direct_stages);
  const double t_buckets = best_of_five(shuffled, buckets, c);
  if (!(a == b) || !(a == c)) fail("the three graphs differ");
  std::printf("edges %zu, ranks %u; best of 5, two threads, seconds\n", sorted.src.size(), sorted.ranks);
  std::printf(
      "in order (sorted file) %.3f\ndirect (libmap)        %.3f  (+%.3f)\nbuckets                %.3f  (+%.3f)\n",
      t_order, t_direct, t_direct - t_order, t_buckets, t_buckets - t_order);
  std::printf("direct's stages: counted %.3f, placed %.3f, sorted %.3f\n", direct_stages[0], direct_stages[1],
              direct_stages[2]);
  return 0;
}
