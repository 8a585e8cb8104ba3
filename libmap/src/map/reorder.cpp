// Renumbering a communicator's processes (rankmap/reorder.hpp).
#include "rankmap/reorder.hpp"

#include <algorithm>
#include <numeric>

#include "rankmap/error.hpp"
#include "rankmap/map.hpp"

namespace rankmap {
namespace {

// hop-bytes of the topology when new rank r runs on node_of[r] (machine
// node indices): the whole cost between nodes, as ranks of a node are 0
// hops apart.
std::uint64_t node_hop_bytes(const Graph& g, const Machine& machine, const std::vector<int>& node_of) {
  std::uint64_t total = 0;
  for (std::uint32_t r = 0; r < g.ranks; ++r)
    for (std::uint64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e)
      total += g.bytes[e] * static_cast<std::uint64_t>(machine.network.hops(
                                machine.nodes[static_cast<std::size_t>(node_of[r])].coord,
                                machine.nodes[static_cast<std::size_t>(node_of[g.targets[e]])].coord));
  return total;
}

}  // namespace

Graph cartesian_graph(const std::vector<int>& dims, const std::vector<char>& periods) {
  if (dims.empty()) throw Error(ErrorKind::argument, Parameter{"dims"}, "a Cartesian topology needs a dimension");
  std::uint64_t n = 1;
  for (int d : dims) {
    if (d < 1)
      throw Error(ErrorKind::argument, Parameter{"dims"}, "every size must be 1 or more, got " + std::to_string(d));
    n *= static_cast<std::uint64_t>(d);
    if (n > (std::uint64_t{1} << 31)) throw Error(ErrorKind::argument, Parameter{"dims"}, "more than 2^31 ranks");
  }
  const std::size_t nd = dims.size();
  std::vector<std::uint64_t> stride(nd, 1);
  for (std::size_t d = nd - 1; d-- > 0;) stride[d] = stride[d + 1] * static_cast<std::uint64_t>(dims[d + 1]);
  Graph g;
  g.ranks = static_cast<std::uint32_t>(n);
  g.offsets.assign(n + 1, 0);
  std::vector<int> coord(nd);
  for (std::uint64_t r = 0; r < n; ++r) {
    std::uint64_t rest = r;
    for (std::size_t d = 0; d < nd; ++d) coord[d] = static_cast<int>(rest / stride[d]), rest %= stride[d];
    std::vector<std::uint32_t> near;
    for (std::size_t d = 0; d < nd; ++d)
      for (int step : {-1, 1}) {
        int c = coord[d] + step;
        if (c < 0 || c >= dims[d]) {
          if (d >= periods.size() || !periods[d]) continue;
          c = (c + dims[d]) % dims[d];
        }
        const std::uint64_t other =
            r + (static_cast<std::uint64_t>(c) - static_cast<std::uint64_t>(coord[d])) * stride[d];
        if (other != r) near.push_back(static_cast<std::uint32_t>(other));
      }
    // A periodic ring of 2 sees its neighbour twice, both ways round, and a
    // halo code sends it both faces (MPI_Cart_shift gives it as either
    // side): one edge of twice the weight.
    std::sort(near.begin(), near.end());
    for (std::size_t i = 0; i < near.size();) {
      std::size_t j = i;
      while (j < near.size() && near[j] == near[i]) ++j;
      g.targets.push_back(near[i]);
      g.bytes.push_back(j - i);
      g.msgs.push_back(j - i);
      i = j;
    }
    g.offsets[r + 1] = g.targets.size();
  }
  return g;
}

Reordering reorder_processes(const Graph& topology, const Machine& machine, const Allocation& allocation,
                             const std::vector<ProcessPlace>& places, const Context& context) {
  const std::size_t n = places.size();
  if (n != topology.ranks)
    throw Error(ErrorKind::argument, Parameter{"places"},
                std::to_string(n) + " processes for a topology of " + std::to_string(topology.ranks) + " ranks");
  // Processes per allocated node, and the identity's cost.
  std::vector<std::vector<std::uint32_t>> on_node(allocation.size());
  std::vector<int> identity_node(n);
  for (std::uint32_t p = 0; p < n; ++p) {
    const int k = places[p].node;
    if (k < 0 || static_cast<std::size_t>(k) >= allocation.size())
      throw Error(ErrorKind::argument, Parameter{"places"},
                  "process " + std::to_string(p) + " is on node " + std::to_string(k) + ", not one of the " +
                      std::to_string(allocation.size()) + " allocated");
    on_node[static_cast<std::size_t>(k)].push_back(p);
    identity_node[p] = allocation.nodes[static_cast<std::size_t>(k)];
  }
  Reordering result;
  result.process_of_rank.resize(n);
  std::iota(result.process_of_rank.begin(), result.process_of_rank.end(), 0u);
  result.identity_hop_bytes = result.hop_bytes = node_hop_bytes(topology, machine, identity_node);

  // The nodes in use, each with its number of processes.
  std::vector<std::string> hosts;
  std::vector<std::size_t> used;
  std::size_t per_node = 0;
  for (std::size_t k = 0; k < allocation.size(); ++k) {
    if (on_node[k].empty()) continue;
    per_node = std::max(per_node, on_node[k].size());
    used.push_back(k);
    hosts.push_back(machine.nodes[static_cast<std::size_t>(allocation.nodes[k])].host);
  }
  // Nodes with fewer processes than the fullest get isolated stand-in
  // ranks, so that the engine fills an allocation of the used nodes with
  // per_node ranks each (one a slot; beyond the cores, equal shares of
  // oversubscribed nodes); real ranks that land beyond a node's processes
  // then move to stand-ins' places elsewhere, each where it costs least.
  std::uint32_t stand_ins = 0;
  for (std::size_t k : used) stand_ins += static_cast<std::uint32_t>(per_node - on_node[k].size());
  Graph padded = topology;
  padded.ranks = topology.ranks + stand_ins;
  padded.offsets.resize(padded.ranks + 1, padded.offsets.back());
  AllocationOptions options;
  options.hosts = hosts;
  options.hwthreads = allocation.hwthreads;
  options.cpus_per_rank = allocation.cpus_per_rank;
  Context c = context;
  Allocation sub;
  try {
    options.ppn = static_cast<int>(per_node);
    sub = make_allocation(machine, options);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::fit) throw;
    options.ppn = 0, options.cpus_per_rank = 0;
    c.oversubscribe = true;
    sub = make_allocation(machine, options);
  }
  Mapping mapped = map(padded, machine, sub, c);
  if (stand_ins > 0) {
    std::vector<std::size_t> real(used.size(), 0);
    for (std::uint32_t r = 0; r < n; ++r) ++real[static_cast<std::size_t>(mapped.ranks[r].node)];
    // What rank r's edges cost with r on position `at` (hops to where its
    // neighbours are now).
    auto cost = [&](std::uint32_t r, int at) {
      std::uint64_t total = 0;
      const auto& here = machine.nodes[static_cast<std::size_t>(sub.nodes[static_cast<std::size_t>(at)])].coord;
      for (std::uint64_t e = topology.offsets[r]; e < topology.offsets[r + 1]; ++e) {
        const int there = mapped.ranks[topology.targets[e]].node;
        total += topology.bytes[e] *
                 static_cast<std::uint64_t>(machine.network.hops(
                     here, machine.nodes[static_cast<std::size_t>(sub.nodes[static_cast<std::size_t>(there)])].coord));
      }
      return total;
    };
    for (std::size_t a = 0; a < used.size(); ++a)
      while (real[a] > on_node[used[a]].size()) {
        std::size_t b = 0;
        while (real[b] >= on_node[used[b]].size()) ++b;  // a node short of its processes: one exists
        std::uint32_t best = n;
        std::int64_t best_delta = 0;
        for (std::uint32_t r = 0; r < n; ++r) {
          if (mapped.ranks[r].node != static_cast<int>(a)) continue;
          const std::int64_t delta = static_cast<std::int64_t>(cost(r, static_cast<int>(b))) -
                                     static_cast<std::int64_t>(cost(r, static_cast<int>(a)));
          if (best == n || delta < best_delta) best = r, best_delta = delta;
        }
        std::uint32_t stand_in = n;
        while (stand_in < padded.ranks && mapped.ranks[stand_in].node != static_cast<int>(b)) ++stand_in;
        if (stand_in == padded.ranks) {  // nodes of unequal shares (oversubscribed, unlike node types)
          result.why = "the engine's shares of the nodes do not hold their processes";
          return result;
        }
        std::swap(mapped.ranks[best], mapped.ranks[stand_in]);
        --real[a], ++real[b];
      }
  }
  mapped.ranks.resize(n);
  // Node by node: the engine's ranks in slot order onto the processes in
  // CPU order (unbound processes keep their old order).
  std::vector<std::vector<std::pair<int, std::uint32_t>>> ranks_on(used.size());
  std::vector<int> engine_node(n);
  for (std::uint32_t r = 0; r < n; ++r) {
    const auto position = static_cast<std::size_t>(mapped.ranks[r].node);
    ranks_on[position].push_back({mapped.ranks[r].slot, r});
    engine_node[r] = sub.nodes[position];
  }
  const std::uint64_t engine_cost = node_hop_bytes(topology, machine, engine_node);
  if (engine_cost >= result.identity_hop_bytes) {
    result.why = "the engine found no fewer hop-bytes than the old order (" + std::to_string(engine_cost) +
                 " against " + std::to_string(result.identity_hop_bytes) + ")";
    return result;
  }
  for (std::size_t u = 0; u < used.size(); ++u) {
    std::vector<std::uint32_t> processes = on_node[used[u]];
    std::stable_sort(processes.begin(), processes.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return places[a].cpu < places[b].cpu; });
    std::sort(ranks_on[u].begin(), ranks_on[u].end());
    for (std::size_t i = 0; i < processes.size(); ++i) result.process_of_rank[ranks_on[u][i].second] = processes[i];
  }
  result.identity = false;
  result.hop_bytes = engine_cost;
  return result;
}

}  // namespace rankmap
