/* rankmap.h: the C API of rankmap (C99), for schedulers and launchers
 * (Slurm plugins, PBS hooks, launch wrappers) that link the library without
 * C++ and without the CLI.
 *
 * Conventions, for every function below:
 *  - A function that can fail returns a rankmap_status: RANKMAP_OK (0) on
 *    success, else the kind of failure. When `err` is not NULL it is filled
 *    on failure with the status and a one-line message (a file's name and
 *    line where a file is at fault, an argument's name where its value
 *    is), and left untouched on success.
 *  - Objects are opaque handles made by rankmap_*_create / _load / _parse
 *    and released by the matching rankmap_*_free, which accepts NULL. On
 *    failure no handle is made and *out is set to NULL.
 *  - Input arrays and strings are copied; output arrays belong to the
 *    caller and must hold the number of elements stated.
 *  - No C++ exception crosses this interface, and the library never prints,
 *    exits or installs signal handlers.
 *  - Handles may be used from several threads as long as none is freed
 *    meanwhile; the functions keep no global state.
 */
#ifndef RANKMAP_H
#define RANKMAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a declaration below changes incompatibly. */
#define RANKMAP_API_VERSION 1

typedef enum {
  RANKMAP_OK = 0,
  RANKMAP_ERR_ARGUMENT = 1, /* a NULL or out-of-range argument */
  RANKMAP_ERR_INPUT = 2,    /* a malformed file, string, hostlist or array */
  RANKMAP_ERR_FIT = 3,      /* more ranks than the allocation has slots, or ranks_per_node above a node's cores */
  RANKMAP_ERR_IO = 4,       /* a file that cannot be read or written */
  RANKMAP_ERR_MEMORY = 5,
  RANKMAP_ERR_INTERNAL = 6
} rankmap_status;

typedef struct {
  rankmap_status status;
  char message[512]; /* one line, NUL-terminated */
} rankmap_error;

typedef struct rankmap_machine rankmap_machine;
typedef struct rankmap_graph rankmap_graph;
typedef struct rankmap_allocation rankmap_allocation;
typedef struct rankmap_context rankmap_context;

/* The library's version, "MAJOR.MINOR.PATCH", and its API version (which
 * a program can compare with the RANKMAP_API_VERSION it was built with). */
const char* rankmap_version(void);
int rankmap_api_version(void);

/* ---- Machines: the torus and the nodes on it. ---- */

rankmap_status rankmap_machine_load(const char* toml_path, rankmap_machine** out, rankmap_error* err);
rankmap_status rankmap_machine_parse(const char* toml_text, rankmap_machine** out, rankmap_error* err);

/* A group of nodes: hosts in Slurm hostlist syntax ("node[00-31]") and the
 * inside of each as an hwloc synthetic string ("package:2 core:8 pu:1").
 * Groups fill the torus coordinates in order, X fastest. */
typedef struct {
  const char* hosts;
  const char* hwloc;
} rankmap_node_group;

/* A machine built in code. wrap may be NULL (every dimension a ring); each
 * of its entries is 0 or 1. */
typedef struct {
  int ndims;       /* 1 to 6 */
  const int* dims; /* [ndims] */
  const int* wrap; /* [ndims], 0 or 1, or NULL */
  double t_hop_ns, t_inj_ns, t_ej_ns;
  int ngroups;
  const rankmap_node_group* groups; /* [ngroups] */
} rankmap_machine_spec;
rankmap_status rankmap_machine_create(const rankmap_machine_spec* spec, rankmap_machine** out, rankmap_error* err);
void rankmap_machine_free(rankmap_machine* machine);

/* ---- Communication graphs. ---- */

/* .mtx, .graph, .grf, .csv or a shim profile (.rmp), by extension. */
rankmap_status rankmap_graph_load(const char* path, rankmap_graph** out, rankmap_error* err);

/* From compressed rows: the edges of rank r are targets[offsets[r] ..
 * offsets[r+1]-1], with bytes[] and, when msgs is not NULL, message counts
 * (else one message per edge). offsets has ranks + 1 entries, starting at
 * 0; duplicate edges add up. */
rankmap_status rankmap_graph_create_csr(uint32_t ranks, const uint64_t* offsets, const uint32_t* targets,
                                        const uint64_t* bytes, const uint64_t* msgs, rankmap_graph** out,
                                        rankmap_error* err);
uint32_t rankmap_graph_ranks(const rankmap_graph* graph); /* 0 for NULL */
void rankmap_graph_free(rankmap_graph* graph);

/* ---- Allocations: the nodes a job was given. ---- */

/* hostlist: a Slurm hostlist of the machine's hosts, or NULL for every
 * node; "@PATH" reads the hosts from a regular file, one host or hostlist
 * a line ('#' starts a comment), as the CLI's --nodes @file does. ranks_per_node: 0 for one rank per core (per PU with
 * hwthreads); hwthreads 0 or 1. The allocation keeps its machine alive (a reference is counted): either may be freed
 * first. Pass that same machine wherever both are arguments. */
rankmap_status rankmap_allocation_create(const rankmap_machine* machine, const char* hostlist, int ranks_per_node,
                                         int hwthreads, rankmap_allocation** out, rankmap_error* err);
/* The same for hybrid ranks: each slot is cpus_per_rank cores (PUs with
 * hwthreads) for a rank's threads, inside one package wherever they fit
 * (Slurm's --cpus-per-task); ranks_per_node 0 gives as many as fit. */
rankmap_status rankmap_allocation_create_hybrid(const rankmap_machine* machine, const char* hostlist,
                                                int ranks_per_node, int cpus_per_rank, int hwthreads,
                                                rankmap_allocation** out, rankmap_error* err);
size_t rankmap_allocation_nodes(const rankmap_allocation* allocation); /* 0 for NULL */
size_t rankmap_allocation_slots(const rankmap_allocation* allocation);
/* The host name of allocated node `index`, or NULL when out of range; valid
 * while the allocation lives. */
const char* rankmap_allocation_host(const rankmap_allocation* allocation, size_t index);
void rankmap_allocation_free(rankmap_allocation* allocation);

/* ---- Contexts: how the engine works. ---- */

/* preset: "fast", "default" or "quality" (NULL: "default"). The same
 * inputs and seed give the same mapping. */
rankmap_status rankmap_context_create(const char* preset, uint64_t seed, rankmap_context** out, rankmap_error* err);
/* Reads the settings written by `rankmap map --dump-config`. */
rankmap_status rankmap_context_load(const char* toml_path, rankmap_context** out, rankmap_error* err);
/* Allow more ranks than slots (ranks then share slots). */
rankmap_status rankmap_context_set_oversubscribe(rankmap_context* context, int allow, rankmap_error* err);
/* Threads the engine may use: 0 (the default) for the CPUs the calling
 * process may run on, else 1 to 1024. The mapping is the same for any
 * number. */
rankmap_status rankmap_context_set_threads(rankmap_context* context, int threads, rankmap_error* err);
void rankmap_context_free(rankmap_context* context);

/* ---- Mapping, scoring, prediction, launch files. ----
 * A mapping is two arrays of `ranks` entries, the graph's rank count:
 * host[r], the index of rank r's node in the allocation, and cpu[r], the OS
 * CPU number of the first hardware thread of its slot (what binding uses). */

rankmap_status rankmap_map(const rankmap_graph* graph, const rankmap_machine* machine,
                           const rankmap_allocation* allocation, const rankmap_context* context, uint32_t ranks,
                           int32_t* host, int32_t* cpu, rankmap_error* err);

/* Inside nodes only, for a layout fixed elsewhere (srun's: a SPANK plugin
 * may bind tasks but not move them between nodes). host[r] is rank r's
 * node (an allocation index) as the launcher placed it; fills cpu[r] as
 * rankmap_map does: each node's ranks on its slots, heaviest pairs
 * closest, unless that splits no fewer bytes across sockets than the
 * ranks in order on the slots in order (then that). RANKMAP_ERR_FIT when
 * a node gets more ranks than slots. */
rankmap_status rankmap_map_within_nodes(const rankmap_graph* graph, const rankmap_machine* machine,
                                        const rankmap_allocation* allocation, uint32_t ranks, const int32_t* host,
                                        int32_t* cpu, rankmap_error* err);

/* Every OS CPU of the slot whose first CPU is `cpu` on allocated node
 * `host` (a slot may be a core's hardware threads or a block of cores):
 * up to `capacity` of them into cpus[], ascending, and their number into
 * *count (which may exceed capacity: call again with more room). */
rankmap_status rankmap_slot_cpus(const rankmap_allocation* allocation, int32_t host, int32_t cpu, int32_t* cpus,
                                 size_t capacity, size_t* count, rankmap_error* err);

/* The launcher's default: consecutive ranks fill each node in turn. */
rankmap_status rankmap_map_block(const rankmap_graph* graph, const rankmap_allocation* allocation, uint32_t ranks,
                                 int32_t* host, int32_t* cpu, rankmap_error* err);

typedef struct {
  uint64_t total_bytes, total_msgs; /* self-traffic included */
  uint64_t hop_bytes;               /* sum of bytes x hops */
  double avg_dilation;              /* byte-weighted mean hops, distinct ranks */
  double avg_hops_by_msgs;          /* message-weighted mean hops */
  int max_dilation;                 /* most hops of a communicating pair */
  uint64_t max_link_bytes;          /* the most loaded directed link */
  uint64_t inter_node_bytes, cross_socket_bytes;
  double mean_message_ns; /* the gain model's mean message time */
} rankmap_scores;

rankmap_status rankmap_evaluate(const rankmap_graph* graph, const rankmap_machine* machine,
                                const rankmap_allocation* allocation, uint32_t ranks, const int32_t* host,
                                const int32_t* cpu, rankmap_scores* scores, rankmap_error* err);

/* The measured gain model's predicted relative gain of the mapping over
 * block, for a code that spends p_mpi (0 to 1) of its run time in MPI. */
rankmap_status rankmap_predict_gain(const rankmap_graph* graph, const rankmap_machine* machine,
                                    const rankmap_allocation* allocation, uint32_t ranks, const int32_t* host,
                                    const int32_t* cpu, double p_mpi, double* gain, rankmap_error* err);

/* ---- Renumbering a running job's communicator (MPI's topology calls
 * with reorder = 1; rankmap/reorder.hpp). ---- */

/* The graph of a Cartesian topology: each pair of grid neighbours
 * (periods[d] 0 or 1: dimension d wraps; NULL: none) one byte each way
 * (two in a periodic dimension of 2, a neighbour on both sides), ranks in
 * row-major order as MPI_Cart_rank numbers them. */
rankmap_status rankmap_graph_cartesian(int ndims, const int* dims, const int* periods, rankmap_graph** out,
                                       rankmap_error* err);

typedef struct {
  int identity;                           /* 1: the old order was kept */
  uint64_t hop_bytes, identity_hop_bytes; /* the topology's, in the chosen and in the old order */
  char why[256];                          /* when the old order was kept: why (one line) */
} rankmap_reordering;

/* node[p]: process p's node (an allocation index); cpu[p]: the first OS
 * CPU it is bound to, or -1. Fills process_of_rank[r] (`processes`
 * entries): the process that takes rank r, the engine's mapping of the
 * topology onto exactly these places when it has fewer hop-bytes, else the
 * identity. The same arguments give the same answer on every process. */
rankmap_status rankmap_reorder(const rankmap_graph* topology, const rankmap_machine* machine,
                               const rankmap_allocation* allocation, const rankmap_context* context, uint32_t processes,
                               const int32_t* node, const int32_t* cpu, uint32_t* process_of_rank,
                               rankmap_reordering* result, rankmap_error* err);

/* format: "openmpi", "mpich", "slurm", "mvapich", "intelmpi" or "csv" (see
 * rankmap/launch.hpp). Written through a temporary file and checked by
 * reading it back; on failure no file is left. */
rankmap_status rankmap_write_launch_file(const rankmap_machine* machine, const rankmap_allocation* allocation,
                                         uint32_t ranks, const int32_t* host, const int32_t* cpu, const char* format,
                                         const char* path, rankmap_error* err);

#ifdef __cplusplus
}
#endif

#endif
