/* Every rank checks that it runs where the launch file put it: on the fake
 * host (FAKE_HOST, set by the stand-in remote shell) and bound to exactly the
 * CPUs of the core (or PU) that the csv mapping names. hwloc turns logical
 * indices into CPU sets independently of rankmap.
 * Built with -DNO_MPI for srun, which starts plain processes: the rank is
 * SLURM_PROCID and the host SLURMD_NODENAME, and each rank reports alone.
 * Usage: check_placement MAPPING.csv */
#include <hwloc.h>
#ifndef NO_MPI
#include <mpi.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(int rank, const char* csv, char* why, size_t whylen) {
  FILE* f = fopen(csv, "r");
  if (!f) return snprintf(why, whylen, "cannot open %s", csv), 0;
  char line[256], host[128] = "", core[32] = "", pu[32] = "";
  int found = 0;
  while (fgets(line, sizeof line, f)) {
    int r;
    char h[128], s[16], c[32], p[32] = "";
    /* rank,host,socket,core,pu (pu may be empty) */
    if (sscanf(line, "%d,%127[^,],%15[^,],%31[^,\n],%31[^\n]", &r, h, s, c, p) >= 4 && r == rank) {
      strcpy(host, h), strcpy(core, c), strcpy(pu, p), found = 1;
      break;
    }
  }
  fclose(f);
  if (!found) return snprintf(why, whylen, "rank %d not in %s", rank, csv), 0;

#ifdef NO_MPI
  const char* fake = getenv("SLURMD_NODENAME");
#else
  const char* fake = getenv("FAKE_HOST");
#endif
  if (!fake || strcmp(fake, host) != 0)
    return snprintf(why, whylen, "on host %s, expected %s", fake ? fake : "(unset)", host), 0;

  hwloc_topology_t topo;
  hwloc_topology_init(&topo);
  hwloc_topology_load(topo);
  hwloc_obj_t obj = pu[0] ? hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)atoi(pu))
                          : hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)atoi(core));
  hwloc_bitmap_t bound = hwloc_bitmap_alloc();
  hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_PROCESS);
  int ok = obj && hwloc_bitmap_isequal(bound, obj->cpuset);
  if (!ok) {
    char want[64] = "?", have[64];
    if (obj) hwloc_bitmap_list_snprintf(want, sizeof want, obj->cpuset);
    hwloc_bitmap_list_snprintf(have, sizeof have, bound);
    snprintf(why, whylen, "bound to CPUs %s, expected %s (core %s pu %s)", have, want, core, pu);
  }
  hwloc_bitmap_free(bound);
  hwloc_topology_destroy(topo);
  return ok;
}

#ifdef NO_MPI
int main(int argc, char** argv) {
  const char* id = getenv("SLURM_PROCID");
  const int rank = id ? atoi(id) : -1;
  char why[256] = "";
  const int ok = id && argc > 1 && check(rank, argv[1], why, sizeof why);
  if (!ok)
    fprintf(stderr, "rank %d: %s\n", rank, why);
  else
    printf("rank %d: on %s as the file says\n", rank, getenv("SLURMD_NODENAME"));
  return ok ? 0 : 1;
}
#else
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char why[256] = "";
  int ok = argc > 1 && check(rank, argv[1], why, sizeof why);
  if (!ok)
    fprintf(stderr, "rank %d: %s\n", rank, why);
  else
    printf("rank %d: on %s as the file says\n", rank, getenv("FAKE_HOST"));
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d ranks checked\n", all_ok ? "placement ok" : "placement WRONG", size);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
#endif
