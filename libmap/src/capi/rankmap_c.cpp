// The C API (rankmap/rankmap.h): handles around the C++ objects, and a
// guard that turns every exception into a status and a message.
#include "rankmap/rankmap.h"

#include <algorithm>
#include <cstdio>
#include <new>
#include <sstream>
#include <string>

#include "rankmap/allocation.hpp"
#include "rankmap/baseline.hpp"
#include "rankmap/context.hpp"
#include "rankmap/error.hpp"
#include "rankmap/gain.hpp"
#include "rankmap/graph.hpp"
#include "rankmap/launch.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/map.hpp"
#include "rankmap/metrics.hpp"
#include "rankmap/reorder.hpp"

struct rankmap_machine {
  explicit rankmap_machine(rankmap::Machine m)
      : shared(std::make_shared<const rankmap::Machine>(std::move(m))), machine(*shared) {}
  // Shared with every allocation made from it: an allocation keeps its
  // machine alive, whichever handle is freed first.
  std::shared_ptr<const rankmap::Machine> shared;
  const rankmap::Machine& machine;
};
struct rankmap_graph {
  rankmap::Graph graph;
};
struct rankmap_allocation {
  std::shared_ptr<const rankmap::Machine> machine;  // the hosts' names, kept alive by the allocation
  rankmap::Allocation allocation;
};
struct rankmap_context {
  rankmap::Context context;
};

namespace {

// A failure with its status, thrown inside this file only.
struct Failure {
  rankmap_status status;
  std::string message;
};

[[noreturn]] void fail(rankmap_status status, std::string message) { throw Failure{status, std::move(message)}; }

template <class T>
void require(const T* p, const char* name) {
  if (!p) fail(RANKMAP_ERR_ARGUMENT, std::string(name) + " is NULL");
}

void report(rankmap_error* err, rankmap_status status, const std::string& message) {
  if (!err) return;
  err->status = status;
  // One line: a message never spans lines, whatever its source said.
  std::string line = message;
  std::replace(line.begin(), line.end(), '\n', ' ');
  std::snprintf(err->message, sizeof err->message, "%s", line.c_str());
}

// The status of each kind of library error (as mt-kahypar's to_error).
rankmap_status status_of(rankmap::ErrorKind kind) {
  switch (kind) {
    case rankmap::ErrorKind::input: return RANKMAP_ERR_INPUT;
    case rankmap::ErrorKind::argument: return RANKMAP_ERR_ARGUMENT;
    case rankmap::ErrorKind::fit: return RANKMAP_ERR_FIT;
    case rankmap::ErrorKind::io: return RANKMAP_ERR_IO;
    case rankmap::ErrorKind::internal: return RANKMAP_ERR_INTERNAL;
  }
  return RANKMAP_ERR_INTERNAL;
}

// The library's parameters by the names of this API's arguments.
std::string argument_name(const std::string& parameter) { return parameter == "nodes" ? "hostlist" : parameter; }

// Runs body; every exception becomes a status and a message.
template <class Body>
rankmap_status guarded(rankmap_error* err, Body&& body) {
  try {
    body();
    return RANKMAP_OK;
  } catch (const Failure& f) {
    report(err, f.status, f.message);
    return f.status;
  } catch (const rankmap::Error& e) {
    const rankmap_status status = status_of(e.kind());
    report(err, status, e.what_with_parameter_called(argument_name(e.parameter())));
    return status;
  } catch (const std::bad_alloc&) {
    report(err, RANKMAP_ERR_MEMORY, "out of memory");
    return RANKMAP_ERR_MEMORY;
  } catch (const std::exception& e) {
    report(err, RANKMAP_ERR_INTERNAL, e.what());
    return RANKMAP_ERR_INTERNAL;
  } catch (...) {
    report(err, RANKMAP_ERR_INTERNAL, "unknown error");
    return RANKMAP_ERR_INTERNAL;
  }
}

// Makes a handle into *out, NULL on failure.
template <class Handle, class Make>
rankmap_status create(Handle** out, rankmap_error* err, Make&& make) {
  if (out) *out = nullptr;
  return guarded(err, [&] {
    require(out, "out");
    *out = new Handle(make());
  });
}

// The C arrays of a mapping as a Mapping; checks every entry.
rankmap::Mapping to_mapping(const rankmap_allocation* a, uint32_t ranks, const int32_t* host, const int32_t* cpu) {
  require(a, "allocation");
  require(host, "host");
  require(cpu, "cpu");
  rankmap::Mapping m;
  m.ranks.resize(ranks);
  for (uint32_t r = 0; r < ranks; ++r) {
    if (host[r] < 0 || static_cast<std::size_t>(host[r]) >= a->allocation.size())
      fail(RANKMAP_ERR_ARGUMENT, "host[" + std::to_string(r) + "] = " + std::to_string(host[r]) +
                                     " is not a node of the allocation (0 to " +
                                     std::to_string(a->allocation.size() - 1) + ")");
    const auto& slots = a->allocation.slots(static_cast<std::size_t>(host[r]));
    const rankmap::Machine& machine = *a->machine;
    const rankmap::NodeType& type =
        machine.node_types[machine.nodes[a->allocation.nodes[static_cast<std::size_t>(host[r])]].type];
    int slot = -1;
    for (std::size_t s = 0; s < slots.size() && slot < 0; ++s)
      if (type.pus[slots[s].pus.front()].os_index == static_cast<unsigned>(cpu[r])) slot = static_cast<int>(s);
    if (slot < 0)
      fail(RANKMAP_ERR_ARGUMENT, "cpu[" + std::to_string(r) + "] = " + std::to_string(cpu[r]) +
                                     " is not the first CPU of a slot of " +
                                     machine.nodes[a->allocation.nodes[static_cast<std::size_t>(host[r])]].host);
    m.ranks[r] = {host[r], slot};
  }
  rankmap::verify_mapping(m, a->allocation, ranks, "mapping");
  return m;
}

void from_mapping(const rankmap_allocation* a, const rankmap::Mapping& m, int32_t* host, int32_t* cpu) {
  const rankmap::Machine& machine = *a->machine;
  for (std::size_t r = 0; r < m.size(); ++r) {
    const rankmap::Placement p = m.ranks[r];
    const auto node = a->allocation.nodes[static_cast<std::size_t>(p.node)];
    const rankmap::NodeType& type = machine.node_types[machine.nodes[node].type];
    host[r] = p.node;
    cpu[r] = static_cast<int32_t>(type.pus[a->allocation.slots(p.node)[p.slot].pus.front()].os_index);
  }
}

void check_ranks(const rankmap_graph* g, uint32_t ranks) {
  require(g, "graph");
  if (ranks != g->graph.ranks)
    fail(RANKMAP_ERR_ARGUMENT,
         "ranks is " + std::to_string(ranks) + " but the graph has " + std::to_string(g->graph.ranks));
}

void check_same_machine(const rankmap_machine* m, const rankmap_allocation* a) {
  require(m, "machine");
  require(a, "allocation");
  if (a->machine.get() != &m->machine) fail(RANKMAP_ERR_ARGUMENT, "the allocation was made for another machine");
}

std::string toml_string(const char* s) {
  std::string out = "\"";
  for (const char* c = s; *c; ++c) {
    if (*c == '"' || *c == '\\') out += '\\';
    if (*c == '\n') fail(RANKMAP_ERR_INPUT, "a string of the machine spec holds a newline");
    out += *c;
  }
  return out + "\"";
}

// A spec as the machine file it stands for: the file reader checks it all.
std::string spec_to_toml(const rankmap_machine_spec& spec) {
  if (spec.ndims < 1 || spec.ndims > rankmap::kMaxDims)
    fail(RANKMAP_ERR_ARGUMENT,
         "ndims is " + std::to_string(spec.ndims) + ", expected 1 to " + std::to_string(rankmap::kMaxDims));
  require(spec.dims, "spec->dims");
  if (spec.ngroups < 1)
    fail(RANKMAP_ERR_ARGUMENT, "ngroups is " + std::to_string(spec.ngroups) + ", expected 1 or more");
  require(spec.groups, "spec->groups");
  std::ostringstream t;
  t.precision(17);
  t << "name = \"C API\"\n[network]\ndims = [";
  for (int i = 0; i < spec.ndims; ++i) t << (i ? ", " : "") << spec.dims[i];
  t << "]\n";
  if (spec.wrap) {
    t << "wrap = [";
    for (int i = 0; i < spec.ndims; ++i) {
      if (spec.wrap[i] != 0 && spec.wrap[i] != 1)
        fail(RANKMAP_ERR_ARGUMENT,
             "spec->wrap[" + std::to_string(i) + "] is " + std::to_string(spec.wrap[i]) + ", expected 0 or 1");
      t << (i ? ", " : "") << (spec.wrap[i] ? "true" : "false");
    }
    t << "]\n";
  }
  t << "t_hop_ns = " << spec.t_hop_ns << "\nt_inj_ns = " << spec.t_inj_ns << "\nt_ej_ns = " << spec.t_ej_ns << "\n";
  for (int g = 0; g < spec.ngroups; ++g) {
    require(spec.groups[g].hosts, "spec->groups[].hosts");
    require(spec.groups[g].hwloc, "spec->groups[].hwloc");
    t << "[[nodes]]\nhosts = " << toml_string(spec.groups[g].hosts) << "\nhwloc = " << toml_string(spec.groups[g].hwloc)
      << "\n";
  }
  return t.str();
}

}  // namespace

extern "C" {

const char* rankmap_version(void) { return RANKMAP_VERSION_STRING; }
int rankmap_api_version(void) { return RANKMAP_API_VERSION; }

rankmap_status rankmap_machine_load(const char* toml_path, rankmap_machine** out, rankmap_error* err) {
  return create(out, err, [&] {
    require(toml_path, "toml_path");
    return rankmap_machine(rankmap::load_machine(toml_path));
  });
}

rankmap_status rankmap_machine_parse(const char* toml_text, rankmap_machine** out, rankmap_error* err) {
  return create(out, err, [&] {
    require(toml_text, "toml_text");
    return rankmap_machine(rankmap::parse_machine(toml_text, "machine text"));
  });
}

rankmap_status rankmap_machine_create(const rankmap_machine_spec* spec, rankmap_machine** out, rankmap_error* err) {
  return create(out, err, [&] {
    require(spec, "spec");
    return rankmap_machine(rankmap::parse_machine(spec_to_toml(*spec), "machine spec"));
  });
}

void rankmap_machine_free(rankmap_machine* machine) { delete machine; }

rankmap_status rankmap_graph_load(const char* path, rankmap_graph** out, rankmap_error* err) {
  return create(out, err, [&] {
    require(path, "path");
    return rankmap_graph{rankmap::read_graph(path)};
  });
}

rankmap_status rankmap_graph_create_csr(uint32_t ranks, const uint64_t* offsets, const uint32_t* targets,
                                        const uint64_t* bytes, const uint64_t* msgs, rankmap_graph** out,
                                        rankmap_error* err) {
  return create(out, err, [&] {
    require(offsets, "offsets");
    if (ranks == 0 || ranks > rankmap::kMaxRanks)
      fail(RANKMAP_ERR_ARGUMENT,
           "ranks is " + std::to_string(ranks) + ", expected 1 to " + std::to_string(rankmap::kMaxRanks));
    if (offsets[0] != 0) fail(RANKMAP_ERR_INPUT, "offsets[0] is " + std::to_string(offsets[0]) + ", expected 0");
    // All of offsets before any of targets: a bad offset must not send the
    // reads below past the arrays.
    for (uint32_t r = 0; r < ranks; ++r)
      if (offsets[r + 1] < offsets[r])
        fail(RANKMAP_ERR_INPUT, "offsets[" + std::to_string(r + 1) + "] is below offsets[" + std::to_string(r) + "]");
    const uint64_t edges = offsets[ranks];
    // A count the caller claims, checked before anything is sized by it.
    if (edges > rankmap::kMaxEdges)
      fail(RANKMAP_ERR_INPUT, "offsets[" + std::to_string(ranks) + "] is " + std::to_string(edges) +
                                  ", more edges than a graph holds (" + std::to_string(rankmap::kMaxEdges) + ")");
    if (edges > 0) {
      require(targets, "targets");
      require(bytes, "bytes");
    }
    rankmap::GraphBuilder builder(ranks);
    builder.reserve(edges);
    for (uint32_t r = 0; r < ranks; ++r) {
      for (uint64_t e = offsets[r]; e < offsets[r + 1]; ++e) {
        if (targets[e] >= ranks)
          fail(RANKMAP_ERR_INPUT, "targets[" + std::to_string(e) + "] is " + std::to_string(targets[e]) +
                                      ", expected a rank below " + std::to_string(ranks));
        builder.add(r, targets[e], bytes[e], msgs ? msgs[e] : 1);
      }
    }
    return rankmap_graph{builder.build()};
  });
}

uint32_t rankmap_graph_ranks(const rankmap_graph* graph) { return graph ? graph->graph.ranks : 0; }
void rankmap_graph_free(rankmap_graph* graph) { delete graph; }

rankmap_status rankmap_allocation_create(const rankmap_machine* machine, const char* hostlist, int ranks_per_node,
                                         int hwthreads, rankmap_allocation** out, rankmap_error* err) {
  return rankmap_allocation_create_hybrid(machine, hostlist, ranks_per_node, 0, hwthreads, out, err);
}

rankmap_status rankmap_allocation_create_hybrid(const rankmap_machine* machine, const char* hostlist,
                                                int ranks_per_node, int cpus_per_rank, int hwthreads,
                                                rankmap_allocation** out, rankmap_error* err) {
  return create(out, err, [&] {
    require(machine, "machine");
    rankmap::AllocationOptions options;
    options.ppn = ranks_per_node;
    options.cpus_per_rank = cpus_per_rank;
    if (hwthreads != 0 && hwthreads != 1)
      fail(RANKMAP_ERR_ARGUMENT, "hwthreads is " + std::to_string(hwthreads) + ", expected 0 or 1");
    options.hwthreads = hwthreads == 1;
    if (hostlist) options.hosts = rankmap::read_nodes_argument(hostlist);
    return rankmap_allocation{machine->shared, rankmap::make_allocation(machine->machine, options)};
  });
}

size_t rankmap_allocation_nodes(const rankmap_allocation* allocation) {
  return allocation ? allocation->allocation.size() : 0;
}

size_t rankmap_allocation_slots(const rankmap_allocation* allocation) {
  return allocation ? allocation->allocation.total_slots() : 0;
}

const char* rankmap_allocation_host(const rankmap_allocation* allocation, size_t index) {
  if (!allocation || index >= allocation->allocation.size()) return nullptr;
  return allocation->machine->nodes[allocation->allocation.nodes[index]].host.c_str();
}

void rankmap_allocation_free(rankmap_allocation* allocation) { delete allocation; }

rankmap_status rankmap_context_create(const char* preset, uint64_t seed, rankmap_context** out, rankmap_error* err) {
  return create(out, err, [&] {
    rankmap_context c{rankmap::create_context(preset ? preset : "default")};
    c.context.seed = seed;
    return c;
  });
}

rankmap_status rankmap_context_load(const char* toml_path, rankmap_context** out, rankmap_error* err) {
  return create(out, err, [&] {
    require(toml_path, "toml_path");
    return rankmap_context{rankmap::load_context(toml_path)};
  });
}

rankmap_status rankmap_context_set_oversubscribe(rankmap_context* context, int allow, rankmap_error* err) {
  return guarded(err, [&] {
    require(context, "context");
    context->context.oversubscribe = allow != 0;
  });
}

rankmap_status rankmap_context_set_threads(rankmap_context* context, int threads, rankmap_error* err) {
  return guarded(err, [&] {
    require(context, "context");
    if (threads < 0 || threads > rankmap::kMaxThreads)
      throw rankmap::Error(
          rankmap::ErrorKind::argument, rankmap::Parameter{"threads"},
          "expected 0 (every CPU) to " + std::to_string(rankmap::kMaxThreads) + ", got " + std::to_string(threads));
    context->context.threads = threads;
  });
}

void rankmap_context_free(rankmap_context* context) { delete context; }

rankmap_status rankmap_map(const rankmap_graph* graph, const rankmap_machine* machine,
                           const rankmap_allocation* allocation, const rankmap_context* context, uint32_t ranks,
                           int32_t* host, int32_t* cpu, rankmap_error* err) {
  return guarded(err, [&] {
    check_ranks(graph, ranks);
    check_same_machine(machine, allocation);
    require(context, "context");
    require(host, "host");
    require(cpu, "cpu");
    const rankmap::Mapping m = rankmap::map(graph->graph, machine->machine, allocation->allocation, context->context);
    from_mapping(allocation, m, host, cpu);
  });
}

rankmap_status rankmap_map_within_nodes(const rankmap_graph* graph, const rankmap_machine* machine,
                                        const rankmap_allocation* allocation, uint32_t ranks, const int32_t* host,
                                        int32_t* cpu, rankmap_error* err) {
  return guarded(err, [&] {
    check_ranks(graph, ranks);
    check_same_machine(machine, allocation);
    require(host, "host");
    require(cpu, "cpu");
    const std::vector<int> node_of_rank(host, host + ranks);
    std::vector<int32_t> same_hosts(ranks);  // from_mapping writes them back: host[] is the caller's, const
    from_mapping(allocation,
                 rankmap::map_within_nodes(graph->graph, machine->machine, allocation->allocation, node_of_rank),
                 same_hosts.data(), cpu);
  });
}

rankmap_status rankmap_slot_cpus(const rankmap_allocation* allocation, int32_t host, int32_t cpu, int32_t* cpus,
                                 size_t capacity, size_t* count, rankmap_error* err) {
  return guarded(err, [&] {
    require(allocation, "allocation");
    require(count, "count");
    if (capacity > 0) require(cpus, "cpus");
    const std::int32_t one_host = host;
    const rankmap::Mapping m = to_mapping(allocation, 1, &one_host, &cpu);  // checks host and cpu
    const rankmap::Machine& machine = *allocation->machine;
    const auto node = allocation->allocation.nodes[static_cast<std::size_t>(host)];
    const rankmap::NodeType& type = machine.node_types[machine.nodes[node].type];
    std::vector<int32_t> os;
    for (int pu : allocation->allocation.slots(static_cast<std::size_t>(host))[m.ranks[0].slot].pus)
      os.push_back(static_cast<int32_t>(type.pus[pu].os_index));
    std::sort(os.begin(), os.end());
    *count = os.size();
    std::copy_n(os.begin(), std::min(capacity, os.size()), cpus);
  });
}

rankmap_status rankmap_graph_cartesian(int ndims, const int* dims, const int* periods, rankmap_graph** out,
                                       rankmap_error* err) {
  return guarded(err, [&] {
    require(out, "out");
    *out = nullptr;
    if (ndims < 1 || ndims > 64) fail(RANKMAP_ERR_ARGUMENT, "ndims is " + std::to_string(ndims) + ", expected 1 to 64");
    require(dims, "dims");
    std::vector<int> d(dims, dims + ndims);
    std::vector<char> p(static_cast<std::size_t>(ndims), 0);
    for (int i = 0; i < ndims && periods; ++i) {
      if (periods[i] != 0 && periods[i] != 1)
        fail(RANKMAP_ERR_ARGUMENT,
             "periods[" + std::to_string(i) + "] is " + std::to_string(periods[i]) + ", expected 0 or 1");
      p[static_cast<std::size_t>(i)] = static_cast<char>(periods[i]);
    }
    *out = new rankmap_graph{rankmap::cartesian_graph(d, p)};
  });
}

rankmap_status rankmap_reorder(const rankmap_graph* topology, const rankmap_machine* machine,
                               const rankmap_allocation* allocation, const rankmap_context* context, uint32_t processes,
                               const int32_t* node, const int32_t* cpu, uint32_t* process_of_rank,
                               rankmap_reordering* result, rankmap_error* err) {
  return guarded(err, [&] {
    check_ranks(topology, processes);
    check_same_machine(machine, allocation);
    require(context, "context");
    require(node, "node");
    require(cpu, "cpu");
    require(process_of_rank, "process_of_rank");
    require(result, "result");
    std::vector<rankmap::ProcessPlace> places(processes);
    for (uint32_t p = 0; p < processes; ++p) places[p] = {node[p], cpu[p]};
    const rankmap::Reordering r =
        rankmap::reorder_processes(topology->graph, machine->machine, allocation->allocation, places, context->context);
    std::copy(r.process_of_rank.begin(), r.process_of_rank.end(), process_of_rank);
    *result = rankmap_reordering{};
    result->identity = r.identity ? 1 : 0;
    result->hop_bytes = r.hop_bytes;
    result->identity_hop_bytes = r.identity_hop_bytes;
    std::snprintf(result->why, sizeof result->why, "%s", r.why.c_str());
  });
}

rankmap_status rankmap_map_block(const rankmap_graph* graph, const rankmap_allocation* allocation, uint32_t ranks,
                                 int32_t* host, int32_t* cpu, rankmap_error* err) {
  return guarded(err, [&] {
    check_ranks(graph, ranks);
    require(allocation, "allocation");
    require(host, "host");
    require(cpu, "cpu");
    from_mapping(allocation, rankmap::baseline_mapping(rankmap::Baseline::block, allocation->allocation, ranks), host,
                 cpu);
  });
}

rankmap_status rankmap_evaluate(const rankmap_graph* graph, const rankmap_machine* machine,
                                const rankmap_allocation* allocation, uint32_t ranks, const int32_t* host,
                                const int32_t* cpu, rankmap_scores* scores, rankmap_error* err) {
  return guarded(err, [&] {
    check_ranks(graph, ranks);
    check_same_machine(machine, allocation);
    require(scores, "scores");
    const rankmap::Mapping m = to_mapping(allocation, ranks, host, cpu);
    const rankmap::Metrics s = rankmap::evaluate(graph->graph, machine->machine, allocation->allocation, m);
    *scores = rankmap_scores{};
    scores->total_bytes = s.total_bytes, scores->total_msgs = s.total_msgs, scores->hop_bytes = s.hop_bytes;
    scores->avg_dilation = s.avg_dilation, scores->avg_hops_by_msgs = s.avg_hops_by_msgs;
    scores->max_dilation = s.max_dilation, scores->max_link_bytes = s.max_link_bytes;
    scores->inter_node_bytes = s.inter_node_bytes, scores->cross_socket_bytes = s.cross_socket_bytes;
    scores->mean_message_ns = rankmap::mean_message_times(graph->graph, machine->machine.network, s).by_messages_ns;
  });
}

rankmap_status rankmap_predict_gain(const rankmap_graph* graph, const rankmap_machine* machine,
                                    const rankmap_allocation* allocation, uint32_t ranks, const int32_t* host,
                                    const int32_t* cpu, double p_mpi, double* gain, rankmap_error* err) {
  return guarded(err, [&] {
    check_ranks(graph, ranks);
    check_same_machine(machine, allocation);
    require(gain, "gain");
    if (!(p_mpi >= 0 && p_mpi <= 1))
      fail(RANKMAP_ERR_ARGUMENT, "p_mpi is " + std::to_string(p_mpi) + ", expected 0 to 1");
    const rankmap::Mapping m = to_mapping(allocation, ranks, host, cpu);
    const rankmap::Graph& g = graph->graph;
    const rankmap::Network& net = machine->machine.network;
    const auto& a = allocation->allocation;
    const rankmap::Mapping block = rankmap::baseline_mapping(rankmap::Baseline::block, a, ranks);
    const double t_block =
        rankmap::mean_message_times(g, net, rankmap::evaluate(g, machine->machine, a, block)).by_messages_ns;
    const double t_ours =
        rankmap::mean_message_times(g, net, rankmap::evaluate(g, machine->machine, a, m)).by_messages_ns;
    *gain = rankmap::relative_gain(p_mpi, t_block, t_ours);
  });
}

rankmap_status rankmap_write_launch_file(const rankmap_machine* machine, const rankmap_allocation* allocation,
                                         uint32_t ranks, const int32_t* host, const int32_t* cpu, const char* format,
                                         const char* path, rankmap_error* err) {
  return guarded(err, [&] {
    check_same_machine(machine, allocation);
    require(format, "format");
    require(path, "path");
    const rankmap::LaunchFormat f = rankmap::parse_launch_format(format);
    if (ranks == 0) fail(RANKMAP_ERR_ARGUMENT, "ranks is 0: a launch file places at least one rank");
    const rankmap::Mapping m = to_mapping(allocation, ranks, host, cpu);
    rankmap::write_launch_files(path, f, machine->machine, allocation->allocation, m);
  });
}

}  // extern "C"
