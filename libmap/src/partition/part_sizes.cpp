// Moves ranks out of over-full parts into under-full ones (part_sizes.hpp).
#include "partition/part_sizes.hpp"

#include <algorithm>

#include "core/sparse_accumulator.hpp"

namespace rankmap::detail {
namespace {

struct Move {
  long long gain;  // traffic to the destination minus traffic to its own part
  std::uint32_t v;
  int to;  // -1: no under-full neighbour part
};

class Balancer {
 public:
  Balancer(const UndirectedGraph& g, std::vector<int>& part, const std::vector<std::uint32_t>& sizes)
      : g_(g), part_(part), sizes_(sizes), count_(sizes.size(), 0), conn_(sizes.size()) {
    for (int p : part) ++count_[p];
  }

  void run() {
    std::vector<std::vector<std::uint32_t>> members(sizes_.size());
    for (std::uint32_t v = 0; v < g_.n; ++v)
      if (count_[part_[v]] > sizes_[part_[v]]) members[part_[v]].push_back(v);
    for (std::size_t p = 0; p < sizes_.size(); ++p) {
      if (count_[p] <= sizes_[p]) continue;
      std::vector<Move> moves;
      for (std::uint32_t v : members[p]) moves.push_back(best_move(v));
      std::stable_sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) { return a.gain > b.gain; });
      for (const Move& m : moves) {
        if (count_[p] <= sizes_[p]) break;
        int to = m.to;
        if (to < 0 || count_[to] >= sizes_[to]) to = best_move(m.v).to;  // its first choice filled up
        for (std::size_t q = 0; to < 0 && q < sizes_.size(); ++q)
          if (count_[q] < sizes_[q]) to = static_cast<int>(q);
        --count_[p];
        ++count_[to];
        part_[m.v] = to;
      }
    }
  }

 private:
  Move best_move(std::uint32_t v) {
    const int p = part_[v];
    for (std::uint64_t e = g_.xadj[v]; e < g_.xadj[v + 1]; ++e)
      conn_.add(static_cast<std::uint32_t>(part_[g_.adjncy[e]]), g_.weight[e]);
    int to = -1;
    for (std::uint32_t key : conn_.keys()) {
      const int q = static_cast<int>(key);
      if (q != p && count_[q] < sizes_[q] && (to < 0 || conn_[q] > conn_[to] || (conn_[q] == conn_[to] && q < to)))
        to = q;
    }
    const long long gain = (to >= 0 ? static_cast<long long>(conn_[to]) : 0) - static_cast<long long>(conn_[p]);
    conn_.clear();
    return {gain, v, to};
  }

  const UndirectedGraph& g_;
  std::vector<int>& part_;
  const std::vector<std::uint32_t>& sizes_;
  std::vector<std::uint32_t> count_;
  SparseAccumulator<std::uint64_t> conn_;  // v's traffic to each part
};

}  // namespace

void enforce_part_sizes(const UndirectedGraph& g, std::vector<int>& part, const std::vector<std::uint32_t>& sizes) {
  Balancer(g, part, sizes).run();
}

}  // namespace rankmap::detail
