/* A job-submit or prolog helper for Slurm, written against rankmap's C API:
 * maps a job's communication profile onto the nodes Slurm gave it and
 * writes the files srun reads.
 *
 *   slurm_hostfile MACHINE.toml PROFILE OUT [NODELIST]
 *
 * NODELIST is a Slurm hostlist (default: $SLURM_JOB_NODELIST); ranks per
 * node come from $SLURM_NTASKS_PER_NODE (default: one per core). Writes
 * OUT, a host per line in rank order, and OUT.env with SLURM_CPU_BIND, and
 * prints how to launch:
 *
 *   export SLURM_HOSTFILE=OUT
 *   srun --distribution=arbitrary --cpu-bind=mask_cpu:0x3,0xc ./app
 *
 * Exit status: 0, or 1 with a one-line message on stderr. */
#include <rankmap/rankmap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed(const rankmap_error* err) {
  fprintf(stderr, "slurm_hostfile: %s\n", err->message);
  return 1;
}

/* The --cpu-bind value: SLURM_CPU_BIND as the launch file writer put it in
 * OUT.env (map_cpu: for one CPU a rank, mask_cpu: for a core of several
 * hardware threads; Slurm binds by local rank, with one list for every
 * node, and the writer has checked that the mapping fits that). */
static int print_cpu_bind(const char* out) {
  char path[4096], line[65536];
  snprintf(path, sizeof path, "%s.env", out);
  FILE* env = fopen(path, "r");
  if (!env) {
    fprintf(stderr, "slurm_hostfile: %s: cannot be read\n", path);
    return 1;
  }
  int found = 0;
  while (!found && fgets(line, sizeof line, env)) {
    if (strncmp(line, "SLURM_CPU_BIND=", 15) != 0) continue;
    line[strcspn(line, "\n")] = '\0';
    printf("srun --distribution=arbitrary --cpu-bind=%s ./app\n", line + 15);
    found = 1;
  }
  fclose(env);
  if (!found) fprintf(stderr, "slurm_hostfile: %s: no SLURM_CPU_BIND line\n", path);
  return !found;
}

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    fprintf(stderr, "usage: slurm_hostfile MACHINE.toml PROFILE OUT [NODELIST]\n");
    return 2;
  }
  const char* nodelist = argc == 5 ? argv[4] : getenv("SLURM_JOB_NODELIST");
  if (!nodelist) {
    fprintf(stderr, "slurm_hostfile: no NODELIST and SLURM_JOB_NODELIST is not set\n");
    return 2;
  }
  const char* per_node = getenv("SLURM_NTASKS_PER_NODE");
  rankmap_error err;
  rankmap_machine* machine = NULL;
  rankmap_graph* graph = NULL;
  rankmap_allocation* allocation = NULL;
  rankmap_context* context = NULL;
  int32_t *host = NULL, *cpu = NULL;
  int status = 1;
  if (rankmap_machine_load(argv[1], &machine, &err) != RANKMAP_OK ||
      rankmap_graph_load(argv[2], &graph, &err) != RANKMAP_OK ||
      rankmap_allocation_create(machine, nodelist, per_node ? atoi(per_node) : 0, 0, &allocation, &err) != RANKMAP_OK ||
      rankmap_context_create("default", 1, &context, &err) != RANKMAP_OK) {
    status = failed(&err);
    goto done;
  }
  const uint32_t ranks = rankmap_graph_ranks(graph);
  host = malloc(ranks * sizeof *host);
  cpu = malloc(ranks * sizeof *cpu);
  if (!host || !cpu) {
    fprintf(stderr, "slurm_hostfile: out of memory\n");
    goto done;
  }
  if (rankmap_map(graph, machine, allocation, context, ranks, host, cpu, &err) != RANKMAP_OK ||
      rankmap_write_launch_file(machine, allocation, ranks, host, cpu, "slurm", argv[3], &err) != RANKMAP_OK) {
    status = failed(&err);
    goto done;
  }
  printf("export SLURM_HOSTFILE=%s\n", argv[3]);
  status = print_cpu_bind(argv[3]);
done:
  free(host);
  free(cpu);
  rankmap_context_free(context);
  rankmap_allocation_free(allocation);
  rankmap_graph_free(graph);
  rankmap_machine_free(machine);
  return status;
}
