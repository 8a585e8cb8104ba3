// The second objective of placement: the most loaded link under the
// machine's routing order. After the hop-bytes swaps, parts whose traffic
// crosses the most loaded links are swapped with parts near their partners
// when the maximum load falls (or fewer links carry it). Hop-bytes may rise
// by kPeakRiseBasisPoints of the placement's in total: once the hop-bytes
// swaps have converged, hardly any swap lowers the peak at no cost at all.
// Routes each candidate exactly, so it is kept to allocations of up to a
// few thousand nodes.
#include <algorithm>

#include "map/stages.hpp"
#include "rankmap/metrics.hpp"

namespace rankmap::detail {
namespace {

struct Flow {
  int from, to;
  std::uint64_t bytes;
};

class LinkRefiner {
 public:
  LinkRefiner(const Graph& graph, const std::vector<int>& part, const PartGraph& q,
              const std::vector<std::uint32_t>& sizes, const std::vector<int>& used, const NodeGeometry& geo,
              std::vector<int>& slot)
      : q_(q),
        sizes_(sizes),
        used_(used),
        geo_(geo),
        slot_(slot),
        flows_of_(q.parts),
        load_(geo.network().num_links(), 0) {
    // Directed traffic between parts.
    std::vector<std::uint64_t> acc(q.parts, 0);
    std::vector<int> touched;
    std::vector<std::vector<std::uint32_t>> members(q.parts);
    for (std::uint32_t r = 0; r < graph.ranks; ++r) members[part[r]].push_back(r);
    for (int p = 0; p < q.parts; ++p) {
      for (std::uint32_t r : members[p])
        for (std::uint64_t e = graph.offsets[r]; e < graph.offsets[r + 1]; ++e) {
          const int t = part[graph.targets[e]];
          if (t == p || graph.bytes[e] == 0) continue;
          if (acc[t] == 0) touched.push_back(t);
          acc[t] += graph.bytes[e];
        }
      std::sort(touched.begin(), touched.end());
      for (int t : touched) {
        flows_of_[p].push_back(flows_.size());
        flows_of_[t].push_back(flows_.size());
        flows_.push_back({p, t, acc[t]});
        acc[t] = 0;
      }
      touched.clear();
    }
    stamp_.assign(load_.size(), 0);  // trial 0: these routes record nothing
    for (const Flow& f : flows_) route(f, +1);
    peak_ = scan_peak();
  }

  int run(int passes) {
    std::uint64_t total = 0;
    for (int p = 0; p < q_.parts; ++p) total += cost(p, slot_[p]);
    budget_ = peak_rise_budget(total / 2);
    int pass = 0;
    for (; pass < passes; ++pass)
      if (!improve_once()) break;
    return pass;
  }

 private:
  // A link's load is recorded the first time a trial changes it. Undoing
  // a trial moves the same flows back over the same links: nothing new.
  void route(const Flow& f, int sign) {
    const std::size_t a = geo_.coord_index(used_[slot_[f.from]]), b = geo_.coord_index(used_[slot_[f.to]]);
    for_each_link(geo_.network(), a, b, [&](std::size_t link) {
      if (stamp_[link] != trial_) {
        stamp_[link] = trial_;
        touched_.push_back({link, load_[link]});
      }
      if (sign > 0)
        load_[link] += f.bytes;
      else
        load_[link] -= f.bytes;
    });
  }
  // (maximum load, number of links carrying it): smaller is better.
  using Peak = std::pair<std::uint64_t, std::size_t>;
  Peak scan_peak() const {
    if (load_.empty()) return {0, 0};
    const std::uint64_t top = *std::max_element(load_.begin(), load_.end());
    return {top, static_cast<std::size_t>(std::count(load_.begin(), load_.end(), top))};
  }
  // The peak after a trial, from peak_ (the peak before it) and the links
  // the trial changed: every other link kept its load. Only a trial that
  // takes every link off the old maximum needs a scan. (Scanning every
  // link for each swap tried was half of `map`'s time on README's
  // Frontier-like stencil, 119,000 links.)
  Peak peak_after_trial() const {
    const auto [top, count] = peak_;
    std::size_t at_top = count;
    for (const Touched& t : touched_) {
      const std::uint64_t now = load_[t.link];
      if (now > top) return {now, 1};  // above the old maximum: not lower, whatever else
      at_top -= t.before == top;
      at_top += now == top;
    }
    return at_top > 0 ? Peak{top, at_top} : scan_peak();
  }
  void move_flows(int a, int b, int sign) {
    for (std::size_t i : flows_of_[a]) route(flows_[i], sign);
    for (std::size_t i : flows_of_[b])
      if (flows_[i].from != a && flows_[i].to != a) route(flows_[i], sign);
  }
  void swap_parts(int a, int b) { std::swap(slot_[a], slot_[b]); }
  std::uint64_t cost(int p, int j) const {
    std::uint64_t c = 0;
    for (std::uint64_t e = q_.xadj[p]; e < q_.xadj[p + 1]; ++e) {
      const int other = q_.adjncy[e];
      c += q_.weight[e] * static_cast<std::uint64_t>(geo_.hops(used_[j], used_[slot_[other]]));
    }
    return c;
  }

  bool improve_once() {
    const Peak before = peak_;
    if (before.first == 0) return false;
    // Parts with traffic over a link at the peak.
    std::vector<char> hot(q_.parts, 0);
    for (const Flow& f : flows_) {
      bool crosses = false;
      for_each_link(geo_.network(), geo_.coord_index(used_[slot_[f.from]]), geo_.coord_index(used_[slot_[f.to]]),
                    [&](std::size_t link) { crosses = crosses || load_[link] == before.first; });
      if (crosses) hot[f.from] = hot[f.to] = 1;
    }
    bool improved = false;
    for (int a = 0; a < q_.parts; ++a) {
      if (!hot[a]) continue;
      std::vector<int> tried;
      for (std::uint64_t e = q_.xadj[a]; e < q_.xadj[a + 1]; ++e)
        for (int b = 0; b < q_.parts; ++b) {
          // Candidates: parts one hop from a's partner, of a's size.
          if (b == a || sizes_[b] != sizes_[a] || std::find(tried.begin(), tried.end(), b) != tried.end()) continue;
          if (geo_.hops(used_[slot_[b]], used_[slot_[q_.adjncy[e]]]) > 1) continue;
          tried.push_back(b);
          if (try_swap(a, b)) {
            improved = true;
            break;
          }
        }
    }
    return improved;
  }

  bool try_swap(int a, int b) {
    const std::uint64_t hop_before = cost(a, slot_[a]) + cost(b, slot_[b]);
    if (++trial_ == 0) {  // wrapped round: no stamp may match a new trial
      std::fill(stamp_.begin(), stamp_.end(), 0);
      trial_ = 1;
    }
    touched_.clear();
    move_flows(a, b, -1);
    swap_parts(a, b);
    move_flows(a, b, +1);
    const std::uint64_t hop_after = cost(a, slot_[a]) + cost(b, slot_[b]);
    // cost() counts the pair a-b from both ends, others once: the rise in
    // hop-bytes is at most this difference.
    const long long rise = static_cast<long long>(hop_after) - static_cast<long long>(hop_before);
    if (rise <= budget_) {
      const Peak after = peak_after_trial();
      if (after < peak_) {
        budget_ -= std::max(0LL, rise);
        peak_ = after;
        return true;
      }
    }
    move_flows(a, b, -1);
    swap_parts(a, b);
    move_flows(a, b, +1);
    return false;
  }

  const PartGraph& q_;
  const std::vector<std::uint32_t>& sizes_;
  const std::vector<int>& used_;
  const NodeGeometry& geo_;
  std::vector<int>& slot_;
  std::vector<Flow> flows_;
  std::vector<std::vector<std::size_t>> flows_of_;
  std::vector<std::uint64_t> load_;
  Peak peak_{};  // of load_, kept as swaps are taken
  // A trial's links, each with its load before the trial, once each
  // (stamp_[link] == trial_ once recorded).
  struct Touched {
    std::size_t link;
    std::uint64_t before;
  };
  std::vector<Touched> touched_;
  std::vector<std::uint32_t> stamp_;
  std::uint32_t trial_ = 0;
  long long budget_ = 0;  // hop-bytes the peak may still cost
};

}  // namespace

int refine_link_load(const Graph& graph, const std::vector<int>& part, const PartGraph& q,
                     const std::vector<std::uint32_t>& sizes, const std::vector<int>& used,
                     const NodeGeometry& geometry, std::vector<int>& slot_of_part, int passes) {
  return LinkRefiner(graph, part, q, sizes, used, geometry, slot_of_part).run(passes);
}

namespace {

// Routes every candidate swap exactly: allocations of a few thousand nodes.
class LinkLoadSwaps : public PlacementRefiner {
 public:
  explicit LinkLoadSwaps(int passes) : passes_(passes) {}
  std::string name() const override { return "link-load swaps"; }
  bool applies(const NodeSet& nodes) const override { return !nodes.large(); }
  void refine(const Problem& problem, const NodeSet& nodes, const std::vector<int>& part, const PartGraph& q,
              std::vector<int>& slot_of_part) const override {
    refine_link_load(problem.graph, part, q, nodes.sizes, nodes.used, problem.geometry, slot_of_part, passes_);
  }

 private:
  int passes_;
};

}  // namespace

std::unique_ptr<PlacementRefiner> make_link_load_swaps(int passes) { return std::make_unique<LinkLoadSwaps>(passes); }

}  // namespace rankmap::detail
