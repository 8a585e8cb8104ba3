/* rankmap_spank.so: a Slurm SPANK plugin that binds each task of a step
 * where rankmap maps the job's traffic, through the library's C API.
 *
 *   srun --rankmap=APP.rmp [--rankmap-machine=M.toml] ./app
 *
 * What a plugin can and cannot do in Slurm 22.05:
 *  - srun reads the task layout (which node runs which rank: -m,
 *    SLURM_HOSTFILE with --distribution=arbitrary) in its option checks,
 *    before any plugin callback after the options
 *    (slurm_spank_init_post_opt), and slurmctld fixes it when the step is
 *    made: a plugin cannot move ranks between nodes. `rankmap run` does
 *    that part (it writes SLURM_HOSTFILE and passes --distribution=arbitrary).
 *  - In each task, slurm_spank_task_init runs after the task plugin's own
 *    binding and before exec: the plugin binds the task there
 *    (sched_setaffinity), which takes precedence.
 * So: when the step's layout is the mapping's (under `rankmap run`, or
 * srun given rankmap's host file), each task gets the mapping's CPUs;
 * otherwise (srun's own layout) the ranks of each node are placed on its
 * cores by the engine's in-node stage for that layout
 * (rankmap_map_within_nodes), never splitting more bytes across sockets
 * than srun's order.
 *
 * In srun (local context) a bad option, a missing machine or an
 * unreadable profile fails the step before any task starts, with one
 * line. In slurmstepd (remote context) nothing fails a task: on any doubt
 * the task keeps Slurm's binding and the plugin says why once per task.
 * A bad plugstack.conf argument is logged once and leaves the plugin
 * inert: every job that does not pass --rankmap runs as without it.
 *
 * plugstack.conf:  optional /usr/lib/x86_64-linux-gnu/rankmap/rankmap_spank.so machine=/etc/rankmap/cluster.toml
 */
#define _GNU_SOURCE
#include <sched.h>
#include <slurm/spank.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rankmap/rankmap.h"

SPANK_PLUGIN(rankmap, 1);

enum { kPathMax = 4096, kListMax = 1 << 16 };

static char profile_path[kPathMax];   /* --rankmap */
static char option_machine[kPathMax]; /* --rankmap-machine */
static char conf_machine[kPathMax];   /* plugstack.conf machine= */

static int copy_path(char* to, const char* from, const char* what) {
  if (!from || !*from || strlen(from) >= kPathMax) {
    slurm_error("rankmap: %s expects a file name of 1 to %d bytes", what, kPathMax - 1);
    return -1;
  }
  strcpy(to, from);
  return 0;
}

static int on_rankmap(int val, const char* optarg, int remote) {
  (void)val, (void)remote;
  return copy_path(profile_path, optarg, "--rankmap");
}

static int on_machine(int val, const char* optarg, int remote) {
  (void)val, (void)remote;
  return copy_path(option_machine, optarg, "--rankmap-machine");
}

struct spank_option spank_options[] = {
    {"rankmap", "APP.rmp", "Bind the tasks where rankmap maps this profile (or graph) onto the step's nodes and cores",
     1, 0, on_rankmap},
    {"rankmap-machine", "M.toml", "The machine file for --rankmap (default: machine= in plugstack.conf)", 1, 0,
     on_machine},
    SPANK_OPTIONS_TABLE_END};

/* Why the plugin is inert (a bad plugstack.conf argument), or empty. One
 * mistyped line must never stop sbatch, salloc, srun or slurmd for jobs
 * that did not ask for rankmap: it is logged once, and only a job that
 * passes --rankmap is refused, in srun, before its tasks start. */
static char inert[512];

int slurm_spank_init(spank_t sp, int ac, char** av) {
  (void)sp;
  for (int i = 0; i < ac && !*inert; ++i) {
    if (strncmp(av[i], "machine=", 8) == 0 && av[i][8] && strlen(av[i] + 8) < kPathMax) {
      strcpy(conf_machine, av[i] + 8);
    } else {
      snprintf(inert, sizeof inert, "plugstack.conf argument '%.200s' is not machine=PATH (of 1 to %d bytes)", av[i],
               kPathMax - 1);
      slurm_error("rankmap: %s; the plugin does nothing, and refuses --rankmap", inert);
    }
  }
  return 0;
}

static const char* machine_file(void) {
  if (*option_machine) return option_machine;
  if (*conf_machine) return conf_machine;
  return getenv("RANKMAP_MACHINE");
}

/* srun: the options are checked before the step is made. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char** av) {
  (void)sp, (void)ac, (void)av;
  if (!*profile_path || spank_context() != S_CTX_LOCAL) return 0;
  if (*inert) {
    slurm_error("rankmap: --rankmap cannot be honoured: %s", inert);
    return -1;
  }
  const char* machine_path = machine_file();
  if (!machine_path || !*machine_path) {
    slurm_error("rankmap: --rankmap needs a machine file: --rankmap-machine=M.toml, or machine= in plugstack.conf");
    return -1;
  }
  rankmap_error err;
  rankmap_machine* machine = NULL;
  rankmap_graph* graph = NULL;
  int rc = 0;
  if (rankmap_machine_load(machine_path, &machine, &err) != RANKMAP_OK ||
      rankmap_graph_load(profile_path, &graph, &err) != RANKMAP_OK) {
    slurm_error("rankmap: %s", err.message);
    rc = -1;
  }
  rankmap_graph_free(graph);
  rankmap_machine_free(machine);
  return rc;
}

/* The first set variable of the step's environment among `names`. */
static int step_env(spank_t sp, const char* const* names, char* buf, int len) {
  for (; *names; ++names)
    if (spank_getenv(sp, *names, buf, len) == ESPANK_SUCCESS && *buf) return 0;
  return -1;
}

struct Binding {
  rankmap_machine* machine;
  rankmap_graph* graph;
  rankmap_allocation* allocation;
  rankmap_context* context;
  int32_t *host, *cpu, *layout;
};

static void release(struct Binding* b) {
  rankmap_context_free(b->context);
  rankmap_allocation_free(b->allocation);
  rankmap_graph_free(b->graph);
  rankmap_machine_free(b->machine);
  free(b->host), free(b->cpu), free(b->layout);
}

/* The task's CPUs, or a reason (one line) why Slurm's binding stays. */
static int choose_cpus(spank_t sp, struct Binding* b, cpu_set_t* set, char* why, size_t why_len) {
  uint32_t rank = 0, ranks = 0, node = 0, local_count = 0;
  if (spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &ranks) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_JOB_NODEID, &node) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &local_count) != ESPANK_SUCCESS)
    return snprintf(why, why_len, "Slurm did not say the task's rank and node"), -1;
  static char nodes[kListMax];
  static const char* const node_names[] = {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST", NULL};
  if (step_env(sp, node_names, nodes, sizeof nodes) != 0)
    return snprintf(why, why_len, "no SLURM_STEP_NODELIST in the step's environment"), -1;
  /* Ranks per node as rankmap run reads them (rankmap/batch.hpp): the
   * job's --ntasks-per-node, else one a core. */
  char per_node[32] = "";
  static const char* const per_node_names[] = {"SLURM_NTASKS_PER_NODE", NULL};
  int ppn = 0;
  if (step_env(sp, per_node_names, per_node, sizeof per_node) == 0) ppn = atoi(per_node) > 0 ? atoi(per_node) : 0;
  /* srun -c N: each task's block of N CPUs. Slurm's CPUs are the node's
   * hardware threads (one a core on nodes without SMT), so N counts PUs. */
  uint32_t cpus_per_task = 1; /* spank.h: a uint32_t * */
  if (spank_get_item(sp, S_STEP_CPUS_PER_TASK, &cpus_per_task) != ESPANK_SUCCESS) cpus_per_task = 1;
  const int hybrid = cpus_per_task > 1 && cpus_per_task <= 1000000;
  rankmap_error err;
  const char* machine_path = machine_file();
  if (!machine_path) return snprintf(why, why_len, "no machine file"), -1;
  if (rankmap_machine_load(machine_path, &b->machine, &err) != RANKMAP_OK ||
      rankmap_graph_load(profile_path, &b->graph, &err) != RANKMAP_OK ||
      rankmap_allocation_create_hybrid(b->machine, nodes, ppn, hybrid ? (int)cpus_per_task : 0, hybrid, &b->allocation,
                                       &err) != RANKMAP_OK ||
      rankmap_context_create("default", 1, &b->context, &err) != RANKMAP_OK)
    return snprintf(why, why_len, "%s", err.message), -1;
  if (rankmap_graph_ranks(b->graph) != ranks)
    return snprintf(why, why_len, "%.300s has %u ranks, the step %u", profile_path, rankmap_graph_ranks(b->graph),
                    ranks),
           -1;
  b->host = calloc(ranks, sizeof *b->host);
  b->cpu = calloc(ranks, sizeof *b->cpu);
  b->layout = calloc(ranks, sizeof *b->layout);
  if (!b->host || !b->cpu || !b->layout) return snprintf(why, why_len, "out of memory"), -1;
  if (rankmap_map(b->graph, b->machine, b->allocation, b->context, ranks, b->host, b->cpu, &err) != RANKMAP_OK)
    return snprintf(why, why_len, "%s", err.message), -1;
  /* Is this node's share of the layout the mapping's? Then its CPUs. */
  uint32_t mapped_here = 0;
  for (uint32_t r = 0; r < ranks; ++r) mapped_here += b->host[r] == (int32_t)node;
  int same = mapped_here == local_count;
  for (uint32_t t = 0; t < local_count && same; ++t) {
    uint32_t global = 0;
    same = spank_get_item(sp, S_JOB_LOCAL_TO_GLOBAL_ID, t, &global) == ESPANK_SUCCESS && global < ranks &&
           b->host[global] == (int32_t)node;
  }
  if (!same) {
    /* srun's layout: this node's tasks where srun put them, the others on
     * the other nodes in turn (their places do not change this node's). */
    for (uint32_t r = 0; r < ranks; ++r) b->layout[r] = -1;
    for (uint32_t t = 0; t < local_count; ++t) {
      uint32_t global = 0;
      if (spank_get_item(sp, S_JOB_LOCAL_TO_GLOBAL_ID, t, &global) != ESPANK_SUCCESS || global >= ranks)
        return snprintf(why, why_len, "Slurm did not say which ranks run on this node"), -1;
      b->layout[global] = (int32_t)node;
    }
    const size_t nnodes = rankmap_allocation_nodes(b->allocation);
    size_t next = 0;
    for (uint32_t r = 0; r < ranks; ++r) {
      if (b->layout[r] >= 0) continue;
      if (nnodes > 1 && next % nnodes == node) ++next;
      b->layout[r] = (int32_t)(nnodes > 1 ? next++ % nnodes : 0);
    }
    if (rankmap_map_within_nodes(b->graph, b->machine, b->allocation, ranks, b->layout, b->cpu, &err) != RANKMAP_OK)
      return snprintf(why, why_len, "%s", err.message), -1;
    b->host[rank] = (int32_t)node;
  }
  int32_t cpus[1024];
  size_t count = 0;
  if (rankmap_slot_cpus(b->allocation, b->host[rank], b->cpu[rank], cpus, 1024, &count, &err) != RANKMAP_OK)
    return snprintf(why, why_len, "%s", err.message), -1;
  CPU_ZERO(set);
  for (size_t i = 0; i < count && i < 1024; ++i)
    if (cpus[i] >= 0 && cpus[i] < CPU_SETSIZE) CPU_SET(cpus[i], set);
  return 0;
}

/* slurmstepd, in each task before exec. */
int slurm_spank_task_init(spank_t sp, int ac, char** av) {
  (void)ac, (void)av;
  if (!*profile_path || *inert || spank_context() != S_CTX_REMOTE) return 0;
  struct Binding b = {0};
  cpu_set_t set;
  char why[600] = "";
  if (choose_cpus(sp, &b, &set, why, sizeof why) != 0)
    slurm_error("rankmap: %s; the task keeps Slurm's binding", why);
  else if (sched_setaffinity(0, sizeof set, &set) != 0)
    slurm_error("rankmap: cannot bind the task (sched_setaffinity: %m); it keeps Slurm's binding");
  release(&b);
  return 0;
}
